"""What a token mixer that is not softmax attention saves for backward, per token (``engine.training.saved``).

Each mixer runs as the kernels users install run it, not as the PyTorch fallback transformers keeps for machines
without them (which holds far more: every chunk's decay matrices and intra-chunk attention in fp32).
"""

from __future__ import annotations

from engine.layers import UnsupportedLayerError
from engine.specs import Mixer
from engine.training.saved.inputs import Ctx


def mixer_coeffs(ctx: Ctx, x: Mixer, adapted: set[str]) -> tuple[float, float]:
    """(saved, transient) bytes per token of one mixer."""
    raise UnsupportedLayerError(f"{x.kind} layers: what they save for backward is not modelled yet")
