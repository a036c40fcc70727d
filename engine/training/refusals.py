"""Issue 27's options a model cannot take as the engine costs them: refused by name, before a plan is built.

The rules that need only the setup are ``engine.specs.TrainingSetup``'s; these need the model too:

* an 8-bit base (``lora-8bit``) on a mixture of experts or MLA: bitsandbytes' ``Linear8bitLt`` on each expert's
  or latent projection saves inputs the engine's LoRA rules do not follow (``engine.training.saved``);
* Adam-mini (adam-mini 1.1.1 ``Adam_mini.step``) views q and k as ``(-1, dim * dim / n_heads)``: a model whose
  q or k weight that width does not divide, whose q, k and v are one fused projection, which has MLA's latent
  projections (their names match none of Adam-mini's groups) or fused 3-D experts (a ``(E, out, in)`` tensor
  fails its per-row view) is refused;
* DoRA where PEFT 0.21.2 adapts expert or router parameters (``ParamWrapper``, which has no DoRA variant);
* issue 27's options that meet a token mixer other than softmax attention (gated DeltaNet, KDA, Mamba-1 / -2, the
  short convolution: ``engine.specs.Mixer``), none of them traced on one: an 8-bit base (the mixers' fused kernels
  take the projections' weights themselves, not through ``Linear8bitLt``), DoRA and OFT (their saved tensors and
  temporaries on the mixers' projections), Muon where the layers train in full (the convolution's 3-D weight and
  Mamba's 2-D ``A_log`` are no decoder matrix its recipe names; LoRA's factors are matrices), GaLore and APOLLO
  (``optim_target_modules`` ``["attn", "mlp"]`` matches a mixer's module names in some families only:
  ``linear_attn`` does, ``mixer`` / ``mamba`` / ``conv`` do not) and Adam-mini (its parameter groups are named
  after attention's and the MLP's).
"""

from __future__ import annotations

from engine.layers import runs
from engine.params import attention_linears, lora_targets
from engine.specs import LORA_METHODS, ExpertStorage, Method, ModelSpec, Optimizer, SavedModule, TrainingSetup


class OptionError(ValueError):
    """An option the model cannot take as the engine costs it (module docstring)."""


def _adam_mini(m: ModelSpec) -> str | None:
    head_numel = m.hidden_size * m.hidden_size // m.num_heads
    for r in runs(m):
        if r.attention is None:
            continue
        if r.attention.mla is not None:
            return "MLA's latent projections match none of its parameter groups"
        if r.mlp is not None and r.mlp.moe is not None and r.mlp.moe.storage is ExpertStorage.FUSED:
            return "its fused 3-D expert tensors fail its per-row view"
        for x in attention_linears(r.attention, m.hidden_size):
            if x.role == "qkv":
                return "its fused qkv projection matches none of its parameter groups"
            if x.role in ("q", "k") and (x.n_in * x.n_out) % head_numel:
                return f"its {x.role} weight ({x.n_out} x {x.n_in}) is no multiple of dim x dim / heads ({head_numel})"
    return None


#: issue 27's optimizers not costed on a model with token mixers (module docstring)
MIXER_OPTIMIZERS = frozenset({Optimizer.MUON, Optimizer.GALORE_ADAMW, Optimizer.APOLLO_ADAMW, Optimizer.ADAM_MINI})


def _mixer_option(m: ModelSpec, s: TrainingSetup) -> str | None:
    """The option of ``s`` not costed on ``m``'s token mixers (module docstring), or None."""
    mixers = sorted({r.mixer.kind for r in runs(m) if r.mixer is not None})
    if not mixers:
        return None
    lora_muon = s.optimizer is Optimizer.MUON and s.method in LORA_METHODS
    option = ("lora-8bit" if s.method is Method.LORA_8BIT else "oft" if s.method is Method.OFT
              else "dora" if s.dora else s.optimizer.value if s.optimizer in MIXER_OPTIMIZERS and not lora_muon
              else None)
    if option is None:
        return None
    return f"{option} on {m.label}: not costed on its {', '.join(mixers)} layers (not traced there)"


def check(m: ModelSpec, s: TrainingSetup) -> None:
    """Raise :class:`OptionError` naming why ``m`` cannot take an option of ``s`` (module docstring)."""
    if (why := _mixer_option(m, s)) is not None:
        raise OptionError(why)
    if s.method is Method.LORA_8BIT and any((r.mlp is not None and r.mlp.moe is not None)
                                            or (r.attention is not None and r.attention.mla is not None)
                                            for r in runs(m)):
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
