"""Published measurements (shared/reference/measured.csv) next to the engine's estimate for the same setup.

Only rows whose setup can be stated in the engine's terms are here, each with what differs. These are loose
comparisons: the rows mix metrics (reserved, "peak" of unstated type, nvidia-smi), units (decimal GB before
torchtune's mid-2024 change) and details the sources leave out (sequence packing, torch.compile, chunked loss);
``tools/accuracy_report.py`` prints them under their own heading, and no test holds the engine to them, except
the analytic ZeRO row, which ``tests/engine/test_published.py`` checks exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.catalog import get_gpu, get_model
from engine.specs import Attention, Checkpointing, LoraSpec, LoraTargets, Method, Precision, Sharding, TrainingSetup
from engine.training import estimate

GB = 10**9


@dataclass(frozen=True, slots=True)
class Published:
    id: str
    what: str
    value_gb: float  # as published, converted to decimal GB
    metric: str  # which engine level it is compared with: allocated | reserved | device
    model: str
    setup: TrainingSetup
    note: str


def _s(**kw: object) -> TrainingSetup:
    return TrainingSetup.model_validate({"precision": Precision.BF16, "checkpointing": Checkpointing.FULL, **kw})


R8QV = LoraSpec(rank=8, alpha=16, targets=LoraTargets.QV)
R8ALL = LoraSpec(rank=8, alpha=16, targets=LoraTargets.ALL_LINEAR)

ROWS = (
    Published("TT-25", "torchtune Llama-2-7B LoRA r8 q,v, bs 4 x 2048, RTX 4090", 21.3, "reserved", "llama-2-7b",
              _s(method=Method.LORA, batch=4, seq_len=2048, lora=R8QV),
              "pure bf16; 'peak' of unstated type, decimal GB; loss and compile details not stated"),
    Published("TT-24", "torchtune Llama-2-7B QLoRA, bs 4 x 2048, RTX 4090", 12.3, "reserved", "llama-2-7b",
              _s(method=Method.QLORA, batch=4, seq_len=2048, lora=R8ALL),
              "torchao NF4 (not bitsandbytes); 'peak' of unstated type; compile on"),
    Published("TT-26", "torchtune Llama-2-7B LoRA, 2 GPUs FSDP, bs 4 x 2048", 16.2, "reserved", "llama-2-7b",
              _s(method=Method.LORA, batch=4, seq_len=2048, lora=R8QV, gpus=2, sharding=Sharding.ZERO3),
              "pure bf16; per GPU; FSDP wrapping details not stated"),
    Published("TT-28", "torchtune Llama-2-7B full, 4 GPUs FSDP, bs 4 x 2048", 24.1, "reserved", "llama-2-7b",
              _s(batch=4, seq_len=2048, gpus=4, sharding=Sharding.ZERO3),
              "pure bf16; per GPU; the same figure as the disputed single-GPU row TT-27"),
    Published("PF-11", "PEFT docs: Llama-2-70B LoRA r8 all-linear, 8 GPUs ZeRO-3, bs 8 x 2048", 64.0, "device",
              "llama-2-70b",
              _s(method=Method.LORA, precision=Precision.BF16_MIXED, batch=8, seq_len=2048, lora=R8ALL,
                 attention=Attention.FLASH, gpus=8, sharding=Sharding.ZERO3),
              "read off a GPU-memory screenshot (80% of 80 GB); packed sequences"),
    Published("PF-13", "PEFT docs: Llama-2-70B QLoRA r8 all-linear, 2 GPUs ZeRO-3, bs 2 x 2048", 36.6, "device",
              "llama-2-70b",
              _s(method=Method.QLORA, batch=2, seq_len=2048, lora=R8ALL, attention=Attention.FLASH, gpus=2,
                 sharding=Sharding.ZERO3),
              "metric not stated; 4-bit weights stored as bf16-packed (quant_storage) for sharding"),
)


def compare() -> list[tuple[Published, int]]:
    """Each published row with the engine's bytes at the level it is compared with."""
    gpu = get_gpu("a100-80gb")
    out = []
    for row in ROWS:
        e = estimate(get_model(row.model), row.setup, gpu)
        level = {"allocated": e.peak_allocated_bytes, "reserved": e.reserved_bytes, "device": e.device_bytes}
        out.append((row, level[row.metric]))
    return out
