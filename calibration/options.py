"""Issue 27's options, traced: the optimizers and training methods the engine refused before (cases ``op-...``).

A case whose ``optimizer`` is not ``adamw`` gets its optimizer here, built by the library's own code:

- ``adamw-4bit``, ``adamw-8bit-torchao``, ``rmsprop``, ``galore-adamw``, ``apollo-adamw``: transformers 5.24's
  ``Trainer.get_optimizer_cls_and_kwargs`` with ``optim`` = ``adamw_torch_4bit``, ``adamw_torch_8bit``,
  ``rmsprop``, ``galore_adamw``, ``apollo_adamw`` (``optim_target_modules=["attn", "mlp"]``; a case's
  ``optim_args`` string is passed on, e.g. ``update_proj_gap=1``), instantiated as ``Trainer.create_optimizer``
  does (the ``params`` it returns as the parameter groups). ``rmsprop-momentum`` adds ``optim_args``
  ``momentum=0.9``. torch picks the foreach RMSprop on CUDA (``_default_to_fused_or_foreach``) but not on the
  CPU: the case asks for ``foreach=True`` as CUDA would.
- ``muon``: ``torch.optim.Muon`` on every 2-D weight of the decoder blocks (``model.layers``) and fused
  ``torch.optim.AdamW`` on everything else (KellerJordan/Muon's README recipe), stepped one after the other.
- ``adam-mini``: ``adam_mini.Adam_mini`` as LLaMA-Factory's ``_create_adam_mini_optimizer`` builds it
  (``named_parameters``, ``dim`` = hidden size, ``n_heads``, ``n_kv_heads``, ``model_sharding=False``).

APOLLO draws its projectors' seeds from tensor values, and its norm-growth limiter takes Python's ``max`` of a
tensor and a number: :func:`_apollo_seeds` computes the seeds on real tensors and makes that ``max`` a
``torch.clamp`` (the same scalar, kept as a tensor).

torchao's low-bit AdamW runs ``single_param_adam`` under ``torch.compile``, which cannot run on fake tensors. Its
states are torchao's own (``_AdamBase._new_buffer`` runs unchanged); the compiled call is replaced by one that
allocates what inductor's generated code allocates for that parameter and frees it (:func:`compiled_buffers`:
read from the output code of torch 2.13.0 on this CPU, ``TORCH_LOGS=output_code``; ``python -m
calibration.options --check`` compiles the real step on real CPU tensors and compares its allocator peak with the
stand-in's bytes). The values are not updated (a fake tensor has none).
"""

from __future__ import annotations

import argparse
import builtins
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from calibration.counter import allocator_peak

OPTIM_NAMES = {"adamw-4bit": "adamw_torch_4bit", "adamw-8bit-torchao": "adamw_torch_8bit", "rmsprop": "rmsprop",
               "rmsprop-momentum": "rmsprop", "galore-adamw": "galore_adamw", "apollo-adamw": "apollo_adamw"}


#: the methods this module builds (every other one is calibration/models.py's)
METHODS = ("lora-8bit", "freeze", "badam", "oft")


def is_option(case: dict[str, Any]) -> bool:
    """A case with one of issue 27's optimizers (or BAdam, which wraps its own)."""
    return case.get("optimizer", "adamw") != "adamw" or case["method"] == "badam"


def builds(case: dict[str, Any]) -> bool:
    """A case whose model this module builds (one of :data:`METHODS`)."""
    return case["method"] in METHODS


# -- the 8-bit base (LLM.int8) -------------------------------------------------------------------------------------
INT8_THRESHOLD = 6.0  # transformers BitsAndBytesConfig.llm_int8_threshold's default


def build_model(case: dict[str, Any]) -> torch.nn.Module:
    """The case's model on ``meta`` (:func:`build_partial` for freeze tuning and BAdam); for ``lora-8bit``, every
    ``nn.Linear`` of the decoder blocks replaced by
    bitsandbytes' ``Linear8bitLt(has_fp16_weights=False, threshold=6.0)`` as transformers'
    ``integrations/bitsandbytes.py`` ``replace_with_bnb_linear`` does (the output layer left alone), then PEFT's
    LoRA, which wraps them in ``peft.tuners.lora.bnb.Linear8bitLt``."""
    import bitsandbytes as bnb

    from calibration import models

    if case["method"] in ("freeze", "badam"):
        return build_partial(case)
    if case["method"] == "oft":
        return build_oft(case)
    model = models.build_model({**case, "method": "full"})
    blocks = model.model.layers
    for parent in list(blocks.modules()):
        for name, child in list(parent.named_children()):
            if type(child) is torch.nn.Linear:
                with torch.device("meta"):
                    new = bnb.nn.Linear8bitLt(child.in_features, child.out_features, child.bias is not None,
                                              has_fp16_weights=False, threshold=INT8_THRESHOLD)
                setattr(parent, name, new.to(torch.bfloat16) if case["precision"] == "bf16" else new)
    model.is_loaded_in_8bit = True  # what transformers' Bnb8BitHfQuantizer sets; PEFT's dispatch_bnb_8bit reads it
    return models.add_lora({**case, "method": "lora"}, model)


def _custom_checkpointing(model: torch.nn.Module) -> None:
    """LLaMA-Factory 0.9.5 ``model/model_utils/checkpointing.py`` ``_gradient_checkpointing_enable`` with
    ``get_custom_gradient_checkpointing_func``, line for line: only a layer with trainable parameters is
    checkpointed (``torch.utils.checkpoint.checkpoint``, ``use_reentrant=True``, its ``use_reentrant_gc`` default),
    its first floating tensor argument made to require a gradient; the others run as they are."""
    from functools import partial

    from torch.utils.checkpoint import checkpoint

    base = partial(checkpoint, use_reentrant=True)

    def custom(func: Any, *args: Any, **kwargs: Any) -> Any:
        # LLaMA-Factory reads func.func.__self__ (transformers 4: a partial of the bound forward); transformers 5.24
        # passes partial(forward, layer, ...): the layer is the partial's first argument
        module = getattr(func.func, "__self__", None) or func.args[0] if isinstance(func, partial) else func.__self__
        if any(p.requires_grad for p in module.parameters()):
            for arg in args:
                if torch.is_tensor(arg) and torch.is_floating_point(arg):
                    arg.requires_grad_(True)
                    break
            return base(func, *args, **kwargs)
        return func(*args, **kwargs)

    model._set_gradient_checkpointing(enable=True, gradient_checkpointing_func=custom)


def build_oft(case: dict[str, Any]) -> torch.nn.Module:
    """PEFT's OFT (``OFTConfig(r=0, oft_block_size=32)``: its defaults, Cayley-Neumann with 5 terms) on the
    case's targets, as calibration/models.py adds LoRA."""
    from peft import OFTConfig, get_peft_model

    from calibration import models

    model = models.build_model({**case, "method": "full"})
    config = OFTConfig(r=0, oft_block_size=case.get("oft_block_size", 32),
                       target_modules=models.lora_targets(case["model"], case["lora_targets"]), task_type="CAUSAL_LM")
    model = get_peft_model(model, config)
    if case["checkpointing"] == "full":
        model.enable_input_require_grads()
    model.train()
    return model


def build_partial(case: dict[str, Any]) -> torch.nn.Module:
    """Freeze tuning as LLaMA-Factory 0.9.5 ``model/adapter.py`` ``_setup_freeze_tuning`` sets it up, line for line
    (``freeze_trainable_layers`` = the case's ``freeze_layers``: the last n, or the first -n; every module; the
    trained parameters upcast to fp32, ``cast_trainable_params_to_fp32``, the others frozen), or BAdam's model
    (every parameter trainable in bf16; ``BlockOptimizer`` freezes all but its block, :func:`make_optimizer`);
    checkpointing as LLaMA-Factory's (:func:`_custom_checkpointing`)."""
    from calibration import models

    model = models.build_model({**case, "method": "full", "checkpointing": "none"})
    n = model.config.num_hidden_layers
    if case["method"] == "freeze":
        k = case["freeze_layers"]
        ids = range(max(0, n - k), n) if k > 0 else range(min(-k, n))
        trainable = [f".{i:d}." for i in ids]
        for name, param in model.named_parameters():
            if any(t in name for t in trainable):
                param.data = param.data.to(torch.float32)
            else:
                param.requires_grad_(False)
    if case["checkpointing"] == "full":
        _custom_checkpointing(model)
    return model


def quantize(model: torch.nn.Module) -> list[torch.Tensor]:
    """After ``materialize``: each ``Linear8bitLt`` gets its ``Int8Params`` as loading quantizes them
    (``Int8Params._quantize``: ``CB``, the int8 weight, is the parameter's data; ``SCB``, one fp32 absmax per output
    row). An ``Int8Params`` cannot wrap a fake tensor: ``CB`` is a real, never written CPU tensor (``torch.empty``
    touches no page), ``SCB`` a fake one. Returns the ``SCB`` tensors (not parameters: the counter is told)."""
    import bitsandbytes as bnb
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    scales = []
    for module in model.modules() if getattr(model, "is_loaded_in_8bit", False) else ():
        if isinstance(module, bnb.nn.Linear8bitLt):
            rows, cols = module.out_features, module.in_features
            with unset_fake_temporarily():
                cb = torch.empty(rows, cols, dtype=torch.int8)
            scb = torch.empty(rows, dtype=torch.float32)
            module.weight = bnb.nn.Int8Params(cb, requires_grad=False, has_fp16_weights=False, CB=cb, SCB=scb)
            scales.append(scb)
    return scales


class CudaInt8(TorchDispatchMode):
    """bitsandbytes' int8 kernels as the CUDA backend allocates them (backends/cuda/ops.py, backends/default/ops.py,
    bitsandbytes 0.50.2), on fake tensors, for a batch without outlier features: the fake kernels give the outlier
    columns a data-dependent size, which a trace without a shape environment cannot hold.

    * ``int8_vectorwise_quant(A, threshold)``: the int8 rows and fp32 row scales; with a threshold, ``A.abs()`` and
      its ``>= threshold`` mask, and no outlier column;
    * ``int8_mixed_scaled_mm``: the default kernel without outliers: an empty ``subA`` and ``int8_scaled_mm``;
    * ``int8_scaled_mm``: the default kernel: ``int8_linear_matmul``'s int32 result, then ``int8_mm_dequant``'s fp16
      output cast to the asked dtype (``out.to(dtype)``).

    While it is entered, ``torch.is_autocast_enabled()`` with no device answers for the CPU: that call asks about
    CUDA's autocast (the region a Trainer on a GPU runs in), and PEFT's quantized wrappers read it
    (peft/tuners/lora/bnb.py ``Linear8bitLt.forward``: ``requires_conversion = not torch.is_autocast_enabled()``); on
    this CPU trace the region is the CPU's, so unpatched they would cast every input to fp32 as no GPU run does.

    Enter it inside the counter so that what it makes is counted."""

    def __enter__(self) -> Any:
        self._asked = torch.is_autocast_enabled
        torch.is_autocast_enabled = lambda *device: self._asked(*(device or ("cpu",)))  # type: ignore[assignment]
        return super().__enter__()

    def __exit__(self, *exc: Any) -> Any:
        torch.is_autocast_enabled = self._asked  # type: ignore[assignment]
        return super().__exit__(*exc)

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        ops = torch.ops.bitsandbytes
        if func is ops.int8_vectorwise_quant.default:
            a, threshold = args[0], (args[1] if len(args) > 1 else kwargs.get("threshold", 0.0))
            rows = torch.empty(a.numel() // a.shape[-1], device=a.device, dtype=torch.float32)
            out = torch.empty(a.shape, device=a.device, dtype=torch.int8)
            if threshold > 0.0:
                mask = a.abs() >= threshold
                del mask
                return out, rows, torch.empty(0, device=a.device, dtype=torch.int64)
            return out, rows, None
        if func is ops.int8_mixed_scaled_mm.default:
            a, ca, cb, sca, scb = args[:5]
            bias = args[6] if len(args) > 6 else kwargs.get("bias")
            sub_a = torch.empty(0, device=a.device, dtype=a.dtype)
            return ops.int8_scaled_mm.default(ca, cb, sca, scb, bias=bias, dtype=a.dtype), sub_a
        if func is ops.int8_scaled_mm.default:
            ca, cb = args[0], args[1]
            dtype = kwargs.get("dtype") or torch.float16
            out_i32 = torch.empty((*ca.shape[:-1], cb.shape[0]), device=ca.device, dtype=torch.int32)
            half = torch.empty(out_i32.shape, device=ca.device, dtype=torch.float16)
            del out_i32
            return half.to(dtype)
        return func(*args, **kwargs)


# -- torchao: the compiled step's buffers -----------------------------------------------------------------------
def compiled_buffers(numel: int, bits: int, block: int) -> list[tuple[int, torch.dtype]]:
    """(values, dtype) of each buffer inductor's code for ``single_param_adam`` allocates for one quantized
    parameter of ``numel`` values, both states together (torch 2.13.0, CPU; see the module docstring): 4-bit: per
    state the unpacked codes (``aten.cat`` of the two nibbles, uint8), the block scales (fp32), the rescaled state
    (fp32) and its int64 codes; 8-bit: per state the block scales and the rescaled state."""
    per_state = [(numel // block, torch.float32), (numel, torch.float32)]
    if bits == 4:
        per_state = [(numel, torch.uint8), *per_state, (numel, torch.int64)]
    return per_state * 2


def _stand_in(p: torch.Tensor, grad: torch.Tensor, step: Any, exp_avg: Any, *rest: Any) -> None:
    """What the compiled ``single_param_adam`` allocates for ``p`` (nothing for an unquantized state)."""
    codes = getattr(exp_avg, "codes", None)
    if codes is None:
        return
    bits = 4 if codes.numel() * 2 == p.numel() else 8
    held = [torch.empty(n, dtype=dt, device=p.device) for n, dt in compiled_buffers(p.numel(), bits,
                                                                                     exp_avg.block_size)]
    del held


def _install_torchao_stand_in() -> None:
    """torchao's ``torch.compile(single_param_adam)`` returns :func:`_stand_in` from now on (idempotent)."""
    from torch._subclasses.fake_tensor import unset_fake_temporarily
    from torchao.optim import adam, subclass_4bit, subclass_8bit

    with unset_fake_temporarily():  # the quantization maps are made from values (``.tolist()``), once: cached
        for module in (subclass_4bit, subclass_8bit):
            module.get_qmap_signed()
            module.get_qmap_unsigned()
    if getattr(adam.torch.compile, "stand_in", False):
        return
    original = adam.torch.compile

    def fake_compile(fn: Callable[..., Any], **kwargs: Any) -> Callable[..., Any]:
        return _stand_in if fn is adam.single_param_adam else original(fn, **kwargs)

    fake_compile.stand_in = True  # type: ignore[attr-defined]
    adam.torch.compile = fake_compile  # type: ignore[assignment]


# -- the optimizers -----------------------------------------------------------------------------------------------
class Chained(torch.optim.Optimizer):
    """Several optimizers stepped one after the other (Muon's recipe: Muon, then AdamW)."""

    def __init__(self, optimizers: list[torch.optim.Optimizer]) -> None:
        self.optimizers = optimizers

    @property
    def state(self) -> Any:  # type: ignore[override]
        merged: dict[Any, Any] = {}
        for o in self.optimizers:
            merged.update(o.state)
        return merged

    def step(self, closure: Any = None) -> None:  # type: ignore[override]
        for o in self.optimizers:
            o.step()

    def zero_grad(self, set_to_none: bool = True) -> None:
        for o in self.optimizers:
            o.zero_grad(set_to_none=set_to_none)

    def register_step_post_hook(self, hook: Callable[..., Any]) -> Any:  # type: ignore[override]
        return [o.register_step_post_hook(hook) for o in self.optimizers]


def _transformers(model: torch.nn.Module, case: dict[str, Any]) -> torch.optim.Optimizer:
    """The optimizer transformers' Trainer builds for ``optim`` (module docstring)."""
    from transformers import Trainer, TrainingArguments

    name = case["optimizer"]
    optim_args = case.get("optim_args") or ("momentum=0.9" if name == "rmsprop-momentum" else None)
    args = TrainingArguments(output_dir="/tmp/calibration-options", optim=OPTIM_NAMES[name], learning_rate=1e-5,
                             optim_args=optim_args, optim_target_modules=["attn", "mlp"], report_to=[])
    cls, kwargs = Trainer.get_optimizer_cls_and_kwargs(args, model)
    params = kwargs.pop("params", None) or [p for p in model.parameters() if p.requires_grad]
    if name.startswith("rmsprop"):
        kwargs["foreach"] = True  # torch's default on CUDA
    return cls(params, **kwargs)


def _muon(model: torch.nn.Module) -> torch.optim.Optimizer:
    matrices = [p for n, p in model.named_parameters() if p.requires_grad and p.ndim == 2 and ".layers." in n]
    rest = [p for n, p in model.named_parameters() if p.requires_grad and not (p.ndim == 2 and ".layers." in n)]
    parts: list[torch.optim.Optimizer] = [torch.optim.Muon(matrices, lr=1e-3)]
    if rest:  # LoRA trains matrices only
        parts.append(torch.optim.AdamW(rest, lr=1e-5, fused=True))
    return Chained(parts)


def _adam_mini(model: torch.nn.Module) -> torch.optim.Optimizer:
    from adam_mini import Adam_mini

    c = model.config
    return Adam_mini(named_parameters=model.named_parameters(), lr=1e-5, betas=(0.9, 0.999), eps=1e-8,
                     weight_decay=0.0, model_sharding=False, dim=c.hidden_size, n_heads=c.num_attention_heads,
                     n_kv_heads=c.num_key_value_heads, verbose=False)


def _apollo_seeds() -> None:
    """APOLLO draws each projector's next seed from a tensor's values (``random_projector.next_seed``:
    ``torch.randint(...).tolist()``), which a fake tensor has none of: computed on real tensors, same numbers."""
    from apollo_torch import random_projector
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    if getattr(random_projector.next_seed, "real", False):
        return
    original = random_projector.next_seed

    def next_seed(seed: int, adv: int = random_projector.ADV_DEFAULT) -> int:
        with unset_fake_temporarily():
            return int(original(seed, adv))

    next_seed.real = True  # type: ignore[attr-defined]
    random_projector.next_seed = next_seed
    from apollo_torch import apollo

    def tensor_max(a: Any, b: float) -> Any:  # the norm-growth limiter's ``max(norm ratio, 1.01)``, as a tensor
        return torch.clamp(a, min=b) if isinstance(a, torch.Tensor) else builtins.max(a, b)

    apollo.max = tensor_max  # type: ignore[attr-defined]  # the module's own name ``max``, builtins' elsewhere


def _badam(model: torch.nn.Module) -> torch.optim.Optimizer:
    """BAdam as LLaMA-Factory 0.9.5 ``train/trainer_utils.py`` ``_create_badam_optimizer`` builds it (layer mode):
    the Trainer's AdamW (fused, its default) over every trainable parameter in two weight-decay groups, wrapped by
    ``badam.BlockOptimizer`` (``switch_block_every`` 50, ``switch_mode`` ascending: block 0 first)."""
    from badam import BlockOptimizer

    params = [p for p in model.parameters() if p.requires_grad]
    base = torch.optim.AdamW([{"params": params, "weight_decay": 0.0}], lr=1e-5, fused=True)
    return BlockOptimizer(base_optimizer=base, named_parameters_list=list(model.named_parameters()),
                          block_prefix_list=None, switch_block_every=50, start_block=None, switch_mode="ascending",
                          verbose=0)


def mark_extra(opt: torch.optim.Optimizer, counter: Any) -> None:
    """Tensors an optimizer made before the counter started: BAdam's fp32 copy of its block (``param_idx2hp``,
    made by ``switch_trainable_params`` in its constructor), counted as optimizer states."""
    for hp in getattr(opt, "param_idx2hp", {}).values():
        counter.mark(hp, "optimizer_states")


def make_optimizer(model: torch.nn.Module, case: dict[str, Any]) -> torch.optim.Optimizer:
    """The case's optimizer over the trainable parameters, built by its library (module docstring)."""
    name = case["optimizer"]
    if case["method"] == "badam":
        return _badam(model)
    if name == "muon":
        return _muon(model)
    if name == "adam-mini":
        return _adam_mini(model)
    if name in ("adamw-4bit", "adamw-8bit-torchao"):
        _install_torchao_stand_in()
    if name == "apollo-adamw":
        _apollo_seeds()
    return _transformers(model, case)


# -- the check of the stand-in ----------------------------------------------------------------------------------
def check_torchao() -> int:
    """Compile torchao's real step on real CPU tensors; its allocator peak must equal the stand-in's bytes."""
    from torch.profiler import ProfilerActivity, profile
    from torchao.optim import AdamW4bit, AdamW8bit

    bad = 0
    for cls, bits, block in ((AdamW4bit, 4, 128), (AdamW8bit, 8, 256)):
        for shape in ((1024, 2048), (2048, 512)):
            p = torch.nn.Parameter(torch.randn(*shape, dtype=torch.bfloat16))
            p.grad = torch.randn(*shape, dtype=torch.bfloat16)
            opt = cls([p], lr=1e-3)
            opt.step()  # compiles; creates the states
            with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
                opt.step()
            real = allocator_peak(prof)
            stand_in = sum(n * torch.empty(0, dtype=dt).element_size() for n, dt in compiled_buffers(p.numel(), bits,
                                                                                                     block))
            bad += real != stand_in
            print(f"{cls.__name__} {shape}: compiled step {real:,} bytes, stand-in {stand_in:,}", flush=True)
    return 1 if bad else 0


# -- one parameter's step, traced ---------------------------------------------------------------------------------
STEPS = Path(__file__).with_name("optimizer_steps.jsonl")
#: (optimizer, optim_args) whose step is traced on one matrix of each shape and dtype
STEP_CASES = [("muon", None), ("galore-adamw", None), ("galore-adamw", "update_proj_gap=1"),
              ("galore-adamw", "rank=64,update_proj_gap=1"), ("apollo-adamw", None),
              ("apollo-adamw", "update_proj_gap=1"), ("rmsprop", None), ("rmsprop-momentum", None)]
STEP_SHAPES = [(1024, 256), (256, 1024), (768, 768)]


class _OneLinear(torch.nn.Module):
    """One ``nn.Linear`` named as a decoder block's MLP projection (what GaLore's and APOLLO's targets match)."""

    def __init__(self, rows: int, cols: int, dtype: torch.dtype) -> None:
        super().__init__()
        self.mlp = torch.nn.Linear(cols, rows, bias=False, dtype=dtype)


def trace_step(optimizer: str, optim_args: str | None, shape: tuple[int, int], dtype: torch.dtype) -> dict[str, Any]:
    """Two steps of ``optimizer`` on one ``shape`` weight on fake tensors: the states after them and, for each
    step, the most its ``step()`` held on top of what was live when it began."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    from calibration.counter import LiveBytes

    with FakeTensorMode(allow_non_fake_inputs=True):
        model = _OneLinear(*shape, dtype)
        case = {"optimizer": optimizer, "optim_args": optim_args}
        opt = _muon_one(model) if optimizer == "muon" else _transformers(model, case)
        if optimizer == "apollo-adamw":
            _apollo_seeds()
        counter = LiveBytes()
        extra = []
        with counter:
            for p in model.parameters():
                counter.track(p)
            for n in (1, 2):
                for p in model.parameters():
                    p.grad = torch.empty_like(p)
                counter.set_phase(f"opt{n}")
                before = counter.current
                opt.step()
                extra.append(counter.phase_peaks[f"opt{n}"] - before)
                for p in model.parameters():
                    p.grad = None
            grads_gone = counter.current
            states = grads_gone - sum(p.numel() * p.element_size() for p in model.parameters())
    return {"optimizer": optimizer, "optim_args": optim_args, "shape": list(shape), "dtype": str(dtype)[6:],
            "step1_extra": extra[0], "step2_extra": extra[1], "states": states}


def _muon_one(model: torch.nn.Module) -> torch.optim.Optimizer:
    return torch.optim.Muon(list(model.parameters()), lr=1e-3)


def write_steps() -> int:
    """Trace every STEP_CASES optimizer on every shape and dtype; rewrite optimizer_steps.jsonl."""
    import json

    records = [trace_step(o, a, shape, dt) for o, a in STEP_CASES for shape in STEP_SHAPES
               for dt in (torch.bfloat16, torch.float32)]
    STEPS.write_text("".join(json.dumps(r) + "\n" for r in records))
    print(f"{len(records)} optimizer steps traced -> {STEPS.name}")
    return 0


def check_ulysses() -> int:
    """LLaMA-Factory 0.9.5's Ulysses all-to-all (``v1/plugins/model_plugins/parallelization/seq_comm.py``
    ``SeqAllToAll4D``, loaded from its file: the package's own imports need its whole stack) on fake tensors under
    torch's fake process group, 4 ranks: it holds three of the query's size on top of its input at most (the
    contiguous splits, the receive buffers, their ``torch.cat``), and keeps one (the result)."""
    import importlib.util

    import torch.distributed as dist
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.testing._internal.distributed.fake_pg import FakeStore

    from calibration.counter import LiveBytes

    spec = importlib.util.find_spec("llamafactory")
    assert spec is not None
    assert spec.origin is not None
    path = Path(spec.origin).parent / "v1/plugins/model_plugins/parallelization/seq_comm.py"
    loader = importlib.util.spec_from_file_location("seq_comm", path)
    assert loader is not None
    assert loader.loader is not None
    seq_comm = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(seq_comm)
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=4)
    with FakeTensorMode(allow_non_fake_inputs=True):
        q = torch.empty(1, 1024, 32, 128, dtype=torch.bfloat16, requires_grad=True)  # s / 4 tokens, 32 heads
        counter = LiveBytes()
        with counter:
            counter.track(q)
            before = counter.current
            out = seq_comm.SeqAllToAll4D.apply(dist.group.WORLD, q, 2, 1)
            extra, kept = counter.peak - before, counter.current - before
    size = q.numel() * q.element_size()
    print(f"all-to-all {tuple(q.shape)} -> {tuple(out.shape)}: peak {extra / size:g} x the input, kept {kept / size:g}")
    return 0 if (extra, kept) == (3 * size, size) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare the torchao stand-in with the compiled step")
    parser.add_argument("--steps", action="store_true", help="trace one matrix's step (optimizer_steps.jsonl)")
    parser.add_argument("--ulysses", action="store_true", help="trace LLaMA-Factory's Ulysses all-to-all")
    args = parser.parse_args(argv)
    if args.steps:
        return write_steps()
    if args.ulysses:
        return check_ulysses()
    return check_torchao() if args.check else 0


if __name__ == "__main__":
    sys.exit(main())
