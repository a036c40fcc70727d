"""Issue 19's long-context levers, traced: a chunked loss, activation offloading, selective checkpointing.

A case may carry three extra keys (the cases with ids ``lc-...`` in cases.py); without them the step is the
ordinary Trainer-like one of step.py.

- ``loss: "chunked"``: TRL's ``loss_type="chunked_nll"``, SFTTrainer's default from TRL 1.7 to 1.14, run by TRL's
  own code (``trl/trainer/sft_trainer.py``, the version pinned in requirements.txt): ``_patch_chunked_ce_lm_head``
  patches the causal LM's forward (the base model's, under PEFT) as SFTTrainer does, so the decoder runs up to its
  last hidden state and ``_chunked_cross_entropy_loss`` reorders the valid tokens (a copy of the hidden states) and
  runs the output layer, ``log_softmax``, ``nll_loss`` and an entropy metric on chunks of tokens, each chunk under
  non-reentrant ``torch.utils.checkpoint``. ``loss_chunks`` null: TRL's ``_CHUNKED_LM_HEAD_CHUNK_SIZE`` (256)
  tokens per chunk; ``loss_chunks: N``: N chunks of ``ceil(b s / N)`` tokens. The whole step runs inside the
  offload context when there is one (SFTTrainer's ``training_step``). One thing is changed for fake tensors: TRL
  reads the number of chunks from a tensor (``range(0, n_padded, chunk_size)``), which a fake tensor cannot give;
  the harness gives ``range`` the count TRL would compute (every label is valid here).
- ``loss: "chunked-output"`` with ``loss_chunks: N``: torchtune's ``CEWithChunkedOutputLoss`` (torchtune
  ``modules/loss/ce_chunked_output_loss.py``): the decoder runs, the output layer is applied to each of N slices of
  the hidden states along the sequence (torchtune's ``set_num_output_chunks``), so the 16-bit logits exist as N
  pieces that together are whole; then each piece is upcast to fp32 and cross-entropy'd with ``reduction="sum"``
  one at a time, and the sum is divided by the token count. Eager PyTorch, as torchtune runs it unless
  ``compile: True``. There are no output logits for accelerate to upcast.
- ``activation_offload: true``: torchtune's ``OffloadActivations`` (``training/_activation_offload.py``; TRL
  copies it as ``trl/models/activation_offloading.py``) with a single stream: every tensor autograd saves in the
  forward is moved to host memory as it is saved and brought back when its backward needs it, except parameters,
  tensors under 1,024 bytes and what the output layer saves (wrapped in a no-op context, as torchtune and TRL do).
  The loss is computed outside the context, as torchtune's recipes do. (``torch.autograd.graph.save_on_cpu``
  would also move the parameters that matmuls save, and on a CPU trace cannot tell host from device.) Here
  "host" is a counter: the packed tensor is dropped, so the live-bytes counter sees only what stays on the GPU;
  bringing it back allocates a new tensor of the same shape.
- ``checkpointing: "selective"``: attention recomputation (Korthikanti et al. 2022, arXiv:2205.05198, s5, as
  Megatron-LM's ``--recompute-granularity selective``): only the attention core (from q, k, v to the attention
  output) runs under non-reentrant ``torch.utils.checkpoint``; the rest of the layer saves as usual.
"""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.nn.functional import cross_entropy, pad
from torch.utils.checkpoint import checkpoint

from calibration.counter import LiveBytes

#: torchtune OffloadActivations(min_offload_size=1024): smaller tensors stay on the GPU
MIN_OFFLOAD_BYTES = 1024


# -- selective checkpointing ---------------------------------------------------------------------------------
def _checkpointed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The attention function ``fn(module, q, k, v, mask, **kw)`` with its core recomputed in backward."""

    def core(module: Any, query: Any, key: Any, value: Any, mask: Any, **kw: Any) -> Any:
        return checkpoint(lambda q, k, v: fn(module, q, k, v, mask, **kw), query, key, value, use_reentrant=False)

    return core


@contextlib.contextmanager
def selective_attention(attention: str) -> Iterator[None]:
    """Within the block, the models' attention core (SDPA or eager) is checkpointed on its own."""
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
    from transformers.models.gemma2 import modeling_gemma2
    from transformers.models.llama import modeling_llama
    from transformers.models.qwen2 import modeling_qwen2

    if attention == "sdpa":
        original = ALL_ATTENTION_FUNCTIONS["sdpa"]
        ALL_ATTENTION_FUNCTIONS["sdpa"] = _checkpointed(original)
        try:
            yield
        finally:
            ALL_ATTENTION_FUNCTIONS["sdpa"] = original
        return
    modules = (modeling_llama, modeling_qwen2, modeling_gemma2)
    saved = [m.eager_attention_forward for m in modules]
    for m, f in zip(modules, saved, strict=True):
        m.eager_attention_forward = _checkpointed(f)
    try:
        yield
    finally:
        for m, f in zip(modules, saved, strict=True):
            m.eager_attention_forward = f


# -- activation offloading -----------------------------------------------------------------------------------
class Offload(torch.autograd.graph.saved_tensors_hooks):
    """torchtune's OffloadActivations rules, single stream; ``host`` counts what moved (see the module docstring)."""

    def __init__(self, model: torch.nn.Module) -> None:
        self.params = {p.untyped_storage()._cdata for p in model.parameters()}
        self.host = 0  # bytes on the host now
        self.host_peak = 0

        def pack(t: torch.Tensor) -> Any:
            nbytes = t.numel() * t.element_size()
            if nbytes < MIN_OFFLOAD_BYTES or t.untyped_storage()._cdata in self.params:
                return ("kept", t)
            self.host += nbytes
            self.host_peak = max(self.host_peak, self.host)
            return ("moved", tuple(t.shape), t.dtype, t.device, nbytes)

        def unpack(packed: Any) -> torch.Tensor:
            if packed[0] == "kept":
                return packed[1]  # type: ignore[no-any-return]
            _, shape, dtype, device, nbytes = packed
            self.host -= nbytes
            return torch.empty(shape, dtype=dtype, device=device)  # .to(device) of the host copy

        super().__init__(pack, unpack)


class _Identity(torch.autograd.graph.saved_tensors_hooks):
    """torchtune's NoOpManager: the output layer's saved tensors stay where they are."""

    def __init__(self) -> None:
        super().__init__(lambda t: t, lambda t: t)


def _keep_head_on_gpu(model: torch.nn.Module) -> list[Any]:
    head = model.get_output_embeddings()
    noop = _Identity()
    return [head.register_forward_pre_hook(lambda *_: noop.__enter__()),
            head.register_forward_hook(lambda *_: noop.__exit__(None, None, None), always_call=True)]


# -- the loss ------------------------------------------------------------------------------------------------
def _decoder_and_head(model: torch.nn.Module) -> tuple[torch.nn.Module, torch.nn.Module]:
    causal_lm = model.get_base_model() if hasattr(model, "get_base_model") else model
    return causal_lm.model, causal_lm.get_output_embeddings()


def trl_chunk_size(case: dict[str, Any]) -> int:
    """Tokens per chunk of TRL's chunked_nll: TRL's own constant, or ``ceil(b s / N)`` for ``loss_chunks: N``."""
    from trl.trainer.sft_trainer import _CHUNKED_LM_HEAD_CHUNK_SIZE

    n = case.get("loss_chunks")
    return _CHUNKED_LM_HEAD_CHUNK_SIZE if n is None else -(-case["batch"] * case["seq_len"] // n)


def patch_trl_chunked(model: torch.nn.Module, case: dict[str, Any]) -> None:
    """What SFTTrainer does for ``loss_type="chunked_nll"``: TRL's ``_patch_chunked_ce_lm_head`` on the causal LM
    (the base model's under PEFT)."""
    from trl.trainer.sft_trainer import _patch_chunked_ce_lm_head

    target = model.get_base_model() if hasattr(model, "get_base_model") else model
    _patch_chunked_ce_lm_head(target, chunk_size=trl_chunk_size(case))


@contextlib.contextmanager
def static_chunk_count(case: dict[str, Any]) -> Iterator[None]:
    """Within the block, TRL's loop ``range(0, n_padded, chunk_size)`` gets ``n_padded`` as a number: the valid
    labels (``b (s - 1)``, none is -100 here) rounded up to whole chunks, as TRL computes it."""
    import trl.trainer.sft_trainer as sft

    size = trl_chunk_size(case)
    n_padded = -(-case["batch"] * (case["seq_len"] - 1) // size) * size

    def count(a: Any) -> Any:
        if not isinstance(a, torch.Tensor):
            return a
        if not isinstance(a, FakeTensor) and int(a) != n_padded:  # a real run: TRL's own count must agree
            raise AssertionError(f"TRL counts {int(a)} tokens in whole chunks, the harness {n_padded}")
        return n_padded

    def static_range(*args: Any) -> range:
        return builtins.range(*(count(a) for a in args))

    sft.range = static_range  # type: ignore[attr-defined]  # module globals come before builtins
    try:
        yield
    finally:
        del sft.range  # type: ignore[attr-defined]


def trl_loss(model: torch.nn.Module, input_ids: torch.Tensor, case: dict[str, Any]) -> torch.Tensor:
    """SFTTrainer's forward with TRL's chunked_nll (the forward patched by :func:`patch_trl_chunked`)."""
    with static_chunk_count(case):
        out = model(input_ids=input_ids, labels=input_ids)
    return out.loss  # type: ignore[no-any-return]


def chunked_loss(model: torch.nn.Module, input_ids: torch.Tensor, chunks: int, offload: Any) -> torch.Tensor:
    """CEWithChunkedOutputLoss over the model's hidden states (module docstring): labels are the inputs shifted
    by one, as in transformers' ForCausalLMLoss (the last position predicts nothing). ``offload`` (a context)
    covers the model, not the loss, as in torchtune's recipes."""
    decoder, head = _decoder_and_head(model)
    with offload:
        hidden = decoder(input_ids=input_ids).last_hidden_state
        logits = [head(h) for h in hidden.tensor_split(chunks, dim=1)]
    del hidden
    labels = pad(input_ids, (0, 1), value=-100)[..., 1:]
    total = 0.0
    for piece, target in zip(logits, labels.tensor_split(chunks, dim=1), strict=True):
        total = total + cross_entropy(piece.reshape(-1, piece.size(-1)).float(), target.reshape(-1),
                                        ignore_index=-100, reduction="sum")
    del logits
    return total / (labels != -100).sum()  # type: ignore[no-any-return]


def standard_loss(model: torch.nn.Module, input_ids: torch.Tensor, offload: Any) -> torch.Tensor:
    """The model's forward and transformers' ForCausalLMLoss, then the outputs upcast as accelerate does (what
    step.py runs, with the loss taken outside ``offload``)."""
    from calibration.step import _fp32_outputs

    with offload:
        out = model(input_ids=input_ids)
    loss = model.loss_function(logits=out.logits, labels=input_ids, vocab_size=out.logits.size(-1))
    out = _fp32_outputs(out)
    del out
    return loss  # type: ignore[no-any-return]


# -- the step ------------------------------------------------------------------------------------------------
def is_long_context(case: dict[str, Any]) -> bool:
    return bool(case.get("loss", "standard") != "standard" or case.get("activation_offload")
                or case.get("checkpointing") == "selective")


def train_step(model: torch.nn.Module, opt: torch.optim.Optimizer, input_ids: torch.Tensor, *,
               case: dict[str, Any], counter: LiveBytes, n: int, offload: Offload | None) -> None:
    """step.train_step with the case's loss, offloading and selective checkpointing."""
    from calibration.step import _autocast

    counter.set_phase(f"fwd{n}")
    around = offload or contextlib.nullcontext()
    selective = selective_attention(case["attention"]) if case["checkpointing"] == "selective" else None
    loss_kind = case.get("loss", "standard")
    trl = loss_kind == "chunked"  # SFTTrainer: the whole training_step inside the offload context
    with _autocast(case["precision"]), selective or contextlib.nullcontext():
        if trl:
            with around:
                loss = trl_loss(model, input_ids, case)
        elif loss_kind == "chunked-output":
            loss = chunked_loss(model, input_ids, case["loss_chunks"], around)
        else:
            loss = standard_loss(model, input_ids, around)
    counter.set_phase(f"bwd{n}")
    with around if trl else contextlib.nullcontext():
        loss.backward()
    del loss
    counter.set_phase(f"opt{n}")
    trainable = [p for p in model.parameters() if p.requires_grad]
    torch.nn.utils.clip_grad_norm_(trainable, 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)


def prepare(model: torch.nn.Module, case: dict[str, Any]) -> Offload | None:
    """TRL's patched forward for its chunked loss; the offload context for a case that offloads (and the output
    layer kept on the GPU), else None."""
    if case.get("loss") == "chunked":
        patch_trl_chunked(model, case)
    if not case.get("activation_offload"):
        return None
    _keep_head_on_gpu(model)
    return Offload(model)
