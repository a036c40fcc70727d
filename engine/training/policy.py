"""A stack's dtype policy: what its own code does to the tensors of a step beyond the precision regime, decided once
per setup by the training plan (``engine.training.plan``: ``Plan.policy``; its ``dtypes`` are what every term reads).

The precision regime (``engine.training.precision``) says what a framework flag holds; a stack's own preparation
changes some of it. Each rule below was read in the stack's code and traced with it (calibration/stacks/NOTES.md,
section 1: transformers' real ``Trainer.train()`` with PEFT and bitsandbytes on fake tensors).

**hf-trainer, QLoRA** (PEFT's ``prepare_model_for_kbit_training``, which the Trainer + PEFT recipe calls):

1. every 16-bit parameter that is not a bitsandbytes ``Params4bit`` is cast to fp32: the embeddings, every norm
   and the output layer (peft/utils/other.py ``prepare_model_for_kbit_training``@0.21.2, "cast all non INT8
   parameters to fp32"): ``DtypePlan.frozen`` = 4;
2. so the residual stream is fp32 (the embedding's output is, and ``LlamaRMSNorm`` returns ``weight * x`` in the
   weight's fp32), and every 4-bit layer's output is cast back to its input's dtype, fp32
   (bitsandbytes/nn/modules.py ``Linear4bit.forward``@0.50.2: ``matmul_4bit(x.to(compute_dtype), ...)
   .to(inp_dtype)``), to which PEFT adds the LoRA branch in fp32 (peft/tuners/lora/bnb.py ``Linear4bit.forward``):
   ``residual`` = 4 and ``linear_out`` = 4 (the MLP's gate, up and activation outputs are kept in fp32);
3. the output layer's fp32 weight is cast to 16 bits by autocast and that copy is saved for its backward (a frozen
   weight is not cached, but the matmul keeps it): the head's 16-bit copy, ``V x h x 2`` bytes, from the forward's
   end to the head's backward (``engine.training.activations``);
4. checkpointing is on by default and reentrant (``use_gradient_checkpointing=True``): what the user states with
   ``--checkpointing`` is what ran (docs/accuracy.md says how a config's ``gradient_checkpointing`` maps); with it
   each layer keeps its fp32 input (rule 2).

**hf-trainer, LoRA and QLoRA**: PEFT makes the adapters fp32 (``autocast_adapter_dtype=True``) and autocast caches
a 16-bit copy of every fp32 leaf that requires grad for the whole autocast region (the forward); each adapter's
matmul saves its copy for its backward (aten/src/ATen/autocast_mode.cpp ``cached_cast``: ``arg.requires_grad() &&
arg.is_leaf()``): ``adapter_copies``, trainable x 2 bytes (traced: ``_to_copy [16, 4096] bf16`` and its kin, 80 MB
for Llama-2-7B r16 all-linear, plain LoRA and QLoRA alike).

**hf-trainer, FSDP** (``fsdp_version``: accelerate's FSDP, which the Trainer runs; read, not traced: NOTES section
3): with mixed precision accelerate casts every trainable parameter that is not fp32 to fp32 "to mimic DeepSpeed's
casting" (accelerate/accelerator.py ``Accelerator.prepare_model``@1.15.0, FSDP1: the trainable ``FlatParameter``s;
accelerate/utils/fsdp_utils.py ``fsdp2_prepare_model``@1.15.0, FSDP2: every ``requires_grad`` parameter, unless the
model holds a ``Params4bit``), and FSDP's ``MixedPrecision(param_dtype=bf16)`` gathers each unit in 16 bits for
compute: a full fine-tune holds fp32 shards of the parameters, of their gradients (the sharded gradient keeps the
sharded parameter's dtype) and of AdamW's states, 16 bytes per parameter over N GPUs however the checkpoint was
loaded, with no autocast copy (the gathered weights are already 16-bit) but the gathered units and their unsharded
gradients in 16 bits (:data:`FSDP_MIXED`). LoRA's adapters are fp32 already: nothing changes. QLoRA under FSDP2:
the 4-bit ``Params4bit`` are left out of sharding (fsdp_utils.py ``fsdp2_prepare_model``: ``ignored_params``,
non-floating storage), whole on every GPU (``engine.training.plan``).

**torchtitan, torchtune, litgpt, Megatron-LM**: their own dtypes (torchtitan's FSDP2 fp32 shards, Megatron's
fp32 gradient buffers, litgpt's bf16-mixed autocast) and trained tensors (torchtune's and bf16-true litgpt's
adapters in the model's dtype): ``engine.training.stacks``.

Not modelled (the engine counts PEFT's preparation for every hf-trainer QLoRA run): TRL's SFTTrainer calls PEFT's
preparation up to 0.22; from 0.23 it calls its own, which casts nothing (trl/models/utils.py
``prepare_model_for_kbit_training``@0.23.0), and from 0.26 it casts a quantized model's adapters to bf16
(trl/trainer/sft_trainer.py@1.14.2); LLaMA-Factory 0.9.5 casts only the norms, and only with ``upcast_layernorm``
(model/model_utils/checkpointing.py ``prepare_model_for_training``); Axolotl 0.19.0 can keep the embeddings and head
16-bit (``embeddings_skip_upcast``, monkeypatch/peft/utils.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.specs import PARTIAL_METHODS, Method, Stack, TrainingSetup
from engine.training.partial import trained_plan
from engine.training.precision import ADAPTER_PLAN, FP32, HALF, DtypePlan, dtype_plan
from engine.training.stacks import stack_dtypes, stack_sources, trained_dtypes

PEFT_KBIT_SOURCE = ("peft/utils/other.py prepare_model_for_kbit_training@0.21.2 (non-4-bit parameters cast to fp32); "
                    "bitsandbytes/nn/modules.py Linear4bit.forward@0.50.2 (output cast back to the input's dtype)")
FSDP_UPCAST_SOURCE = ("accelerate/accelerator.py Accelerator.prepare_model@1.15.0 (FSDP1) and "
                      "accelerate/utils/fsdp_utils.py fsdp2_prepare_model@1.15.0 (FSDP2): trainable low-precision "
                      "parameters cast to fp32 under mixed precision, gathered in 16 bits")
#: accelerate's FSDP with 16-bit mixed precision (module docstring): fp32 parameters, gradients and states, sharded;
#: the units gathered (and their gradients made) in the 16-bit compute dtype
FSDP_MIXED = DtypePlan(weight=FP32, grad=FP32, master=0, state=FP32, residual=HALF, compute=HALF,
                       autocast_copies=False, step_grad=FP32, gathered=HALF)
ADAPTER_COPIES_SOURCE = ("PEFT autocast_adapter_dtype=True (fp32 adapters); aten/src/ATen/autocast_mode.cpp "
                         "cached_cast (16-bit copies of leaves that require grad, cached for the forward)")


@dataclass(frozen=True, slots=True)
class StackPolicy:
    """The dtypes one setup's step holds (its regime's, changed by the stack's rules) and the rules' sources."""

    dtypes: DtypePlan  # what the terms read: the regime's, with the stack's changes
    #: the trainable tensors': the regime's for full fine-tuning, PEFT's fp32 adapters for LoRA, the trained layers'
    #: for freeze tuning and BAdam (``engine.training.partial.trained_plan``)
    trained: DtypePlan
    sources: tuple[str, ...]  # the stack's rules that apply (empty: the regime's dtypes as they are)


def replicated(s: TrainingSetup) -> frozenset[str]:
    """The parts of the weights (``engine.training.states.weight_parts``) that ZeRO-3 / FSDP leave whole on every
    GPU: bitsandbytes' quantization constants are a ``QuantState`` held as an attribute of each ``Params4bit``
    (bitsandbytes/nn/modules.py@0.50.2), not a parameter that a sharding sees; under hf-trainer's FSDP2 the 4-bit
    weights too (module docstring)."""
    if s.method is not Method.QLORA:
        return frozenset()
    fsdp2 = s.stack is Stack.HF_TRAINER and s.fsdp_version == 2
    return frozenset({"quant_constants", "quantized_4bit"} if fsdp2 else {"quant_constants"})


def stack_policy(s: TrainingSetup) -> StackPolicy:
    """The dtype policy of ``s`` (module docstring: the rules and their sources; the other stacks': their own
    dtypes and trained tensors, ``engine.training.stacks``)."""
    if s.stack is not Stack.HF_TRAINER:
        dtypes = stack_dtypes(s)
        if s.method is Method.FULL:
            return StackPolicy(dtypes, dtypes, stack_sources(s))
        trained = trained_plan(s, dtypes) if s.method in PARTIAL_METHODS else trained_dtypes(s, dtypes)
        return StackPolicy(dtypes, trained, stack_sources(s))
    regime = dtype_plan(s.precision)
    if s.method is Method.FULL:
        if s.fsdp_version is not None and regime.compute < FP32:
            return StackPolicy(FSDP_MIXED, FSDP_MIXED, (FSDP_UPCAST_SOURCE,))
        return StackPolicy(regime, regime, ())
    if s.method in PARTIAL_METHODS:  # freeze tuning, BAdam: whole layers train, no adapter
        return StackPolicy(regime, trained_plan(s, regime), ())
    autocast = regime.compute < FP32
    # OFT builds its rotation from its parameters (no leaf reaches a matmul, so autocast caches no copy of it)
    if not autocast or s.method is Method.OFT:
        return StackPolicy(regime, ADAPTER_PLAN, ())
    dtypes = replace(regime, adapter_copies=True)
    sources = [ADAPTER_COPIES_SOURCE]
    if s.method is Method.QLORA:
        dtypes = replace(dtypes, frozen=FP32, residual=FP32, linear_out=FP32)
        sources.insert(0, PEFT_KBIT_SOURCE)
    return StackPolicy(dtypes, ADAPTER_PLAN, tuple(sources))
