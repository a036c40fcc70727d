"""Time beside memory for the choices the app offers: a lever's positions, the roadmap's options that fit, and
which GPU types (and how many of each) fit a run, by hours and by cost.

* ``time_or_reason``: a setup's step time, or the one-line reason it cannot be timed.
* ``fitting_options``: every change the roadmap can make (``engine.training.advisor``: each rung on its own from
  the current setup, and the roadmap's own cumulative path where it ends fitting) that makes the run fit, fastest
  first (by the run's tokens/s over all its GPUs: the same data in the least time).
* ``gpu_options``: for each GPU type with figures (``engine.timing.hardware``), the fewest GPUs of it the run
  fits on, counted as clusters are rented (1, 2, 4, then whole nodes of 8, as ``engine.training.planner`` does):
  the setup as it is on one GPU, else ZeRO-3 over more; and twice and four times that many (to see what more
  GPUs buy); each with its step time, the run's hours (``dataset tokens x epochs`` at that throughput) and its
  cost at the user's prices (none shipped: a GPU type without a price has no cost).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from engine.specs import GpuSpec, ModelSpec, Sharding, TrainingSetup
from engine.timing.hardware import CannotTimeError, gpu_perf
from engine.timing.step import StepTime, step_time
from engine.training.advisor import Rung, Step, roadmap
from engine.training.estimate import Estimate, estimate


def time_or_reason(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec) -> StepTime | str:
    """The step time of ``s`` on ``gpu``, or why it cannot be timed (one line)."""
    try:
        return step_time(m, s, gpu)
    except (CannotTimeError, ValueError) as e:
        return str(e)


def run_tokens_per_second(t: StepTime | str, gpus: int) -> float:
    """The run's tokens/s over all its GPUs (0 when not timed)."""
    return t.tokens_per_second_per_gpu * gpus if isinstance(t, StepTime) else 0.0


@dataclass(frozen=True, slots=True)
class Option:
    """A change that makes the run fit: the roadmap rung (the last one of a cumulative path), the setup, its
    estimate and its step time (or why there is none)."""

    key: Rung
    cumulative: bool  # the roadmap's own path (its rungs one on top of the other) rather than one rung alone
    setup: TrainingSetup
    estimate: Estimate
    time: StepTime | str

    @property
    def tokens_per_second(self) -> float:
        return run_tokens_per_second(self.time, self.setup.gpus)


def _single_rungs(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, steps: Sequence[Step]) -> list[Step]:
    """Each rung of the roadmap applied alone to the current setup (the roadmap's own setups tell which fields
    each rung sets: the difference between a step's setup and the one before it)."""
    out: list[Step] = []
    before = s
    for st in steps:
        changed = {k: getattr(st.setup, k) for k in TrainingSetup.model_fields
                   if getattr(st.setup, k) != getattr(before, k)}
        before = st.setup
        try:
            alone = s.with_(**changed)
            out.append(Step(st.key, alone, estimate(m, alone, gpu)))
        except ValueError:
            continue
    return out


def fitting_options(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, steps: Sequence[Step] | None = None
                    ) -> list[Option]:
    """The roadmap's changes that make the run fit, fastest first (module docstring); empty when it fits.
    ``steps``: the roadmap of ``s`` where the caller has it already."""
    steps = roadmap(m, s, gpu) if steps is None else steps
    if not steps:
        return []
    found: dict[TrainingSetup, Option] = {}
    last = steps[-1]
    if last.fits:
        found[last.setup] = Option(last.key, True, last.setup, last.estimate, time_or_reason(m, last.setup, gpu))
    for st in _single_rungs(m, s, gpu, steps):
        if st.fits and st.setup not in found:
            found[st.setup] = Option(st.key, False, st.setup, st.estimate, time_or_reason(m, st.setup, gpu))
    return sorted(found.values(), key=lambda o: (isinstance(o.time, str), -o.tokens_per_second))


@dataclass(frozen=True, slots=True)
class GpuOption:
    """One GPU type for the run: how many of it, the setup and estimate there, its time, hours and cost."""

    gpu: GpuSpec
    count: int
    setup: TrainingSetup
    estimate: Estimate
    time: StepTime | str
    run_hours: float | None  # None: no dataset given, or not timed
    cost: float | None  # None: no price given, or no hours

    @property
    def tokens_per_second(self) -> float:
        return run_tokens_per_second(self.time, self.count)


NODE = 8


def counts(max_gpus: int) -> list[int]:
    """GPU counts as clusters are rented: 1, 2, 4, then whole nodes of 8, up to ``max_gpus``."""
    return [n for n in (1, 2, 4) if n <= max_gpus] + list(range(NODE, max_gpus + 1, NODE))


def _on(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, n: int) -> tuple[TrainingSetup, Estimate] | None:
    """The setup on ``n`` GPUs of ``gpu`` (ZeRO-3 beyond one) and its estimate, None where it does not fit or the
    model cannot take it."""
    try:
        setup = (s.with_(gpus=1, sharding=Sharding.NONE, offload_params=False) if n == 1
                 else s.with_(gpus=n, sharding=Sharding.ZERO3, host=s.host.model_copy(
                     update={"nodes": max(1, n // NODE)})))
        e = estimate(m, setup, gpu)
    except ValueError:
        return None
    return (setup, e) if e.fits else None


def _fitting(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, max_gpus: int) -> list[tuple[TrainingSetup, Estimate]]:
    """The fewest GPUs of ``gpu`` the run fits on, and twice and four times as many (module docstring)."""
    allowed = counts(max_gpus)
    first = next((i for i, n in enumerate(allowed) if _on(m, s, gpu, n) is not None), None)
    if first is None:
        return []
    n = allowed[first]
    out = []
    for k in (n, 2 * n, 4 * n):
        found = _on(m, s, gpu, k) if k in allowed else None
        if found is not None:
            out.append(found)
    return out


def gpu_options(m: ModelSpec, s: TrainingSetup, gpus: Sequence[GpuSpec], *, max_gpus: int, epochs: float,
                prices: Mapping[str, float] | None = None,
                cancelled: Callable[[], bool] | None = None) -> list[GpuOption]:
    """Every GPU type of ``gpus`` with figures on which the run fits within ``max_gpus``, fastest run first
    (module docstring). ``cancelled()`` is asked before each type (a background search)."""
    prices = prices or {}
    out: list[GpuOption] = []
    for gpu in gpus:
        if cancelled is not None and cancelled():
            break
        try:
            gpu_perf(gpu)
        except CannotTimeError:
            continue
        for setup, e in _fitting(m, s, gpu, max_gpus):
            t = time_or_reason(m, setup, gpu)
            hours = None
            if isinstance(t, StepTime) and s.host.dataset_tokens:
                hours = s.host.dataset_tokens * epochs / (t.tokens_per_second_per_gpu * setup.gpus) / 3600
            price = prices.get(gpu.id)
            cost = hours * setup.gpus * price if hours is not None and price is not None else None
            out.append(GpuOption(gpu, setup.gpus, setup, e, t, hours, cost))
    return sorted(out, key=lambda o: (isinstance(o.time, str), -o.tokens_per_second))
