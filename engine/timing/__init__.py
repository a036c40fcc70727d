"""Step time: how long one optimizer step takes, op by op over the training plan (``engine.timing.step``)."""

from engine.timing.hardware import CannotTimeError, GpuPerf, gpu_perf
from engine.timing.step import MFU_CONVENTION, StepTime, TimingOptions, step_time

__all__ = ["MFU_CONVENTION", "CannotTimeError", "GpuPerf", "StepTime", "TimingOptions", "gpu_perf", "step_time"]
