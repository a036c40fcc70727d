"""``python -m engine estimate``: per-GPU training memory (the scripting contract of issue 3).

Flag names and JSON keys are a stable contract: scripts rely on them. The setup flags are
``engine.commands.setup_flags`` (shared with six other commands), the output ``engine.commands.estimate_output``;
``--from-config`` is ``engine.commands.imported``.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.allocator.total import with_device_total
from engine.catalog import get_gpu
from engine.commands.estimate_output import to_json, to_text
from engine.commands.explicit import track_explicit
from engine.commands.host_report import add_host_arguments, host_from_args
from engine.commands.setup_flags import add_setup_arguments, resolve_model, setup_from_args
from engine.commands.time_report import add_time_arguments, check_time_arguments, time_json, time_text
from engine.training import estimate


def register(sub: Any) -> None:
    p = sub.add_parser("estimate", help="per-GPU peak memory of one fine-tuning step")
    track_explicit(p)  # flags typed by the user override --from-config files
    add_setup_arguments(p)
    p.add_argument("--from-config", action="append", metavar="FILE",
                   help="an Axolotl, LLaMA-Factory, torchtune, TRL, DeepSpeed or accelerate config (repeatable)")
    add_host_arguments(p)
    add_time_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    check_time_arguments(args)
    if getattr(args, "from_config", None):
        from engine.commands.imported import run_imported  # the config importers (and PyYAML) only when asked

        return run_imported(args)
    model = resolve_model(args.model, args.config)
    setup = setup_from_args(args).with_(host=host_from_args(args))
    gpu = get_gpu(args.gpu)
    e = with_device_total(estimate(model, setup, gpu))  # the allocator's replay (issue 26)
    data = to_json(e)
    data["time"] = time_json(model, setup, gpu, args.epochs, args.price_per_gpu_hour)
    return data, "\n".join([to_text(e), *time_text(data["time"])])
