"""transformers' real `Trainer.train()` for QLoRA (PEFT + bitsandbytes) and full fine-tuning, on fake CPU tensors.

What runs is the stacks' own code at the versions in calibration/requirements.txt and stacks/requirements.txt:
- the model: built from a catalog config on `meta`, then quantized by transformers' own bitsandbytes path
  (`quantizers/quantizer_bnb_4bit.py` `Bnb4BitHfQuantizer.preprocess_model` -> `integrations/bitsandbytes.py`
  `replace_with_bnb_linear`, then `Bnb4bitQuantize.convert` per weight, which makes the `bnb.nn.Params4bit` and
  quantizes it on `.to(device)`, then `postprocess_model`), with `BitsAndBytesConfig(load_in_4bit=True,
  bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=torch.bfloat16)` and the
  unquantized weights in bf16 (what `from_pretrained(..., dtype=torch.bfloat16)` loads);
- PEFT's `prepare_model_for_kbit_training(model, use_gradient_checkpointing=...)` and `get_peft_model`;
- `Trainer(model, TrainingArguments(bf16=True, optim=..., max_steps=2, ...)).train()`: the Trainer creates the
  optimizer, accelerate wraps the forward in bf16 autocast, the loop runs `training_step` (forward, loss,
  `accelerator.backward`), `clip_grad_norm_`, `optimizer.step()`, the scheduler and `zero_grad` twice.

What the fake CPU run needs, and nothing more (each is bookkeeping, none changes what is allocated):
- calibration/patches.py (transformers' fake-tensor mask handling, as for the other traces);
- stacks/bnb_cuda.py (bitsandbytes' CUDA allocation in its forward matmul and paged optimizers);
- AdamW's implementation chosen as on CUDA: `torch.optim.AdamW()` without `fused`/`foreach` picks foreach for CUDA
  tensors (torch/optim/optimizer.py `_default_to_fused_or_foreach`) and the for-loop for CPU ones; the trace picks
  foreach as CUDA would;
- the loss-is-NaN check and the gradient-norm logging read tensor values (`.item()`, `bool()`), which fake tensors
  do not have: `logging_nan_inf_filter=False`, and `Trainer._get_grad_norm` returns the norm tensor unread. The
  random sampler draws its seed with `.item()`: the dataset is read in order (`train_sampling_strategy`
  "sequential").
- `Module.to(device)` of a model already on that device is skipped (`_to_same_device_is_noop`);
- a DataLoader iterator draws its seed with `.item()`: the iterator is made on real tensors (`_real_loader_seeds`);
- phases are marked by wrapping `Accelerator.backward` (bwd), `Trainer._clip_grad_norm` (opt) and the step-begin
  callback (fwd).
"""

from __future__ import annotations

import contextlib
import tempfile
import time
import warnings
from typing import Any

import torch

from calibration import patches
from calibration.models import CATALOG, build_model, hf_config, lora_targets, materialize
from calibration.stacks import bnb_cuda
from calibration.stacks.cases import Case
from calibration.stacks.counting import StackBytes
from calibration.stacks.mark import mark_kinds, mark_optimizer


def _bnb_config() -> Any:
    from transformers import BitsAndBytesConfig

    return BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                              bnb_4bit_compute_dtype=torch.bfloat16)


def build_quantized(case: Case) -> tuple[torch.nn.Module, Any]:
    """The model on `meta` with bnb Linear4bit layers (transformers' preprocess step); quantized in `quantize`."""
    from transformers import AutoModelForCausalLM
    from transformers.quantizers.auto import AutoHfQuantizer

    quantizer = AutoHfQuantizer.from_config(_bnb_config(), pre_quantized=False)
    config = hf_config(case["model"], case["attention"])
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16, attn_implementation=case["attention"])
    model.config.use_cache = False
    quantizer.preprocess_model(model, device_map={"": "cpu"})
    model.hf_quantizer = quantizer
    model.hf_device_map = {"": "cpu"}  # from_pretrained(..., device_map={"": device}) sets it; accelerate reads it
    quantizer.postprocess_model(model)  # only sets attributes (is_loaded_in_4bit, the config's quantization_config)
    return model, quantizer


def quantize(model: torch.nn.Module, quantizer: Any) -> None:
    """Inside FakeTensorMode: give the model storage, then quantize every Linear4bit weight as loading does.

    PEFT's preparation and adapters are applied on `meta` before this (the order loading -> prepare -> adapters is
    kept in what each step sees: prepare casts the 16-bit parameters, the adapters are made fp32): a module holding
    fake parameters cannot be moved with `.to()` (torch swaps fake parameters, and fake tensors hold weak
    references), which PEFT does to every new adapter.

    The checkpoint's bf16 tensor handed to `Bnb4bitQuantize.convert` and the packed weight it makes are real CPU
    tensors that are never written (`torch.empty`: their pages are never touched): a `Params4bit` cannot wrap a
    fake tensor. Everything computed from them is fake (bnb_cuda.install patches `Params4bit._quantize` for that).
    """
    import bitsandbytes as bnb
    from transformers.integrations.bitsandbytes import Bnb4bitQuantize

    base = model.get_base_model()  # the transformers model inside PEFT's wrappers
    linears = {n: m for n, m in base.named_modules() if isinstance(m, bnb.nn.Linear4bit)}
    held = {n: m._parameters.pop("weight") for n, m in linears.items()}
    materialize(model)  # fake storage for every other parameter
    convert = Bnb4bitQuantize(quantizer)
    for name, module in linears.items():
        module._parameters["weight"] = held[name]
        with torch._subclasses.fake_tensor.unset_fake_temporarily():
            value = torch.empty(held[name].shape, dtype=held[name].dtype)
        new = convert.convert({f"{name}.weight": [value]}, full_layer_name=f"{name}.weight", model=base)
        module.weight = new[f"{name}.weight"]
        del value


def prepare_peft(model: torch.nn.Module, case: Case) -> torch.nn.Module:
    """PEFT's own preparation for k-bit training, then the LoRA adapters (inside FakeTensorMode)."""
    from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training

    model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=case["checkpointing"] == "peft")
    lora = LoraConfig(r=case["lora_rank"], lora_alpha=case["lora_alpha"], lora_dropout=case["lora_dropout"],
                      target_modules=lora_targets(case["model"], case["lora_targets"]), task_type="CAUSAL_LM")
    return get_peft_model(model, lora)


#: which implementation torch.optim picked in the last trace (for the record)
CHOSEN: dict[str, str] = {}


def _foreach_as_on_cuda(foreach: bool = True) -> None:
    """torch.optim's default implementation as for CUDA tensors: foreach (module docstring); `foreach=False`: the
    for-loop (what `torch.optim.AdamW(foreach=False)` runs, case "optimizer_impl": "forloop")."""
    from torch.optim import adam, adamw, optimizer

    def default(params: Any, differentiable: bool, use_fused: bool = False) -> tuple[bool, bool]:
        if torch.jit.is_scripting() or differentiable:
            return False, False
        CHOSEN["impl"] = "foreach" if foreach else "forloop"
        return False, foreach

    for module in (optimizer, adam, adamw):  # each imported the function by name
        if hasattr(module, "_default_to_fused_or_foreach"):
            module._default_to_fused_or_foreach = default


class _Batches(torch.utils.data.Dataset):
    """`n` examples of `seq_len` random token ids, labels = input ids (what a packed SFT batch holds)."""

    def __init__(self, n: int, seq_len: int, vocab: int) -> None:
        self.items = [torch.randint(0, vocab, (seq_len,)) for _ in range(n)]

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        return {"input_ids": self.items[i], "labels": self.items[i]}


def _to_same_device_is_noop() -> None:
    """`Module.to(device)` on a model already there returns it as it is (Trainer `_move_model_to_device` and
    accelerate `prepare_model` call it; on CUDA it allocates nothing). torch swaps fake parameters even then and
    fails on the weak references fake tensors hold, so the call is skipped when nothing would change."""
    to = torch.nn.Module.to
    if getattr(to, "_calibration", False):
        return

    def same_device_to(self: torch.nn.Module, *args: Any, **kwargs: Any) -> Any:
        device, dtype, _, _ = torch._C._nn._parse_to(*args, **kwargs)
        tensors = [*self.parameters(), *self.buffers()]
        if dtype is None and device is not None and all(t.device == torch.device(device) for t in tensors):
            return self
        return to(self, *args, **kwargs)

    same_device_to._calibration = True  # type: ignore[attr-defined]
    torch.nn.Module.to = same_device_to  # type: ignore[method-assign]


def _real_loader_seeds() -> None:
    """A DataLoader iterator draws its base seed with `.item()` (torch/utils/data/dataloader.py
    `_BaseDataLoaderIter.__init__`): make the iterator on real tensors (it makes no tensor that the step keeps)."""
    from torch.utils.data import dataloader

    init = dataloader._BaseDataLoaderIter.__init__
    if getattr(init, "_calibration", False):
        return

    def real_init(self: Any, loader: Any) -> None:
        with torch._subclasses.fake_tensor.unset_fake_temporarily():
            init(self, loader)

    real_init._calibration = True  # type: ignore[attr-defined]
    dataloader._BaseDataLoaderIter.__init__ = real_init


def _instrument(trainer: Any, counter: StackBytes) -> None:
    """Phase marks around the Trainer's own calls (bookkeeping only)."""
    from transformers import TrainerCallback

    step = {"n": 0}

    class Phases(TrainerCallback):
        def on_step_begin(self, *_: Any, **__: Any) -> None:
            step["n"] += 1
            counter.set_phase(f"fwd{step['n']}")

    backward = trainer.accelerator.backward

    def backward_marked(loss: torch.Tensor, **kwargs: Any) -> None:
        counter.set_phase(f"bwd{step['n']}")
        backward(loss, **kwargs)

    clip = trainer._clip_grad_norm

    def clip_marked(model: torch.nn.Module) -> Any:
        counter.set_phase(f"opt{step['n']}")
        return clip(model)

    trainer.accelerator.backward = backward_marked
    trainer._clip_grad_norm = clip_marked
    trainer._get_grad_norm = lambda _model, grad_norm=None: grad_norm  # the norm is logged with .item()
    trainer._finalize_training = lambda *_: None  # after both steps: reads the mean loss (.item()), logs, saves
    trainer.add_callback(Phases())


def make_trainer(model: torch.nn.Module, case: Case, out_dir: str) -> Any:
    from transformers import Trainer, TrainingArguments

    args = TrainingArguments(
        output_dir=out_dir, per_device_train_batch_size=case["batch"], max_steps=2, learning_rate=2e-4,
        bf16=case["precision"] == "bf16", optim=case["optim"], max_grad_norm=1.0, logging_steps=1000,
        save_strategy="no", report_to=[], use_cpu=True, logging_nan_inf_filter=False, dataloader_num_workers=0,
        train_sampling_strategy="sequential", disable_tqdm=True, remove_unused_columns=False,
        gradient_checkpointing=case["checkpointing"] == "trainer", weight_decay=case.get("weight_decay", 0.0),
    )
    vocab = model.get_output_embeddings().weight.shape[0]
    return Trainer(model=model, args=args, train_dataset=_Batches(2 * case["batch"], case["seq_len"], vocab))


def run_case(case: Case, fake: bool = True) -> dict[str, Any]:
    """Trace one case through Trainer.train(); return its record (`fake=False`: the same on real CPU tensors)."""
    warnings.filterwarnings("ignore")
    patches.apply()
    CHOSEN.clear()
    _foreach_as_on_cuda(case.get("optimizer_impl") != "forloop")
    _real_loader_seeds()
    _to_same_device_is_noop()
    start = time.perf_counter()
    counter = StackBytes()
    bnb_cuda.install(counter)
    if case["method"] == "qlora":
        model, quantizer = build_quantized(case)
        model = prepare_peft(model, case)  # on meta, as calibration/models.py does; see quantize()
    else:
        model, quantizer = build_model(case), None
    fake_mode = torch._subclasses.fake_tensor.FakeTensorMode
    mode = fake_mode(allow_non_fake_inputs=True) if fake else contextlib.nullcontext()
    with mode, tempfile.TemporaryDirectory() as out_dir:
        if quantizer is not None:
            quantize(model, quantizer)
        else:
            materialize(model)
        trainer = make_trainer(model, case, out_dir)
        _instrument(trainer, counter)
        create = trainer.create_optimizer

        def create_marked(*args: Any, **kwargs: Any) -> Any:
            opt = create(*args, **kwargs)
            mark_optimizer(opt, counter)
            return opt

        trainer.create_optimizer = create_marked
        with counter, bnb_cuda.CudaGemm4bit():
            mark_kinds(model, counter)
            for batch in trainer.train_dataset.items:
                counter.track(batch)
            trainer.train()
    return _record(case, model, counter, trainer, time.perf_counter() - start)


def _impl_traced(trainer: Any) -> str:
    opt = getattr(trainer.optimizer, "optimizer", trainer.optimizer)
    if type(opt).__module__.startswith("bitsandbytes"):
        return "bitsandbytes"
    if any(g.get("fused") for g in opt.param_groups):
        return "fused"
    return CHOSEN.get("impl", "forloop")


def _record(case: Case, model: torch.nn.Module, counter: StackBytes, trainer: Any, seconds: float) -> dict[str, Any]:
    import accelerate
    import bitsandbytes
    import peft
    import transformers

    params = list(model.parameters())
    return {
        **case,
        "hf_config": CATALOG[case["model"]],
        "optimizer_class": type(getattr(trainer.optimizer, "optimizer", trainer.optimizer)).__name__,
        "optimizer_impl_traced": _impl_traced(trainer),
        "total_params": sum(p.numel() * (2 if type(p).__name__ == "Params4bit" else 1) for p in params),
        "trainable_params": sum(p.numel() for p in params if p.requires_grad),
        "peak_bytes": counter.peak,
        "peak_phase": counter.peak_phase,
        "phase_peaks": counter.phase_peaks,
        "at_peak": counter.at_peak(),
        "weights_at_peak": counter.weights_at_peak(),
        "paged_bytes": counter.outside_peak,
        "at_peak_top_activations": counter.top_at_peak(10),
        "torch": torch.__version__.split("+")[0],
        "transformers": transformers.__version__,
        "peft": peft.__version__,
        "bitsandbytes": bitsandbytes.__version__,
        "accelerate": accelerate.__version__,
        "trace_seconds": round(seconds, 2),
    }
