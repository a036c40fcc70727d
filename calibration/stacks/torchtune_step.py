"""torchtune 0.6.1's `lora_finetune_single_device` step (QLoRA with torchao NF4) on fake CPU tensors.

What runs is torchtune's own code, as recipes/lora_finetune_single_device.py@0.6.1 calls it:
- `_setup_model`: the model instantiated under `training.set_default_dtype(bf16)` and the device (the recipe's
  `dtype: bf16`: every parameter, the LoRA adapters included, is bf16; the frozen base weights are torchao
  `NF4Tensor`s made by `LoRALinear(quantize_base=True)` -> `to_nf4`), `set_trainable_params(model,
  get_adapter_params(model))`, `training.set_activation_checkpointing(model, auto_wrap_policy=
  {TransformerSelfAttentionLayer})` when `enable_activation_checkpointing` (the config's default: True);
- `_setup_loss`: `CEWithChunkedOutputLoss` and `model.set_num_output_chunks(loss.num_output_chunks)` (8);
- `_loss_step` and the train loop: `logits = model(tokens)`, the labels shifted with the ignore-index cache,
  `loss = loss_fn(logits, labels) * current_num_tokens`, `del logits`, `loss.backward()`, then
  `optimizer.step()` and `zero_grad(set_to_none=True)` (`clip_grad_norm: null`), with the config's
  `torch.optim.AdamW(fused=True, weight_decay=0.01, lr=3e-4)`; one micro-batch per step (the config's
  `gradient_accumulation_steps: 8` adds nothing but the count: the LoRA gradients are kept across micro-batches).
The model is llama3_1's `lora_llama3_1` component builder with Llama 3.1 8B's shape and `layers` blocks (the rules
are per block); `qlora_llama3_1_8b` (recipes/configs/llama3_1/8B_qlora_single_device.yaml) is that builder with
`quantize_base=True` and 32 blocks. It builds one `Llama3ScaledRoPE` for all layers (its fp32 cos/sin cache,
131,072 x 128 x 4 bytes); llama3's `lora_llama3` (Llama 3.0, traced here before) builds one per layer
(`lora_llama3_self_attention`, 8,192 positions: 4 MB each).

torchtune 0.6.1 imports `torchao.dtypes.nf4tensor`, which torchao 0.18 moved: the trace runs with torchao 0.11.0
(and torchtune's import-time dependencies) in a separate site folder put first on PYTHONPATH
(stacks/requirements-torchtune.txt). `FrozenNF4Linear` registers its NF4 weight by assignment instead of
`swap_tensors` (`_frozen_nf4_without_swap`, same parameter), and the RoPE frequencies are scaled without reading
their values (`_rope_scaling_without_values`). Nothing else is changed.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import torch

from calibration.stacks.cases import Case
from calibration.stacks.counting import StackBytes
from calibration.stacks.mark import mark_optimizer

#: Llama 3.1 8B (torchtune/models/llama3_1/_model_builders.py `lora_llama3_1_8b`@0.6.1)
LLAMA3_8B = {"vocab_size": 128_256, "num_heads": 32, "num_kv_heads": 8, "embed_dim": 4096, "max_seq_len": 131_072,
             "intermediate_dim": 14336, "attn_dropout": 0.0, "norm_eps": 1e-5, "rope_base": 500_000}


def _frozen_nf4_without_swap() -> None:
    """`FrozenNF4Linear.__init__` (modules/low_precision/nf4_linear.py@0.6.1) swaps its weight for the NF4 one with
    `torch.utils.swap_tensors`, which refuses a fake tensor (fake tensors hold weak references). The same
    parameter is registered by assignment instead: the module ends up holding the same NF4 weight."""
    from torchao.dtypes.nf4tensor import to_nf4
    from torchtune.modules.low_precision import nf4_linear

    def init(self: Any, in_dim: int, out_dim: int, bias: bool = False, device: Any = None,  # noqa: PLR0917
             dtype: Any = None, **quantization_kwargs: Any) -> None:
        torch.nn.Linear.__init__(self, in_dim, out_dim, bias=bias, device=device, dtype=dtype)
        self.weight.requires_grad_(False)
        if self.bias is not None:
            self.bias.requires_grad_(False)
        self.weight = torch.nn.Parameter(to_nf4(self.weight, **quantization_kwargs), requires_grad=False)

    nf4_linear.FrozenNF4Linear.__init__ = init


def _rope_scaling_without_values() -> None:
    """`Llama3ScaledRoPE.apply_scaling` (models/llama3_1/_position_embeddings.py@0.6.1) reads each frequency's value
    to choose its scaling, which fake tensors do not have; the same-shaped frequencies divided by the scale factor
    stand in (values only: the cache keeps its shape and dtype)."""
    from torchtune.models.llama3_1._position_embeddings import Llama3ScaledRoPE

    def apply_scaling(self: Any, freqs: torch.Tensor, scale_factor: int, *_: Any) -> torch.Tensor:
        return freqs / scale_factor

    Llama3ScaledRoPE.apply_scaling = apply_scaling


def build(case: Case) -> torch.nn.Module:
    from torchtune import modules, training
    from torchtune.models.llama3_1._component_builders import lora_llama3_1
    from torchtune.modules.peft import get_adapter_params, set_trainable_params

    with training.set_default_dtype(torch.bfloat16), torch.device("cpu"):
        model = lora_llama3_1(lora_attn_modules=case["lora_targets"], apply_lora_to_mlp=case["lora_mlp"],
                            apply_lora_to_output=False, num_layers=case["layers"], lora_rank=case["lora_rank"],
                            lora_alpha=case["lora_alpha"], lora_dropout=0.0, quantize_base=case["method"] == "qlora",
                            **LLAMA3_8B)
    set_trainable_params(model, get_adapter_params(model))
    if case["checkpointing"] == "full":
        training.set_activation_checkpointing(model, auto_wrap_policy={modules.TransformerSelfAttentionLayer})
    return model


def _mark(model: torch.nn.Module, counter: StackBytes) -> None:
    for p in model.parameters():
        inner = [getattr(p, n) for n in ("quantized_data", "quantized_scalers", "quantization_factor", "scaler_mean",
                                         "nf4") if isinstance(getattr(p, n, None), torch.Tensor)]
        if inner:  # an NF4Tensor: its packed data and scalers
            for t in inner:
                counter.mark(t, "weights_4bit" if t.dtype == torch.uint8 and t.numel() > 1024 else "quant_constants")
        else:
            counter.mark(p, "trainable" if p.requires_grad else "frozen")
            if p.requires_grad:
                p.register_post_accumulate_grad_hook(lambda q: counter.mark(q.grad, "gradients"))
    for b in model.buffers():
        counter.mark(b, "frozen")


def run_case(case: Case) -> dict[str, Any]:
    from torchtune.modules.loss import CEWithChunkedOutputLoss

    warnings.filterwarnings("ignore")
    _frozen_nf4_without_swap()
    _rope_scaling_without_values()
    start = time.perf_counter()
    counter = StackBytes()
    fake = torch._subclasses.fake_tensor.FakeTensorMode(allow_non_fake_inputs=True)
    with fake:
        model = build(case)
        loss_fn = CEWithChunkedOutputLoss()
        model.set_num_output_chunks(loss_fn.num_output_chunks)
        opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-4, weight_decay=0.01,
                                fused=True)
        b, s = case["batch"], case["seq_len"]
        tokens = torch.randint(0, LLAMA3_8B["vocab_size"], (b, s))
        ignore_labels_cache = torch.full((b, 1), loss_fn.ignore_index)
        with counter:
            counter.track(tokens)
            counter.track(ignore_labels_cache)
            _mark(model, counter)
            mark_optimizer(opt, counter)
            for step in (1, 2):
                counter.set_phase(f"fwd{step}")
                labels = tokens.clone()
                logits = model(tokens)
                labels = torch.hstack((labels[..., 1:], ignore_labels_cache[:b]))
                current_num_tokens = (labels != loss_fn.ignore_index).sum()
                loss = loss_fn(logits, labels) * current_num_tokens
                del logits
                counter.set_phase(f"bwd{step}")
                loss.backward()
                del loss
                counter.set_phase(f"opt{step}")
                opt.step()
                opt.zero_grad(set_to_none=True)
    return _record(case, model, counter, time.perf_counter() - start)


def _record(case: Case, model: torch.nn.Module, counter: StackBytes, seconds: float) -> dict[str, Any]:
    import torchao
    import torchtune

    from calibration.models import CATALOG

    return {
        **case,
        "hf_config": {**CATALOG[case["model"]], "num_hidden_layers": case["layers"]},
        "peak_bytes": counter.peak,
        "peak_phase": counter.peak_phase,
        "phase_peaks": counter.phase_peaks,
        "at_peak": counter.at_peak(),
        "weights_at_peak": counter.weights_at_peak(),
        "at_peak_top_activations": counter.top_at_peak(12),
        "trainable_params": sum(p.numel() for p in model.parameters() if p.requires_grad),
        "total_params": sum(p.numel() for p in model.parameters()),  # an NF4Tensor counts its weight's elements
        "torch": torch.__version__.split("+")[0],
        "torchtune": torchtune.__version__,
        "torchao": torchao.__version__,
        "trace_seconds": round(seconds, 2),
    }
