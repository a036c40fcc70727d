"""Names the tools share, mapped to VRAM Lab's: optimizers, dtypes, attention kernels, LoRA targets, alignment.

Sources (read at these versions):

* Optimizers: ``OptimizerNames`` in transformers ``src/transformers/training_args.py`` (main at commit
  00349ae8, v5), which Axolotl, LLaMA-Factory and TRL pass through; ``adamw_8bit`` is "just an alias for
  adamw_bnb_8bit" there. torchtune names a class by its import path (``torch.optim.AdamW``,
  ``bitsandbytes.optim.PagedAdamW8bit``). Memory follows the state each keeps per parameter: AdamW two fp32
  states (Loshchilov & Hutter 2019, arXiv:1711.05101); 8-bit AdamW two 8-bit states with one fp32 scale per block
  (Dettmers et al. 2022, arXiv:2110.02861, s2); paged ones keep them in CUDA unified memory (bitsandbytes docs,
  "Paged optimizers"): ``paged_adamw_8bit`` the 8-bit states, ``paged_adamw_32bit`` (``PagedAdamW32bit``) AdamW's
  two fp32 states. Issue 27's (``engine.training.optimizers``): torchao's ``AdamW4bit`` / ``AdamW8bit``
  (``adamw_torch_4bit`` / ``adamw_torch_8bit``, block 256 as transformers passes it; torchtune's
  ``torchao.optim.AdamW4bit`` keeps torchao's own block 128: costed at 256, reported), ``rmsprop``
  (``torch.optim.RMSprop``; ``optim_args`` momentum > 0 its momentum variant), ``galore_adamw``, ``apollo_adamw``
  (``optim_args`` rank), ``torch.optim.Muon`` (Axolotl's ``muon``, its own implementation of the same algorithm,
  costed as torch's and reported). The GaLore / APOLLO 8-bit, Adafactor and layer-wise variants, AdEMAMix, LOMO,
  schedule-free and the 4-bit and 8-bit Lion variants have no counterpart in the engine and are refused by
  name.
* LoRA targets: PEFT's projection names (``q_proj`` ... ``down_proj``), torchtune's (``q_proj``, ``k_proj``,
  ``v_proj``, ``output_proj`` and ``apply_lora_to_mlp``), and the "all linear layers" spellings: Axolotl's
  ``lora_target_linear: true``, LLaMA-Factory's ``lora_target: all``, PEFT's ``all-linear``.
* Alignment methods: TRL's trainers (DPO, PPO, GRPO, KTO, ORPO, CPO, RLOO, reward modelling), LLaMA-Factory's
  ``stage`` and Axolotl's ``rl``; Axolotl's ``gdpo`` runs TRL's GRPO trainer with each reward normalised on its
  own (``src/axolotl/core/builders/rl.py``: ``if self.cfg.rl in {RLType.GRPO, RLType.GDPO}``), GRPO's memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum

from engine.specs import Attention, LoraTargets, Optimizer, OptimizerImpl


class AlignmentMethod(StrEnum):
    """A training objective beyond supervised fine-tuning that a file names (for the Alignment page)."""

    DPO = "dpo"
    IPO = "ipo"
    ORPO = "orpo"
    SIMPO = "simpo"
    CPO = "cpo"
    KTO = "kto"
    PPO = "ppo"
    GRPO = "grpo"
    RLOO = "rloo"
    REWARD = "reward"


#: transformers ``OptimizerNames`` (and Axolotl's and torchtune's spellings) -> VRAM Lab's optimizer
OPTIMIZERS: dict[str, Optimizer] = {
    "adamw_torch": Optimizer.ADAMW,
    "adamw_torch_fused": Optimizer.ADAMW,
    "adamw_hf": Optimizer.ADAMW,
    "adamw_apex_fused": Optimizer.ADAMW,
    "adamw_torch_xla": Optimizer.ADAMW,
    "adamw_torch_npu_fused": Optimizer.ADAMW,
    "adamw_bnb_8bit": Optimizer.ADAMW_8BIT,
    "adamw_8bit": Optimizer.ADAMW_8BIT,
    "paged_adamw_8bit": Optimizer.PAGED_ADAMW_8BIT,
    "paged_adamw_32bit": Optimizer.PAGED_ADAMW,
    "adafactor": Optimizer.ADAFACTOR,
    "lion_32bit": Optimizer.LION,
    "sgd": Optimizer.SGD,
    # torchtune and DeepSpeed name classes
    "torch.optim.adamw": Optimizer.ADAMW,
    "torch.optim.adam": Optimizer.ADAMW,
    "bitsandbytes.optim.adamw8bit": Optimizer.ADAMW_8BIT,
    "bitsandbytes.optim.adam8bit": Optimizer.ADAMW_8BIT,
    "bitsandbytes.optim.pagedadamw8bit": Optimizer.PAGED_ADAMW_8BIT,
    "bitsandbytes.optim.pagedadamw": Optimizer.PAGED_ADAMW,
    "bitsandbytes.optim.pagedadamw32bit": Optimizer.PAGED_ADAMW,
    "bitsandbytes.optim.lion": Optimizer.LION,
    "bitsandbytes.optim.lion32bit": Optimizer.LION,
    "torch.optim.sgd": Optimizer.SGD,
    "adamw": Optimizer.ADAMW,
    "adam": Optimizer.ADAMW,
    # issue 27
    "adamw_torch_4bit": Optimizer.ADAMW_4BIT,
    "adamw_torch_8bit": Optimizer.ADAMW_8BIT_TORCHAO,
    "ao_adamw_8bit": Optimizer.ADAMW_8BIT_TORCHAO,
    "torchao.optim.adamw8bit": Optimizer.ADAMW_8BIT_TORCHAO,
    "rmsprop": Optimizer.RMSPROP,
    "torch.optim.rmsprop": Optimizer.RMSPROP,
    "galore_adamw": Optimizer.GALORE_ADAMW,
    "apollo_adamw": Optimizer.APOLLO_ADAMW,
    "torch.optim.muon": Optimizer.MUON,
}

#: torch AdamW's implementation an optimizer name implies (issue 25; calibration/stacks/NOTES.md section 2):
#: transformers' Trainer passes ``fused=True`` only for ``adamw_torch_fused`` and neither for ``adamw_torch``
#: (trainer_optimizer.py ``_get_adamw_torch``@5.24), so torch picks foreach on CUDA (torch/optim/adam.py@2.13
#: ``adam()`` lines 935-947), as for a bare ``torch.optim.AdamW``; apex's and the NPU's kernels are fused;
#: ``adamw_hf`` (transformers' own AdamW, a Python loop over the tensors making one temporary the size of a
#: parameter, ``optimization.py`` before v5) is costed as torch's for-loop, whose two bound it
OPTIMIZER_IMPLS: dict[str, OptimizerImpl] = {
    "adamw_torch": OptimizerImpl.FOREACH, "adamw_torch_fused": OptimizerImpl.FUSED,
    "adamw_apex_fused": OptimizerImpl.FUSED, "adamw_torch_npu_fused": OptimizerImpl.FUSED,
    "adamw_hf": OptimizerImpl.FORLOOP,
    "torch.optim.adamw": OptimizerImpl.FOREACH, "torch.optim.adam": OptimizerImpl.FOREACH,
}


def trainer_default_impl(transformers_version: str | None) -> OptimizerImpl:
    """torch AdamW's implementation under transformers' Trainer when the file names no ``optim``
    (training_args.py ``default_optim``, read at 4.30 to 5.24: calibration/stacks/NOTES.md section 2, rule 5):
    ``adamw_hf`` before 4.34 (costed as the for-loop), ``adamw_torch`` (foreach) from 4.34, ``adamw_torch_fused``
    from 4.54 (with torch >= 2.8, taken as given); None (no version stated): today's, fused."""
    if transformers_version is None:
        return OptimizerImpl.FUSED
    parts = re.findall(r"\d+", transformers_version)[:2]
    major, minor = (int(parts[0]), int(parts[1]) if len(parts) > 1 else 0) if parts else (99, 0)
    if (major, minor) < (4, 34):
        return OptimizerImpl.FORLOOP
    return OptimizerImpl.FOREACH if (major, minor) < (4, 54) else OptimizerImpl.FUSED


#: optimizers costed as a near equivalent (reported as approximations)
NEAR_OPTIMIZERS: dict[str, Optimizer] = {
    "torchao.optim.adamw4bit": Optimizer.ADAMW_4BIT,  # torchao's own block 128 (transformers passes 256)
    "ao_adamw_4bit": Optimizer.ADAMW_4BIT,
    "muon": Optimizer.MUON,  # Axolotl's own Muon (axolotl.contribs.mit.muon)
}

#: attention implementations (transformers ``attn_implementation`` and the tools' flags) -> VRAM Lab's
ATTENTION: dict[str, Attention] = {
    "eager": Attention.EAGER,
    "sdpa": Attention.SDPA,
    "flash_attention_2": Attention.FLASH,
    "flash_attention_3": Attention.FLASH,
    "flash_attn": Attention.FLASH,
    "fa2": Attention.FLASH,
    "fa3": Attention.FLASH,
    "flash": Attention.FLASH,
}

#: attention kernels that also keep no s x s score matrix, costed as SDPA's (reported as approximations)
NEAR_ATTENTION = ("xformers", "flex_attention", "kernels-community/", "sage", "paged|")

#: torch dtype spellings -> "fp32" / "bf16" / "fp16"
DTYPES = {
    "float32": "fp32", "fp32": "fp32", "torch.float32": "fp32", "float": "fp32",
    "bfloat16": "bf16", "bf16": "bf16", "torch.bfloat16": "bf16",
    "float16": "fp16", "fp16": "fp16", "torch.float16": "fp16", "half": "fp16",
}

ATTENTION_PROJ = frozenset({"q", "k", "v", "o"})
MLP_PROJ = frozenset({"gate", "up", "down"})
#: torchtune's recipes' LoRA set: q, v, the attention output and the MLP (not k; engine.specs.LoraTargets.QVO_MLP)
QVO_MLP_PROJ = frozenset({"q", "v", "o"}) | MLP_PROJ
_ALL_LINEAR_WORDS = frozenset({"all", "all-linear", "all_linear"})
#: how each projection is spelled in the tools' configs -> one letter set
_PROJ = {
    "q_proj": "q", "k_proj": "k", "v_proj": "v", "o_proj": "o", "output_proj": "o", "out_proj": "o",
    "dense": "o", "gate_proj": "gate", "up_proj": "up", "down_proj": "down", "w1": "gate", "w3": "up",
    "w2": "down", "fc1": "gateup", "fc2": "down", "fc_in": "gateup", "fc_out": "down", "qkv_proj": "qkv",
    "gate_up_proj": "gateup", "query_key_value": "qkv", "wq": "q", "wk": "k", "wv": "v", "wo": "o",
    "c_attn": "qkv", "c_proj": "odown", "c_fc": "gateup",
    # GPT-NeoX / Falcon, MPT / Replit (Axolotl's archived examples name them)
    "dense_h_to_4h": "gateup", "dense_4h_to_h": "down", "Wqkv": "qkv", "mlp_up": "gateup", "mlp_down": "down",
}
_REGEX_ALTERNATION = re.compile(r"\(([^()]*)\)_proj")


def target_parts(names: Iterable[str]) -> tuple[frozenset[str], list[str]]:
    """The projections a list of module names adapts, and the names that are not projections of a block.

    Fused projections count as their parts (``qkv_proj`` is q, k and v; ``gate_up_proj`` gate and up); a plain
    MLP's input projection (``fc1``, ``c_fc``) counts as gate and up, and GPT-2's ``c_proj`` as both outputs. A regular
    expression such as ``.*layers.[\\d]+.(mlp|self_attn).(up|down|gate|q|k|v|o)_proj`` adapts the projections its
    alternation names.
    """
    parts: set[str] = set()
    unknown: list[str] = []
    for name in names:
        leaf = str(name).strip()
        groups = _REGEX_ALTERNATION.findall(leaf)
        if groups:
            parts |= {_PROJ.get(f"{p}_proj", p) for group in groups for p in group.split("|")}
            continue
        short = _PROJ.get(leaf.rsplit(".", 1)[-1])
        if short is None:
            unknown.append(leaf)
        else:
            parts.add(short)
    if "qkv" in parts:
        parts |= {"q", "k", "v"}
    if "gateup" in parts:
        parts |= {"gate", "up"}
    if "odown" in parts:  # GPT-2's c_proj names both the attention output and the MLP output
        parts |= {"o", "down"}
    return frozenset(parts - {"qkv", "gateup", "odown"}), unknown


def targets_of(parts: frozenset[str]) -> tuple[LoraTargets, bool] | None:
    """The smallest of VRAM Lab's target sets (qv, attention, qvo-mlp, all-linear) holding ``parts``, and whether
    it is exact; None when no projection is named."""
    if not parts:
        return None
    if parts == {"q", "v"}:
        return LoraTargets.QV, True
    if parts <= {"q", "v"}:
        return LoraTargets.QV, False
    if parts <= ATTENTION_PROJ:
        return LoraTargets.ATTENTION, parts == ATTENTION_PROJ
    if parts <= QVO_MLP_PROJ and parts & MLP_PROJ and parts - MLP_PROJ:  # torchtune's q, v, output_proj, MLP
        return LoraTargets.QVO_MLP, parts == QVO_MLP_PROJ
    return LoraTargets.ALL_LINEAR, parts == ATTENTION_PROJ | MLP_PROJ


def is_all_linear(value: object) -> bool:
    """Whether a target value is one of the "every linear layer" spellings."""
    return isinstance(value, str) and value.strip().lower() in _ALL_LINEAR_WORDS


def split_names(value: object) -> list[str]:
    """A target list given as a YAML list or as a comma-separated string."""
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value if str(v).strip()]
    return [p.strip() for p in str(value).split(",") if p.strip()]


def optimizer_key(name: str) -> str:
    """The table key of an optimizer name: lower case, without spaces."""
    return name.strip().lower()


def dtype_of(value: object) -> str | None:
    """"fp32" / "bf16" / "fp16" for a dtype spelling, None for anything else ("auto" included)."""
    return DTYPES.get(str(value).strip().lower()) if value is not None else None


def attention_of(value: str) -> tuple[Attention, bool] | None:
    """VRAM Lab's attention for an implementation name, and whether it is exact; None when unknown."""
    key = value.strip().lower()
    if key in ATTENTION:
        return ATTENTION[key], True
    if "flash" in key:  # flash-attn 3 or a hub kernel of it: flash-attn's memory
        return Attention.FLASH, False
    if key.startswith(NEAR_ATTENTION):
        return Attention.SDPA, False
    return None
