"""``python -m engine alignment``: per stage (SFT, DPO, PPO, GRPO), the models it holds and its per-GPU total.

Takes the ``estimate`` command's model, setup and GPU flags, plus the variants that change the count.
JSON keys: ``stages[].stage``, ``.models``, ``.roles[]`` (``role``, ``mode``: trained | frozen | rule,
``holding``, ``bytes``, ``resident``, ``transient``), ``.allocated_bytes``, ``.device_bytes``, ``.fits``.
With RL settings (``--num-generations``, ``--max-prompt-length``, ``--max-completion-length``,
``--rollout-engine``) PPO and GRPO also carry ``.rollout`` (``engine``, ``num_generations``,
``max_prompt_length``, ``max_completion_length``, ``train_sequences``, ``generate_sequences``,
``vllm_gpu_memory_utilization``, ``kv_cache_bytes``, ``elsewhere_bytes``), and a role on other GPUs its
``elsewhere`` bytes; without them the output is what it was before those settings existed.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.alignment import (
    FACTS,
    FLOWS,
    AlignmentOptions,
    Holding,
    Role,
    RoleCost,
    RolloutEngine,
    Stage,
    StageMemory,
    stage_memory,
)
from engine.alignment.rollout import kv_bytes
from engine.catalog import get_gpu
from engine.commands.setup_flags import add_setup_arguments, resolve_model, setup_from_args
from engine.units import Unit, format_bytes


def register(sub: Any) -> None:
    p = sub.add_parser("alignment", help="models held in memory by SFT, DPO, PPO and GRPO, and their bytes")
    add_setup_arguments(p)
    p.add_argument("--stage", choices=[s.value for s in Stage], action="append", help="only these (repeatable)")
    add_alignment_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def add_alignment_arguments(p: argparse.ArgumentParser) -> None:
    """The variants that change how many models are held (``AlignmentOptions``), shared with ``lessons``."""
    d = AlignmentOptions()
    p.add_argument("--separate-reference", action="store_true",
                   help="LoRA / QLoRA: load the reference as its own copy instead of the base with adapters off")
    p.add_argument("--dpo-precomputed-reference", action="store_true",
                   help="DPO: reference log-probabilities computed before training (no reference in memory)")
    p.add_argument("--grpo-kl", type=float, default=d.grpo_kl_coef, help="GRPO KL coefficient (0: no reference)")
    p.add_argument("--grpo-reward-model", action="store_true", help="GRPO: a reward model instead of a rule")
    p.add_argument("--rollout-share", "--vllm-gpu-memory-utilization", dest="rollout_share", type=float,
                   default=d.rollout_share, metavar="U",
                   help="share of each GPU a colocated vLLM reserves, weights included (0: none)")
    p.add_argument("--num-generations", type=int, default=None, metavar="G",
                   help="GRPO: completions per prompt (TRL default 8); PPO samples one")
    p.add_argument("--max-prompt-length", type=int, default=None, metavar="P", help="prompt tokens (default 512)")
    p.add_argument("--max-completion-length", type=int, default=None, metavar="C",
                   help="completion tokens (TRL default 512)")
    p.add_argument("--rollout-engine", choices=[e.value for e in RolloutEngine], default=None,
                   help="how completions are sampled (default: vllm-colocate with a share, else hf-generate)")


def options_from_args(a: argparse.Namespace) -> AlignmentOptions:
    return AlignmentOptions(
        reference_shares_base=not a.separate_reference,
        dpo_precomputed_reference=a.dpo_precomputed_reference,
        grpo_kl_coef=a.grpo_kl,
        grpo_reward_model=a.grpo_reward_model,
        rollout_share=a.rollout_share,
        num_generations=a.num_generations,
        max_prompt_length=a.max_prompt_length,
        max_completion_length=a.max_completion_length,
        rollout_engine=None if a.rollout_engine is None else RolloutEngine(a.rollout_engine),
    )


def _role(r: RoleCost) -> dict[str, Any]:
    data: dict[str, Any] = {"role": r.role.value, "mode": r.mode.value, "holding": r.holding.value, "bytes": r.bytes,
            "resident": r.resident, "transient": r.transient, "note": r.note}
    if r.elsewhere:
        data["elsewhere"] = r.elsewhere
    return data


def rollout_json(sm: StageMemory) -> dict[str, Any]:
    """The RL step's shape and the rollout engine's needs (``engine.alignment.rollout``)."""
    rs = sm.rollout
    policy = next(r.estimate for r in sm.roles if r.role is Role.POLICY)
    assert rs is not None
    assert policy is not None
    kv = kv_bytes(policy.model, policy.setup, rs.generate_sequences, rs.seq_len)
    return {"engine": rs.engine.value, "num_generations": rs.generations, "max_prompt_length": rs.prompt,
            "max_completion_length": rs.completion, "train_sequences": rs.train_sequences,
            "generate_sequences": rs.generate_sequences, "logits_to_keep": rs.logits_to_keep,
            "vllm_gpu_memory_utilization": rs.gpu_memory_utilization,
            "kv_cache_bytes": kv, "elsewhere_bytes": sm.elsewhere_bytes}


def stage_json(sm: StageMemory) -> dict[str, Any]:
    data: dict[str, Any] = {
        "stage": sm.stage.value,
        "models": sm.models,
        "weight_copies": sm.weight_copies,
        "roles": [_role(r) for r in sm.roles],
        "allocated_bytes": sm.allocated_bytes,
        "sum_bytes": sm.sum_bytes,
        "rollout_bytes": sm.rollout_bytes,
        "device_bytes": sm.device_bytes,
        "gpu_memory_bytes": sm.gpu.memory_bytes,
        "fits": sm.fits,
        "facts": [{"text": f.text, "context": f.context, "source": f.source} for f in FACTS[sm.stage]],
        "flows": [{"from": f.source, "to": f.target, "what": f.label} for f in FLOWS[sm.stage]],
    }
    if sm.rollout is not None:
        data["rollout"] = rollout_json(sm)
    return data


def stage_text(sm: StageMemory) -> str:
    u = Unit.GB
    lines = [f"{sm.stage.value.upper()}: {sm.models} model(s), per GPU "
             f"{format_bytes(sm.device_bytes, u)} of {sm.gpu.name}: " + ("fits" if sm.fits else "does not fit")]
    for r in sm.roles:
        size = format_bytes(r.bytes, u) if r.bytes or r.holding is Holding.OWN else "none"
        lines.append(f"  {r.role.value:<10} {r.mode.value:<8} {r.holding.value:<12} {size:>12}"
                     + (f"  ({r.note})" if r.note else "")
                     + (f"  (on its own GPUs: {format_bytes(sum(r.elsewhere.values()), u)})" if r.elsewhere else ""))
    rs = sm.rollout
    if rs is not None:
        lines.append(f"  rollout: {rs.engine.value}, {rs.generations} x ({rs.prompt:,} + {rs.completion:,}) tokens "
                     f"per prompt; trains on {rs.train_sequences}, samples {rs.generate_sequences} at once")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    model = resolve_model(args.model, args.config)
    setup = setup_from_args(args)
    gpu = get_gpu(args.gpu)
    options = options_from_args(args)
    chosen = set(args.stage or [s.value for s in Stage])
    result = [stage_memory(s, model, setup, gpu, options) for s in Stage if s.value in chosen]
    data = {"model": model.id, "gpu": gpu.id, "setup": setup.as_json(),
            "options": options.model_dump(mode="json", exclude_none=True), "stages": [stage_json(s) for s in result]}
    return data, "\n".join(stage_text(s) for s in result)
