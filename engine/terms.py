"""The memory terms, each named once: what the user reads it as, and where it belongs.

Every number the app shows is a :class:`engine.results.Term` whose ``name`` is a :class:`TermName`. This module
holds the registry of term definitions (:data:`TERMS`): the English label (marked for translation; the GUI shows
it through ``gui.text.words``) and the scope the term belongs to. A term's bytes, formula and source come from the one
engine function that computes it (``engine.training.terms`` for a training step, ``engine.serving.capacity`` for
serving, ...); the GUI's colours are keyed by the same names (``gui.look.palette``). ``tests/test_terms.py`` fails,
naming what is missing, when a term lacks a label in either language, a colour in any palette, a formula or a
source.

Adding a term: a member here and its :class:`TermDef` in :data:`TERMS`, the function that computes it, and its
colours in ``gui.look.palette`` (the test lists whatever is still missing).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.translatable import QT_TRANSLATE_NOOP


class TermName(StrEnum):
    """One name per memory term, everywhere (engine results, JSON, GUI labels, colours, exports)."""

    # a training step, per GPU, in the order they stack
    WEIGHTS = "weights"
    GRADIENTS = "gradients"
    OPTIMIZER_STATES = "optimizer_states"
    ACTIVATIONS = "activations"
    LOGITS = "logits"
    SHARDING_BUFFERS = "sharding_buffers"
    TEMPORARIES = "temporaries"
    PARALLEL_BUFFERS = "parallel_buffers"  # only with a tensor / pipeline / context / expert parallel layout
    # between the allocated peak and what nvidia-smi shows
    ALLOCATOR_RESERVE = "allocator_reserve"
    CUDA_CONTEXT = "cuda_context"
    # serving
    KV_CACHE = "kv_cache"
    ACTIVATION_WORKSPACE = "activation_workspace"
    NON_TORCH = "non_torch"  # outside PyTorch's allocator: the CUDA context, NCCL's buffers, lazily loaded kernels
    CUDA_GRAPHS = "cuda_graphs"  # captured after the KV cache: outside vLLM's budget until 0.19
    # alignment: a frozen model's no-grad forward pass
    FORWARD = "forward"
    # host RAM of a training run, per process and per node (engine/training/host.py), in the order they stack
    MODEL_LOADING = "model_loading"
    DATASET = "dataset"
    DATALOADER_WORKERS = "dataloader_workers"
    PINNED_BUFFERS = "pinned_buffers"
    OFFLOADED_STATES = "offloaded_states"
    RUNTIME = "runtime"


class Scope(StrEnum):
    """Where a term appears."""

    TRAINING = "training"  # one training step's allocated peak
    DEVICE = "device"  # allocated -> device total
    SERVING = "serving"
    ALIGNMENT = "alignment"
    HOST = "host"  # host RAM (CPU memory), not the GPU's


@dataclass(frozen=True, slots=True)
class TermDef:
    """A term's definition: its name, its English label (translated in the context ``words``), its scope."""

    name: str
    label: str
    scope: Scope


def _defs(*defs: TermDef) -> dict[str, TermDef]:
    return {d.name: d for d in defs}


# Every term the engine produces. The labels are the words of shared/DESIGN.md ("One term, one name").
TERMS: dict[str, TermDef] = _defs(
    TermDef(TermName.WEIGHTS, QT_TRANSLATE_NOOP("words", "weights"), Scope.TRAINING),
    TermDef(TermName.GRADIENTS, QT_TRANSLATE_NOOP("words", "gradients"), Scope.TRAINING),
    TermDef(TermName.OPTIMIZER_STATES, QT_TRANSLATE_NOOP("words", "optimizer states"), Scope.TRAINING),
    TermDef(TermName.ACTIVATIONS, QT_TRANSLATE_NOOP("words", "activations"), Scope.TRAINING),
    TermDef(TermName.LOGITS, QT_TRANSLATE_NOOP("words", "logits"), Scope.TRAINING),
    TermDef(TermName.SHARDING_BUFFERS, QT_TRANSLATE_NOOP("words", "sharding buffers"), Scope.TRAINING),
    TermDef(TermName.TEMPORARIES, QT_TRANSLATE_NOOP("words", "temporaries"), Scope.TRAINING),
    TermDef(TermName.PARALLEL_BUFFERS, QT_TRANSLATE_NOOP("words", "parallelism buffers"), Scope.TRAINING),
    TermDef(TermName.ALLOCATOR_RESERVE, QT_TRANSLATE_NOOP("words", "allocator reserve"), Scope.DEVICE),
    TermDef(TermName.CUDA_CONTEXT, QT_TRANSLATE_NOOP("words", "CUDA context"), Scope.DEVICE),
    TermDef(TermName.KV_CACHE, QT_TRANSLATE_NOOP("words", "KV cache"), Scope.SERVING),
    TermDef(TermName.ACTIVATION_WORKSPACE, QT_TRANSLATE_NOOP("words", "activation workspace"), Scope.SERVING),
    TermDef(TermName.NON_TORCH, QT_TRANSLATE_NOOP("words", "non-torch memory"), Scope.SERVING),
    TermDef(TermName.CUDA_GRAPHS, QT_TRANSLATE_NOOP("words", "CUDA graphs"), Scope.SERVING),
    TermDef(TermName.FORWARD, QT_TRANSLATE_NOOP("words", "forward pass"), Scope.ALIGNMENT),
    TermDef(TermName.MODEL_LOADING, QT_TRANSLATE_NOOP("words", "model loading"), Scope.HOST),
    TermDef(TermName.DATASET, QT_TRANSLATE_NOOP("words", "dataset"), Scope.HOST),
    TermDef(TermName.DATALOADER_WORKERS, QT_TRANSLATE_NOOP("words", "DataLoader workers"), Scope.HOST),
    TermDef(TermName.PINNED_BUFFERS, QT_TRANSLATE_NOOP("words", "pinned buffers"), Scope.HOST),
    TermDef(TermName.OFFLOADED_STATES, QT_TRANSLATE_NOOP("words", "offloaded states"), Scope.HOST),
    TermDef(TermName.RUNTIME, QT_TRANSLATE_NOOP("words", "runtime (Python, PyTorch, CUDA)"), Scope.HOST),
)


def term_def(name: str) -> TermDef:
    """The definition of a term (``KeyError`` naming it when it has none)."""
    try:
        return TERMS[name]
    except KeyError:
        raise KeyError(f"{name!r} is not a defined memory term (engine.terms.TERMS)") from None


def in_scope(scope: Scope) -> tuple[str, ...]:
    """The names of one scope's terms, in their stacking order."""
    return tuple(name for name, d in TERMS.items() if d.scope is scope)
