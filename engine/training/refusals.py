"""Issue 27's options a model cannot take as the engine costs them: refused by name, before a plan is built.

The rules that need only the setup are ``engine.specs.TrainingSetup``'s; these need the model too:

* an 8-bit base (``lora-8bit``) on a mixture of experts or MLA: bitsandbytes' ``Linear8bitLt`` on each expert's
  or latent projection saves inputs the engine's LoRA rules do not follow (``engine.training.saved``);
* Adam-mini (adam-mini 1.1.1 ``Adam_mini.step``) views q and k as ``(-1, dim * dim / n_heads)``: a model whose
  q or k weight that width does not divide, whose q, k and v are one fused projection, which has MLA's latent
  projections (their names match none of Adam-mini's groups) or fused 3-D experts (a ``(E, out, in)`` tensor
  fails its per-row view) is refused;
* DoRA where PEFT 0.21.2 adapts expert or router parameters (``ParamWrapper``, which has no DoRA variant).
"""

from __future__ import annotations

from engine.layers import runs
from engine.params import attention_linears, lora_targets
from engine.specs import ExpertStorage, Method, ModelSpec, Optimizer, SavedModule, TrainingSetup


class OptionError(ValueError):
    """An option the model cannot take as the engine costs it (module docstring)."""


def _adam_mini(m: ModelSpec) -> str | None:
    head_numel = m.hidden_size * m.hidden_size // m.num_heads
    for r in runs(m):
        if r.attention.mla is not None:
            return "MLA's latent projections match none of its parameter groups"
        if r.mlp.moe is not None and r.mlp.moe.storage is ExpertStorage.FUSED:
            return "its fused 3-D expert tensors fail its per-row view"
        for x in attention_linears(r.attention, m.hidden_size):
            if x.role == "qkv":
                return "its fused qkv projection matches none of its parameter groups"
            if x.role in ("q", "k") and (x.n_in * x.n_out) % head_numel:
                return f"its {x.role} weight ({x.n_out} x {x.n_in}) is no multiple of dim x dim / heads ({head_numel})"
    return None


def check(m: ModelSpec, s: TrainingSetup) -> None:
    """Raise :class:`OptionError` naming why ``m`` cannot take an option of ``s`` (module docstring)."""
    if s.method is Method.LORA_8BIT and any(r.mlp.moe is not None or r.attention.mla is not None for r in runs(m)):
        raise OptionError(f"lora-8bit on {m.label}: bitsandbytes' 8-bit linears on experts or MLA projections are "
                          "not costed")
    if s.optimizer is Optimizer.ADAM_MINI and (why := _adam_mini(m)) is not None:
        raise OptionError(f"adam-mini on {m.label}: {why}")
    if s.method is Method.OFT:
        b = s.oft_block_size
        for r in runs(m):
            for x in lora_targets(m, r, s.lora.targets):
                if x.n_in % b or x.role.startswith("experts_") or x.role == "router":
                    raise OptionError(f"oft on {m.label}: its {x.role} projection ({x.n_in} inputs) is no whole "
                                      f"number of {b}-wide blocks, or no nn.Linear")
    if SavedModule.LM_HEAD in s.modules_to_save and m.tie_embeddings:
        raise OptionError(f"modules_to_save lm_head on {m.label}: its output layer is the token table (tied), which "
                          "PEFT's tied-module handling copies as it chooses: not costed; save embed_tokens")
    if s.trainable_tokens > m.vocab_size:
        raise OptionError(f"trainable_tokens ({s.trainable_tokens:,}) exceeds {m.label}'s vocabulary "
                          f"({m.vocab_size:,})")
    if s.dora and any(x.role.startswith("experts_") or x.role == "router"
                      for r in runs(m) for x in lora_targets(m, r, s.lora.targets)):
        raise OptionError(f"dora on {m.label}: PEFT's ParamWrapper (LoRA on expert and router parameters) has no "
                          "DoRA")
