"""Display names of the engine's choices that several views show, one translated label per value.

A method is "Full", "LoRA", "QLoRA", ... on the memory page's buttons, in its comparison chart, on the levers
page's LoRA card and in the alignment page's picker: the words are defined here once (context ``choices``). The
optimizer, attention, checkpointing and sharding have short names too, for the one-line summary of a setup that
several pages show (``gui.widgets.scenario_summary``): the engine's values are identifiers, not words.
"""

from __future__ import annotations

from typing import Any

from engine.specs import Attention, Checkpointing, Loss, Method, Optimizer, OptimizerImpl, Sharding, Stack
from gui.text.tr import QT_TRANSLATE_NOOP, translate

CONTEXT = "choices"

METHODS: dict[Method, str] = {
    Method.FULL: QT_TRANSLATE_NOOP("choices", "Full"),
    Method.LORA: QT_TRANSLATE_NOOP("choices", "LoRA"),
    Method.QLORA: QT_TRANSLATE_NOOP("choices", "QLoRA"),
    Method.LORA_8BIT: QT_TRANSLATE_NOOP("choices", "LoRA 8-bit"),
    Method.FREEZE: QT_TRANSLATE_NOOP("choices", "Freeze"),
    Method.BADAM: QT_TRANSLATE_NOOP("choices", "BAdam"),
    Method.OFT: QT_TRANSLATE_NOOP("choices", "OFT"),
}


def method_label(method: Method) -> str:
    """A training method's name in the user's language."""
    return translate(CONTEXT, METHODS[method])


def method_choices() -> list[tuple[str, Method]]:
    """``(label, method)`` for every method, in the engine's order (a picker's choices)."""
    return [(method_label(m), m) for m in Method]


OPTIMIZERS: dict[Optimizer, str] = {
    Optimizer.ADAMW: QT_TRANSLATE_NOOP("choices", "AdamW"),
    Optimizer.ADAMW_8BIT: QT_TRANSLATE_NOOP("choices", "AdamW 8-bit"),
    Optimizer.PAGED_ADAMW_8BIT: QT_TRANSLATE_NOOP("choices", "Paged AdamW 8-bit"),
    Optimizer.PAGED_ADAMW: QT_TRANSLATE_NOOP("choices", "Paged AdamW (32-bit)"),
    Optimizer.ADAFACTOR: QT_TRANSLATE_NOOP("choices", "Adafactor"),
    Optimizer.LION: QT_TRANSLATE_NOOP("choices", "Lion"),
    Optimizer.SGD: QT_TRANSLATE_NOOP("choices", "SGD"),
    Optimizer.SGD_MOMENTUM: QT_TRANSLATE_NOOP("choices", "SGD with momentum"),
    Optimizer.ADAMW_4BIT: QT_TRANSLATE_NOOP("choices", "AdamW 4-bit (torchao)"),
    Optimizer.ADAMW_8BIT_TORCHAO: QT_TRANSLATE_NOOP("choices", "AdamW 8-bit (torchao)"),
    Optimizer.RMSPROP: QT_TRANSLATE_NOOP("choices", "RMSprop"),
    Optimizer.RMSPROP_MOMENTUM: QT_TRANSLATE_NOOP("choices", "RMSprop with momentum"),
    Optimizer.MUON: QT_TRANSLATE_NOOP("choices", "Muon (+ AdamW)"),
    Optimizer.GALORE_ADAMW: QT_TRANSLATE_NOOP("choices", "GaLore AdamW"),
    Optimizer.APOLLO_ADAMW: QT_TRANSLATE_NOOP("choices", "APOLLO AdamW"),
    Optimizer.ADAM_MINI: QT_TRANSLATE_NOOP("choices", "Adam-mini"),
}
ATTENTIONS: dict[Attention, str] = {
    Attention.EAGER: QT_TRANSLATE_NOOP("choices", "eager attention"),
    Attention.SDPA: QT_TRANSLATE_NOOP("choices", "SDPA attention"),
    Attention.FLASH: QT_TRANSLATE_NOOP("choices", "FlashAttention 2"),
}
CHECKPOINTING: dict[Checkpointing, str] = {
    Checkpointing.NONE: QT_TRANSLATE_NOOP("choices", "no checkpointing"),
    Checkpointing.FULL: QT_TRANSLATE_NOOP("choices", "full checkpointing"),
    Checkpointing.SELECTIVE: QT_TRANSLATE_NOOP("choices", "selective checkpointing"),
    Checkpointing.OP_SELECTIVE: QT_TRANSLATE_NOOP("choices", "per-operator selective checkpointing"),
}
SHARDING: dict[Sharding, str] = {
    Sharding.NONE: QT_TRANSLATE_NOOP("choices", "data parallel"),
    Sharding.ZERO1: QT_TRANSLATE_NOOP("choices", "ZeRO-1"),
    Sharding.ZERO2: QT_TRANSLATE_NOOP("choices", "ZeRO-2"),
    Sharding.ZERO3: QT_TRANSLATE_NOOP("choices", "ZeRO-3"),
}
LOSSES: dict[Loss, str] = {
    Loss.STANDARD: QT_TRANSLATE_NOOP("choices", "standard loss"),
    Loss.CHUNKED: QT_TRANSLATE_NOOP("choices", "chunked loss"),
    Loss.CHUNKED_OUTPUT: QT_TRANSLATE_NOOP("choices", "chunked output and loss"),
    Loss.FUSED_LINEAR_CE: QT_TRANSLATE_NOOP("choices", "fused linear cross-entropy"),
    Loss.CHUNKED_BACKWARD: QT_TRANSLATE_NOOP("choices", "chunked loss with its backward per chunk"),
}


def short_label(value: Optimizer | Attention | Checkpointing | Sharding | Loss) -> str:
    """An optimizer's, attention's, checkpointing's, sharding's or loss's short name in the user's language."""
    tables: dict[type, dict[Any, str]] = {Optimizer: OPTIMIZERS, Attention: ATTENTIONS, Checkpointing: CHECKPOINTING,
                                          Sharding: SHARDING, Loss: LOSSES}  # by type: "none" is two enums' value
    return translate(CONTEXT, tables[type(value)][value])


#: whose code runs the training step (issue 25): the memory page's Stack picker (the Hugging Face Trainer is also
#: TRL's, Axolotl's and LLaMA-Factory's: the picker's tool tip says so)
STACKS: dict[Stack, str] = {
    Stack.HF_TRAINER: QT_TRANSLATE_NOOP("choices", "Hugging Face Trainer"),
    Stack.TORCHTUNE: QT_TRANSLATE_NOOP("choices", "torchtune"),
    Stack.TORCHTITAN: QT_TRANSLATE_NOOP("choices", "torchtitan"),
    Stack.LITGPT: QT_TRANSLATE_NOOP("choices", "LitGPT"),
    Stack.MEGATRON: QT_TRANSLATE_NOOP("choices", "Megatron-LM / NeMo"),
}
#: torch AdamW's implementations (``engine.specs.OptimizerImpl``; what each step allocates: the picker's tool tip)
OPTIMIZER_IMPLS: dict[OptimizerImpl, str] = {
    OptimizerImpl.FUSED: QT_TRANSLATE_NOOP("choices", "fused"),
    OptimizerImpl.FOREACH: QT_TRANSLATE_NOOP("choices", "foreach"),
    OptimizerImpl.FORLOOP: QT_TRANSLATE_NOOP("choices", "for-loop"),
}
#: the implementation picker's first entry: the stack's own, named (``{impl}``: fused, foreach, for-loop)
STACKS_OWN_IMPL = QT_TRANSLATE_NOOP("choices", "stack's own ({impl})")


def stack_choices() -> list[tuple[str, Stack]]:
    """``(label, stack)`` for every stack, in the engine's order (the Stack picker's choices)."""
    return [(translate(CONTEXT, STACKS[st]), st) for st in Stack]


def impl_choices(stack_default: OptimizerImpl) -> list[tuple[str, OptimizerImpl | None]]:
    """``(label, implementation)``: the stack's own first (None, naming ``stack_default``), then each one."""
    return [(stacks_own_impl(stack_default), None), *((translate(CONTEXT, OPTIMIZER_IMPLS[i]), i)
                                                      for i in OptimizerImpl)]


def stacks_own_impl(stack_default: OptimizerImpl) -> str:
    """The implementation picker's first entry for a stack whose default is ``stack_default``."""
    return translate(CONTEXT, STACKS_OWN_IMPL).format(impl=stack_default.value)
