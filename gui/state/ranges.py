"""The ranges the GUI's sliders and spin boxes offer: a window on the engine's bounds, each defined here once.

The engine bounds every field (``Annotated`` aliases in ``engine.specs``, ``engine.serving``, ``engine.alignment``)
and rejects anything outside; the GUI offers a narrower, practical window (a slider to a million tokens would
squeeze 128 to 8k into a few pixels). Each window names the engine field it opens on, and ``check`` validates
both ends with that field's own constraints (``tests/gui/state/test_ranges.py`` runs it; importing the engine models
here would cost start-up time for pages not yet shown).
"""

from __future__ import annotations

import importlib
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ValidationError

from engine.errors import one_line
from engine.training.advisor import ROADMAP_GPU_LIMIT

N = TypeVar("N", int, float)

#: every window: (lo, hi) -> "module:Model.field" of the engine field it opens on
WINDOWS: list[tuple[tuple[float, float], str]] = []


def within(field: str, lo: N, hi: N) -> tuple[N, N]:
    """Declare the window ``(lo, hi)`` on the engine's ``field`` (``"engine.specs:TrainingSetup.seq_len"``)."""
    WINDOWS.append(((lo, hi), field))
    return lo, hi


def check(window: tuple[float, float], field: str) -> None:
    """``ValueError`` naming the field unless the engine accepts both ends and ``lo < hi``."""
    from pydantic import TypeAdapter  # only the tests check: the app does not pay for it at start-up

    module, _, path = field.partition(":")
    model_name, _, name = path.partition(".")
    model: type[BaseModel] = getattr(importlib.import_module(module), model_name)
    info = model.model_fields[name]
    annotated: Any = Annotated  # the field's type with its constraints, as one validator (an optional field,
    kind: Any = annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation  # in its type)
    accepts = TypeAdapter[Any](kind)
    for end in window:
        try:
            accepts.validate_python(end)
        except ValidationError as err:
            raise ValueError(f"the UI range of {model_name}.{one_line(err, name)}") from None
    if window[0] >= window[1]:
        raise ValueError(f"the UI range of {model_name}.{name}: {window[0]} is not below {window[1]}")


_SETUP = "engine.specs:TrainingSetup"

# -- training (the shared scenario) ---------------------------------------------------------------------------
SEQ_LEN = within(f"{_SETUP}.seq_len", 128, 131_072)
BATCH = within(f"{_SETUP}.batch", 1, 128)
#: as many GPUs as the roadmap may propose (``engine.training.advisor``), so that its last step can be set here
GPUS = within(f"{_SETUP}.gpus", 1, ROADMAP_GPU_LIMIT)
GRAD_ACCUM = within(f"{_SETUP}.grad_accum", 1, 128)
LORA_RANK = within("engine.specs:LoraSpec.rank", 1, 512)
#: issue 27's options on the memory page
TRAINABLE_TOKENS = within(f"{_SETUP}.trainable_tokens", 0, 65_536)
FREEZE_LAYERS = within(f"{_SETUP}.freeze_layers", -256, 256)
OFT_BLOCK = within(f"{_SETUP}.oft_block_size", 2, 512)
OPTIMIZER_RANK = within(f"{_SETUP}.optimizer_rank", 1, 4_096)
#: the attention walk-through's length: from its toy sentence's six tokens to 128k
ATTENTION_SEQ_LEN = within(f"{_SETUP}.seq_len", 6, 131_072)
#: chunks of a chunked loss (the memory page's long-context settings; below it, "the tool's own")
LOSS_CHUNKS = within(f"{_SETUP}.loss_chunks", 1, 1_024)
#: the levers page's ZeRO-3 card: sharding over one GPU shards nothing
ZERO3_GPUS = within(f"{_SETUP}.gpus", 2, GPUS[1])

# -- parallel layouts (issue 14) on the memory page ---------------------------------------------------------
_PARALLEL = "engine.specs:ParallelSpec"
LAYOUT_TP = within(f"{_PARALLEL}.tp", 1, 64)
LAYOUT_PP = within(f"{_PARALLEL}.pp", 1, 128)
LAYOUT_CP = within(f"{_PARALLEL}.cp", 1, 64)
LAYOUT_EP = within(f"{_PARALLEL}.ep", 1, 256)
MICRO_BATCHES = within(f"{_PARALLEL}.micro_batches", 1, 1_024)
VIRTUAL_STAGES = within(f"{_PARALLEL}.virtual_stages", 1, 16)
#: the GPU-count spin box and the layout planner's "at most N GPUs": 16 nodes of 64 (405B full fine-tuning needs
#: more than the slider's 64); the slider keeps ``GPUS``
GPU_COUNT = within(f"{_SETUP}.gpus", 1, 1_024)

# -- host RAM (issue 20) on the memory page -------------------------------------------------------------------
_HOST = "engine.specs:HostSetup"
#: tokens in the training set, shown in millions (0: no dataset given)
DATASET_TOKENS = within(f"{_HOST}.dataset_tokens", 0, 10**12)
DATALOADER_WORKERS = within(f"{_HOST}.num_workers", 0, 64)
PREFETCH_FACTOR = within(f"{_HOST}.prefetch_factor", 1, 16)
NODES = within(f"{_HOST}.nodes", 1, 128)
#: one node's RAM in bytes, shown in GB (the spin box's 0 means "not given": no verdict)
NODE_RAM = within(f"{_HOST}.ram_bytes", 1_000_000_000, 64_000_000_000_000)

# -- serving (the serving page's own state) -------------------------------------------------------------------
SERVING_TOKENS = within("engine.serving:ServingSetup.tokens", *SEQ_LEN)
SEQUENCES = within("engine.serving:ServingSetup.sequences", 1, 1_024)
TP = within("engine.serving:ServingSetup.tp", 1, 8)
SERVING_PP = within("engine.serving:ServingSetup.pp", 1, 8)
#: vLLM's --gpu-memory-utilization, from 0.05 to the whole GPU
UTILIZATION = within("engine.serving:ServingSetup.gpu_memory_utilization", 0.05, 1.0)

# -- alignment (the alignment page's own options) -------------------------------------------------------------
ROLLOUT_SHARE = within("engine.alignment:AlignmentOptions.rollout_share", 0.0, 0.95)
#: GRPO's generations per prompt (G) and the prompt and completion lengths (P, C), in tokens
GENERATIONS = within("engine.alignment:AlignmentOptions.num_generations", 1, 256)
PROMPT_TOKENS = within("engine.alignment:AlignmentOptions.max_prompt_length", 16, 131_072)
COMPLETION_TOKENS = within("engine.alignment:AlignmentOptions.max_completion_length", 16, 131_072)

# -- timeline (the timeline page's alignment of a measured snapshot) --------------------------------------------
ALIGN_SHIFT = within("engine.snapshot.overlay:Alignment.shift", -1.0, 1.0)
ALIGN_SCALE = within("engine.snapshot.overlay:Alignment.scale", 0.5, 2.0)
