"""``python -m engine lessons``: the course's lessons, and a lesson's goal checked against a setup.

* ``lessons [--json]``: every lesson in course order, ``{"lessons": [{"id", "title": {"en", "zh_TW"}, "page",
  "goal"}]}`` (``goal`` is the lesson file's predicate);
* ``lessons --show ID [--json]``: one lesson in full, with its start and its solution as this command's flags;
* ``lessons --check ID [flags] [--json]``: ``{"passed": bool, "why": one sentence}``, checked by
  ``Lesson.check``, the same function the GUI calls; ``--lang zh_TW`` answers in Traditional Chinese. Like
  ``ruff check`` or ``sha256sum --check``, it exits 1 when the goal is not met (0 when it is, 2 on bad input), the
  answer printed either way.

The flags are ``estimate``'s (model, setup, GPU), ``kv-cache``'s serving flags plus the rest of the serving page's
settings, ``alignment``'s variants, and ``--step`` for the attention page's step. **A flag not given takes that
command's default, never the lesson's start**: the seed's Llama 2 7B, full fine-tuning, bf16 mixed, AdamW, 4,096
tokens x 1 on an A100 80GB, the serving defaults (4,096 tokens, 1 sequence, fp16 KV cache, bf16 weights, one
GPU), the alignment defaults, step ``x``. So the same flags describe the same setup in every command, and
``lessons --check fit-7b-24gb --model llama-2-7b --gpu rtx-4090`` checks exactly what ``estimate`` with those
flags prints. ``--show`` gives the start as flags to copy.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from engine.attention_sizes import StepKey
from engine.catalog import DEFAULT_GPU, DEFAULT_MODEL, get_gpu
from engine.commands.alignment import add_alignment_arguments, options_from_args
from engine.commands.kv_cache import add_serving_arguments, serving_setup_from_args
from engine.commands.setup_flags import add_setup_arguments, resolve_model, setup_from_args
from engine.lessons import Lang, Lesson, Situation, get_lesson, lessons


def register(sub: Any) -> None:
    p = sub.add_parser("lessons", help="the course's lessons; check a lesson's goal against a setup")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--check", metavar="ID", help="check lesson ID's goal against the setup the flags describe")
    which.add_argument("--show", metavar="ID", help="one lesson in full, with its start and solution as flags")
    p.add_argument("--lang", choices=[x.value for x in Lang], default=Lang.EN.value, help="language of the texts")
    add_setup_arguments(p)
    add_serving_arguments(p, tp_flag="--serving-tp")  # --tp is the training layout's
    add_alignment_arguments(p)
    p.add_argument("--step", type=StepKey, choices=list(StepKey), default=StepKey.X,
                   help="the attention page's step (default x)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def situation_from_args(a: argparse.Namespace) -> Situation:
    """The situation the flags describe, unspecified flags at the commands' defaults (module docstring)."""
    return Situation(model=resolve_model(a.model, a.config), gpu=get_gpu(a.gpu), setup=setup_from_args(a),
                     serving=serving_setup_from_args(a), alignment=options_from_args(a), attention_step=a.step)


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    lang = Lang(args.lang)
    if args.check:
        lesson = get_lesson(args.check)
        result = lesson.check(situation_from_args(args))
        why = result.why.get(lang)
        args.exit_status = 0 if result.passed else 1
        return {"passed": result.passed, "why": why}, f"{'passed' if result.passed else 'not yet'}: {why}"
    if args.show:
        return _show(get_lesson(args.show), lang)
    listed = [_summary(x) for x in lessons()]
    text = "\n".join(f"{x.order:>4}  {x.id:<26} {x.page.value:<10} {x.title.get(lang)}" for x in lessons())
    return {"lessons": listed}, text


def _summary(lesson: Lesson) -> dict[str, Any]:
    data = lesson.model_dump(mode="json", exclude_unset=True)
    return {"id": lesson.id, "title": lesson.title.as_dict(), "page": lesson.page.value, "goal": data["goal"]}


def _show(lesson: Lesson, lang: Lang) -> tuple[dict[str, Any], str]:
    data = lesson.model_dump(mode="json", exclude_unset=True)
    start, solution = lesson.start_situation(), lesson.solution_situation()
    data["start_flags"] = situation_flags(start)
    data["solution_flags"] = situation_flags(solution)
    lines = [
        f"{lesson.title.get(lang)}  ({lesson.id}, {lesson.page.value} page)", "", lesson.text.get(lang), "",
        "start:    " + " ".join(data["start_flags"]),
        "goal:     " + json.dumps(data["goal"], ensure_ascii=False),
        *(f"hint {i}:   {h.get(lang)}" for i, h in enumerate(lesson.hints, start=1)),
        "solution: " + " ".join(data["solution_flags"]), "", lesson.explanation.text.get(lang),
        *(f"  - {f.text.get(lang)} ({f.source})" for f in lesson.explanation.facts),
    ]
    return data, "\n".join(lines)


# -- a situation as flags: the inverse of situation_from_args ---------------------------------------------------
_SETUP = {"method": "--method", "precision": "--precision", "optimizer": "--optimizer", "batch": "--batch",
          "seq_len": "--seq-len", "grad_accum": "--grad-accum", "attention": "--attention",
          "checkpointing": "--checkpointing", "gpus": "--gpus", "sharding": "--sharding", "loss": "--loss",
          "loss_chunks": "--loss-chunks", "stack": "--stack", "optimizer_impl": "--optimizer-impl",
          "fsdp_version": "--fsdp-version"}
_LORA = {"rank": "--lora-rank", "alpha": "--lora-alpha", "dropout": "--lora-dropout", "targets": "--lora-targets"}
_SERVING = {"tokens": "--tokens", "sequences": "--sequences", "kv_dtype": "--dtype", "weight_dtype": "--weight-dtype",
            "tp": "--serving-tp", "gpu_memory_utilization": "--gpu-memory-utilization",
            "max_num_batched_tokens": "--max-num-batched-tokens", "max_num_seqs": "--max-num-seqs",
            "vllm_version": "--vllm-version", "vllm_engine": "--vllm-engine"}
_ALIGNMENT = {"grpo_kl_coef": "--grpo-kl", "rollout_share": "--rollout-share"}
_PARALLEL = {"tp": "--tp", "pp": "--pp", "cp": "--cp", "ep": "--ep", "etp": "--etp", "micro_batches": "--micro-batches",
             "schedule": "--pp-schedule", "virtual_stages": "--virtual-stages", "pp_layers": "--pp-layers"}
#: yes/no settings whose flag is given when the value is the one named here
_SWITCHES = {("setup", "offload_optimizer", True): "--offload-optimizer",
             ("setup", "offload_params", True): "--offload-params",
             ("setup", "activation_offload", True): "--activation-offload",
             ("quant", "double_quant", False): "--no-double-quant",
             ("alignment", "reference_shares_base", False): "--separate-reference",
             ("alignment", "dpo_precomputed_reference", True): "--dpo-precomputed-reference",
             ("alignment", "grpo_reward_model", True): "--grpo-reward-model",
             ("parallel", "sequence_parallel", True): "--sequence-parallel",
             ("serving", "enforce_eager", True): "--enforce-eager"}


def _flag_value(value: Any) -> str:
    """As typed on a command line: an enum's value, ``0.05`` rather than ``0.050000``, ``16`` rather than ``16.0``."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, tuple):  # layers per pipeline stage
        return ",".join(str(v) for v in value)
    return str(getattr(value, "value", value))


def situation_flags(s: Situation) -> list[str]:
    """The flags that make :func:`situation_from_args` build ``s`` (only those that differ from the defaults).

    ``ValueError`` for a setting no flag reaches (QLoRA's block size, 16-bit embeddings, an imported model)."""
    d = Situation.default()
    flags: list[str] = []
    if s.model.id != DEFAULT_MODEL:
        flags += ["--model", s.model.id]
    if s.gpu.id != DEFAULT_GPU:
        flags += ["--gpu", s.gpu.id]
    groups: list[tuple[str, Any, Any, dict[str, str]]] = [
        ("setup", s.setup, d.setup, _SETUP), ("lora", s.setup.lora, d.setup.lora, _LORA),
        ("quant", s.setup.quant, d.setup.quant, {"quant_type": "--quant"}),
        ("parallel", s.setup.parallel, d.setup.parallel, _PARALLEL),
        ("serving", s.serving, d.serving, _SERVING), ("alignment", s.alignment, d.alignment, _ALIGNMENT)]
    for group, now, default, valued in groups:
        for name in type(now).model_fields:
            value, was = getattr(now, name), getattr(default, name)
            if value == was or name in ("lora", "quant", "parallel"):
                continue
            if name in valued:
                flags += [valued[name], _flag_value(value)]
            elif (group, name, value) in _SWITCHES:
                flags.append(_SWITCHES[(group, name, value)])
            else:
                raise ValueError(f"{group}.{name}: no command-line flag sets it")
    if s.attention_step is not d.attention_step:
        flags += ["--step", s.attention_step.value]
    return flags
