"""torchtitan 0.3.0's Llama 3 train step under FSDP2 on 8 fake ranks, counted on rank 0 by StackBytes.

`torch.distributed._tools.fsdp2_mem_tracker.FSDPMemTracker` was tried first: it refuses a module called more than
once per step (the chunked loss calls `lm_head` 8 times) and, on fake DTensors, put 21.6 GB under "opt" for a
one-block model whose AdamW states hold 1.27 GB; the live-storage counter (shards counted by their local tensor)
is used instead.

What runs is torchtitan's own code: the model (`torchtitan.models.llama3.llama3_configs["8B"]`, flex attention
(0.3.0 refuses SDPA for language models), its fused wqkv; the first `layers` of its 32 blocks, the rules being per
block), its activation checkpointing
(`torchtitan/distributed/activation_checkpoint.py` `FullAC` / `SelectiveAC`, applied as `parallelize_llama` does,
before FSDP), its FSDP2 wrapping (`torchtitan/distributed/fsdp.py` `apply_fsdp_to_decoder`, bf16 parameters, fp32
reduction: `TrainingConfig` defaults), its optimizer container (`components/optimizer/optimizer.py`,
`default_adamw`: AdamW lr 3e-4, betas (0.9, 0.95), weight decay 0.1, implementation "fused"), its loss
(`components/loss.py` `CrossEntropyLoss`, or `ChunkedLossWrapper` with 8 chunks as `llama3_8b()` configures) and
its step order (`trainer.py` `Trainer.train_step`: `zero_grad`, forward, loss / global valid tokens, backward,
`dist_utils.clip_grad_norm_(foreach=True)`, `optimizers.step()`), twice. Building the whole `Trainer` needs a CUDA
device, a tokenizer and a dataset; the step's calls are made here one by one as it makes them.

For the fake CPU run:
- `torchtitan.distributed.minimal_async_ep.kernels` (Triton kernels of the MoE all-to-all, imported at module load
  by the MoE code) is replaced by a stub: a dense Llama never calls it, and Triton is not installed;
- SelectiveAC's save list names the CUDA SDPA kernels (`aten._scaled_dot_product_flash_attention` via
  `get_default_op_list().compute_intensive_ops`); on CPU SDPA runs `_scaled_dot_product_flash_attention_for_cpu`,
  which is added to the list (through `SelectiveAC.get_save_ops`, the override point torchtitan provides), so the
  attention output is saved as it is on CUDA.
- FlexAttention (compiled, no CPU backward) runs as the CPU flash kernel, which keeps the same tensors for the
  causal mask used (`_flex_as_flash`);
- `nn.RMSNorm` runs as CUDA runs it (`_rms_norm_as_cuda`): on a CUDA tensor `aten::rms_norm` calls
  `aten::_fused_rms_norm`, whose autograd saves the input, the weight and the fp32 rstd (one per row); the CPU
  build has no such kernel and decomposes it (an fp32 copy of the input and the fp32 normalised tensor saved:
  6 x hidden bytes a token more per norm);
- the flex attention BlockMask (post_dataloading_process -> `Decoder.get_attention_masks`, a causal document mask
  from the positions) is built from real position values, outside the fake mode (its tensors are a few KB);
- weight init draws plain normals instead of truncated ones (`_init_states`: values only);
- the process group is torch's fake one (`FakeStore`, backend "fake"), the mesh built before FakeTensorMode.
"""

from __future__ import annotations

import sys
import time
import types
import warnings
from typing import Any

import torch

from calibration.stacks.cases import Case
from calibration.stacks.counting import StackBytes
from calibration.stacks.mark import mark_kinds, mark_optimizer

KERNELS = ("copy_full_counts_to_peers_kernel", "copy_rows_to_peers_kernel", "expand_topk_grad_kernel",
           "fill_combine_metadata_kernel", "fill_dispatch_metadata_kernel", "invert_flat_indices_kernel",
           "reduce_topk_slots_kernel", "topk_scores_grad_kernel")


def _stub_triton_kernels() -> None:
    name = "torchtitan.distributed.minimal_async_ep.kernels"
    if name in sys.modules:
        return
    stub = types.ModuleType(name)

    def unavailable(*_: Any, **__: Any) -> None:
        raise RuntimeError("MoE all-to-all Triton kernels are not available in this trace")

    for kernel in KERNELS:
        setattr(stub, kernel, unavailable)
    sys.modules[name] = stub


def _flex_as_flash() -> None:
    """FlexAttention (torchtitan compiles it; its backward has no CPU kernel) run as the CPU flash kernel.

    For the causal one-document mask built here both keep what torch's `FlexAttentionAutogradOp.forward` saves
    (torch/_higher_order_ops/flex_attention.py@2.13 lines 797-810: query, key, value, out, logsumexp, plus a max
    score per row and the block mask's few-KB tensors, which the flash kernel lacks: 4 x heads x tokens bytes a
    layer): the output in the activation dtype and an fp32 log-sum-exp per head and row.
    """
    from torch.nn.attention.flex_attention import AuxOutput
    from torchtitan.models.common.attention import FlexAttention

    def flash(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, score_mod: Any, block_mask: Any, scale: Any,
              enable_gqa: bool, return_aux: Any, kernel_options: Any) -> tuple[torch.Tensor, Any]:
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale,
                                                               enable_gqa=enable_gqa)
        return out, AuxOutput()

    FlexAttention._compiled_flex_attn = staticmethod(flash)


def _rms_norm_as_cuda() -> None:
    """`nn.RMSNorm` (torchtitan's `RMSNorm` is one) as a CUDA tensor runs it, on the fake CPU tensors.

    torch 2.13's `aten::rms_norm` (aten/src/ATen/native/layer_norm.cpp `rms_norm_symint`) dispatches a CUDA input
    whose weight has its dtype to `aten::_fused_rms_norm` (seen here: a fake CUDA tensor reaches it, then stops for
    want of a CUDA build); that op returns (output, rstd) and its backward is
    `aten::_fused_rms_norm_backward(grad_out, input, normalized_shape, rstd, weight, output_mask)`, so autograd saves
    the input, the rstd (fp32, one per row) and the weight. On the CPU build `_fused_rms_norm` is
    CompositeImplicitAutograd and decomposes (torch/_decomp/decompositions.py `_fused_rms_norm`): the fp32 upcast
    of the input and the fp32 normalised tensor are then saved instead. A custom op with that autograd stands in
    for the CUDA kernel here; its backward makes the input's and the weight's gradients (the kernel's block-partial
    sums for the weight, a few KB, are not counted). A weight of another dtype than the input takes the composite
    path on CUDA too (`rms_norm_symint`: "Mismatch dtype ... Cannot dispatch to fused implementation"), as here.
    """
    if getattr(torch.nn.RMSNorm.forward, "_calibration_cuda", False):
        return

    @torch.library.custom_op("calibration::fused_rms_norm", mutates_args=())
    def fused_rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
        rstd = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)
        return (x.float() * rstd * weight.float()).to(x.dtype), rstd

    @fused_rms_norm.register_fake
    def _(x: torch.Tensor, weight: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.empty_like(x), x.new_empty((*x.shape[:-1], 1), dtype=torch.float32)

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: tuple[torch.Tensor, torch.Tensor]) -> None:
        ctx.save_for_backward(inputs[0], inputs[1], output[1])

    def backward(ctx: Any, grad: torch.Tensor, _grad_rstd: torch.Tensor) -> tuple[Any, ...]:
        x, weight, _rstd = ctx.saved_tensors
        return torch.empty_like(x), torch.empty_like(weight), None

    fused_rms_norm.register_autograd(backward, setup_context=setup_context)
    composite = torch.nn.RMSNorm.forward

    def forward(self: torch.nn.RMSNorm, x: torch.Tensor) -> torch.Tensor:
        if self.weight is None or self.weight.dtype != x.dtype:
            return composite(self, x)
        eps = self.eps if self.eps is not None else torch.finfo(x.dtype).eps
        return fused_rms_norm(x, self.weight, eps)[0]

    forward._calibration_cuda = True  # type: ignore[attr-defined]
    torch.nn.RMSNorm.forward = forward  # type: ignore[method-assign]


def _init_fake_world(world: int) -> Any:
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.testing._internal.distributed.fake_pg import FakeStore

    if not dist.is_initialized():
        dist.init_process_group("fake", rank=0, world_size=world, store=FakeStore())
    return init_device_mesh("cpu", (world,), mesh_dim_names=("fsdp",))


def _ac(case: Case) -> Any:
    from torchtitan.distributed.activation_checkpoint import FullAC, SelectiveAC

    class SelectiveACOnCpu(SelectiveAC):
        def get_save_ops(self) -> set:
            return super().get_save_ops() | {torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default}

    mode = case["checkpointing"]
    if mode == "none":
        return None
    if mode == "full":
        return FullAC(FullAC.Config())
    return SelectiveACOnCpu(SelectiveAC.Config())


def build(case: Case, mesh: Any) -> tuple[torch.nn.Module, Any]:
    """The model on meta, checkpointed and wrapped as parallelize_llama does (inside FakeTensorMode)."""
    from torchtitan.distributed.fsdp import apply_fsdp_to_decoder
    from torchtitan.models.llama3 import llama3_configs

    config = llama3_configs["8B"](attn_backend=case.get("attn_backend", "flex"))
    config.layers = config.layers[: case["layers"]]
    if case.get("float8"):
        config = _float8(config)
    with torch.device("meta"):
        model = config.build()
    ac = _ac(case)
    if ac is not None:
        ac.apply(model)
    apply_fsdp_to_decoder(model, mesh, param_dtype=torch.bfloat16, reduce_dtype=torch.float32, pp_enabled=False,
                          cpu_offload=False, reshard_after_forward_policy=case.get("reshard", "default"))
    return model, config


def _float8(config: Any) -> Any:
    """torchtitan's float8 converter (components/quantization/float8.py ``Float8LinearConverter``@0.3.0, its
    default "rowwise" recipe), as ``Trainer`` applies it to the model config; its CUDA capability check (SM89) is
    passed, and torchao's ``torch._scaled_mm`` runs its meta kernel on the fake tensors."""
    from torchtitan.components.quantization import float8 as titan_float8

    capability = titan_float8.has_cuda_capability
    titan_float8.has_cuda_capability = lambda *_: True
    try:
        converter = titan_float8.Float8LinearConverter(titan_float8.Float8LinearConverter.Config())
    finally:
        titan_float8.has_cuda_capability = capability
    return converter.convert(config)


def _loss(case: Case, model: torch.nn.Module, vocab: int) -> Any:
    from torchtitan.components.loss import ChunkedLossWrapper, CrossEntropyLoss

    if case["loss"] == "chunked":
        loss = ChunkedLossWrapper(ChunkedLossWrapper.Config(num_chunks=8, loss_fn=CrossEntropyLoss.Config(
            global_vocab_size=vocab)))
        loss.set_lm_head(model.lm_head)
        model._skip_lm_head = True  # what Trainer.__init__ sets for ChunkedLossWrapper (trainer.py lines 510-535)
        return loss
    return CrossEntropyLoss(CrossEntropyLoss.Config(global_vocab_size=vocab))


def _optimizers(model: torch.nn.Module) -> Any:
    from torchtitan.components.optimizer.optimizer import OptimizersContainer, default_adamw

    config = default_adamw(lr=3e-4)  # llama3_8b(); implementation "fused" is the Config default
    return OptimizersContainer(config, model_parts=[model])


def _init_states(model: torch.nn.Module) -> None:
    """torchtitan's `init_states` (weights and the RoPE buffers), with truncated-normal draws made plain normal:
    torch's `_no_grad_trunc_normal_` reads the values it drew (`mask.any()`), which fake tensors do not have."""
    trunc = torch.nn.init._no_grad_trunc_normal_

    def normal(tensor: torch.Tensor, mean: float, std: float, *_: Any, **__: Any) -> torch.Tensor:
        with torch.no_grad():
            return tensor.normal_(mean, std)

    torch.nn.init._no_grad_trunc_normal_ = normal
    try:
        with torch.no_grad():
            model.init_states(buffer_device=torch.device("cpu"))
    finally:
        torch.nn.init._no_grad_trunc_normal_ = trunc


def _follow_fsdp_storage(counter: StackBytes) -> None:
    """FSDP2 frees an unsharded parameter with `storage.resize_(0)` and brings it back with `resize_(size)`
    (torch/distributed/fsdp/_fully_shard/_fsdp_param.py@2.13 `free_storage` / `alloc_storage`), which no dispatch
    mode sees: tell the counter after each."""
    from torch.distributed.fsdp._fully_shard import _fsdp_param, _fsdp_param_group

    alloc, free = _fsdp_param.alloc_storage, _fsdp_param.free_storage
    alloc = getattr(alloc, "_calibration_original", alloc)
    free = getattr(free, "_calibration_original", free)

    def counted_alloc(tensor: torch.Tensor) -> None:
        alloc(tensor)
        counter.resized(tensor, "alloc_storage")

    def counted_free(tensor: torch.Tensor) -> None:
        free(tensor)
        counter.resized(tensor, "free_storage")

    counted_alloc._calibration_original = alloc  # type: ignore[attr-defined]
    counted_free._calibration_original = free  # type: ignore[attr-defined]
    _fsdp_param.alloc_storage = counted_alloc
    _fsdp_param.free_storage = counted_free
    _fsdp_param_group.alloc_storage = counted_alloc


def run_case(case: Case) -> dict[str, Any]:
    """Trace two train steps on rank 0 of the fake world; return the record."""
    from torchtitan.distributed import utils as dist_utils

    warnings.filterwarnings("ignore")
    _stub_triton_kernels()
    _flex_as_flash()
    _rms_norm_as_cuda()
    start = time.perf_counter()
    mesh = _init_fake_world(case["world"])
    counter = StackBytes()
    _follow_fsdp_storage(counter)
    fake = torch._subclasses.fake_tensor.FakeTensorMode(allow_non_fake_inputs=True)
    with fake:
        model, config = build(case, mesh)
        model.to_empty(device="cpu")
        _init_states(model)
        model.train()
        optimizers = _optimizers(model)
        loss_fn = _loss(case, model, config.vocab_size)
        tokens = torch.randint(0, config.vocab_size, (case["batch"], case["seq_len"]))
        labels = torch.randint(0, config.vocab_size, (case["batch"], case["seq_len"]))
        positions = torch.arange(case["seq_len"]).expand(case["batch"], case["seq_len"])
        with torch._subclasses.fake_tensor.unset_fake_temporarily():  # the block mask is built from values
            real_positions = torch.arange(case["seq_len"]).expand(case["batch"], case["seq_len"])
            masks = model.get_attention_masks(positions=real_positions)
        with counter:
            for t in (tokens, labels, positions):
                counter.track(t)
            mark_kinds(model, counter)
            for opt in optimizers.optimizers:
                mark_optimizer(opt, counter)
            for step in (1, 2):
                counter.set_phase(f"fwd{step}")
                optimizers.zero_grad(set_to_none=True)
                valid = torch.tensor(case["batch"] * case["seq_len"])
                pred = model(tokens, positions=positions, attention_masks=masks)
                loss, _ = loss_fn(pred, labels, valid)
                del pred
                counter.set_phase(f"bwd{step}")
                loss.backward()
                del loss
                counter.set_phase(f"opt{step}")
                dist_utils.clip_grad_norm_(list(model.parameters()), 1.0, foreach=True)
                optimizers.step()
    return _record(case, model, counter, time.perf_counter() - start)


def _record(case: Case, model: torch.nn.Module, counter: StackBytes, seconds: float) -> dict[str, Any]:
    import torchtitan

    from calibration.models import CATALOG

    hf = {**CATALOG[case["model"]], "num_hidden_layers": case["layers"]}  # the same network, for the engine
    return {
        **case,
        "hf_config": hf,
        "peak_bytes": counter.peak,
        "peak_phase": counter.peak_phase,
        "phase_peaks": counter.phase_peaks,
        "at_peak": counter.at_peak(),
        "weights_at_peak": counter.weights_at_peak(),
        "at_peak_top_activations": counter.top_at_peak(12),
        "total_params": sum(p.numel() for p in model.parameters()),
        "torch": torch.__version__.split("+")[0],
        "torchtitan": getattr(torchtitan, "__version__", "0.3.0"),
        "trace_seconds": round(seconds, 2),
    }
