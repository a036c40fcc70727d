"""Issue 27's optimizers against their libraries' own steps, traced on fake tensors (calibration/options.py):
one matrix's states and step temporaries (calibration/optimizer_steps.jsonl), byte for byte, and the rules'
hand-derived values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.catalog import get_model
from engine.params import count_params, lora_params
from engine.specs import LoraTargets, Method, Optimizer, Precision, Sharding, TrainingSetup
from engine.training.context import model_states
from engine.training.optimizers import low_rank_matrix, optimizer_bytes
from engine.training.precision import dtype_plan
from engine.training.states import per_tensor_bytes
from engine.training.tensors import Tensor, full_tensors, lora_tensors, trained_tensors

STEPS = [json.loads(line) for line in (Path(__file__).parents[3] / "calibration" / "optimizer_steps.jsonl")
         .read_text().splitlines() if line]
BYTES = {"bfloat16": 2, "float32": 4}


def _args(text: str | None) -> dict[str, int]:
    return {k: int(v) for k, v in (kv.split("=") for kv in text.split(","))} if text else {}


def _id(r: dict[str, Any]) -> str:
    return f"{r['optimizer']}-{r['optim_args'] or ''}-{'x'.join(map(str, r['shape']))}-{r['dtype']}"


@pytest.mark.parametrize("r", STEPS, ids=_id)
def test_one_matrix_as_traced(r: dict[str, Any]) -> None:
    opt, (m, n), g = Optimizer(r["optimizer"]), r["shape"], BYTES[r["dtype"]]
    args = _args(r["optim_args"])
    rank = args.get("rank", 128)
    if opt in (Optimizer.GALORE_ADAMW, Optimizer.APOLLO_ADAMW):
        held, refresh, update = low_rank_matrix(opt, (m, n), g, g, rank)
        assert r["states"] == held
        # the step after the first: a new projector when the gap is 1, else only the update
        assert r["step2_extra"] == (max(refresh, update) if args.get("update_proj_gap") == 1 else update)
        return
    got = optimizer_bytes(opt, (Tensor("linear", (m, n)),), g, g, rank=rank, heads=1, hidden=n)
    assert r["states"] == got.states
    assert r["step2_extra"] == got.step_temporaries


def test_the_traced_file_covers_every_shape() -> None:
    assert len(STEPS) == 48


def test_tensors_add_up_to_the_counts() -> None:
    for name in ("llama-3.2-1b", "qwen3-30b-a3b", "gpt2", "deepseek-v3", "gemma-2-2b"):
        m = get_model(name)
        assert sum(t.total for t in full_tensors(m)) == count_params(m).total
        for targets in LoraTargets:
            assert sum(t.total for t in lora_tensors(m, 8, targets)) == lora_params(m, 8, targets)


def test_torchao_4bit_by_hand() -> None:
    """A 2048 x 2048 weight: two states of 0.5 byte a value plus an fp32 scale per 256 and a 16-entry map, and a
    4-step counter; a 2048 norm (under 4,096 values) keeps two bf16 states. The compiled step holds 26 bytes and a
    scale per 256 of the weight's values (uint8 codes, fp32 state, int64 codes, per state)."""
    n = 2048 * 2048
    got = optimizer_bytes(Optimizer.ADAMW_4BIT, (Tensor("linear", (2048, 2048)), Tensor("norm", (2048,))), 2, 2,
                          rank=128, heads=16, hidden=2048)
    assert got.states == 2 * (n // 2 + 4 * n // 256 + 64) + 4 + 2 * 2048 * 2 + 4
    assert got.step_temporaries == 26 * n + 8 * n // 256


def test_a_full_llama_with_4bit_adamw() -> None:
    m = get_model("llama-3.2-1b")
    s = TrainingSetup(optimizer=Optimizer.ADAMW_4BIT, precision=Precision.BF16)
    got = per_tensor_bytes(m, s, dtype_plan(s.precision))
    assert got.states == 1_274_649_288  # the traced op-llama-3.2-1b_full_bf16_b1_s512 run's optimizer states
    table = 128_256 * 2048
    assert got.step_temporaries == 26 * table + 8 * table // 256  # the embedding, the largest tensor


def test_muon_puts_what_is_no_matrix_on_adamw() -> None:
    m = get_model("llama-3.2-1b")
    s = TrainingSetup(optimizer=Optimizer.MUON, precision=Precision.BF16)
    tensors = trained_tensors(m, s)
    matrices = sum(t.total for t in tensors if t.matrix)
    rest = sum(t.total for t in tensors if not t.matrix)
    assert per_tensor_bytes(m, s, dtype_plan(s.precision)).states == 2 * matrices + 2 * 2 * rest


def test_rmsprop_keeps_one_state_and_its_foreach_square_root() -> None:
    m = get_model("llama-3.2-1b")
    s = TrainingSetup(optimizer=Optimizer.RMSPROP, precision=Precision.BF16)
    got = per_tensor_bytes(m, s, dtype_plan(s.precision))
    tensors = 1 + 16 * (7 + 2) + 1  # the tied table, 16 layers of 7 linears and 2 norms, the final norm
    assert got.states == 2 * count_params(m).total + 4 * tensors  # square_avg and an fp32 step per tensor
    assert got.step_temporaries == 2 * count_params(m).total  # foreach sqrt of every square_avg at once


@pytest.mark.parametrize("opt", [Optimizer.ADAMW_4BIT, Optimizer.MUON, Optimizer.GALORE_ADAMW])
def test_sharded_per_tensor_optimizers_are_refused(opt: Optimizer) -> None:
    with pytest.raises(ValueError, match="ZeRO"):
        TrainingSetup(optimizer=opt, gpus=2, sharding=Sharding.ZERO2)


@pytest.mark.parametrize("opt", [Optimizer.GALORE_ADAMW, Optimizer.APOLLO_ADAMW, Optimizer.ADAM_MINI])
def test_full_weight_optimizers_need_full_fine_tuning(opt: Optimizer) -> None:
    with pytest.raises(ValueError, match="method full"):
        TrainingSetup(optimizer=opt, method=Method.LORA)


@pytest.mark.parametrize("opt", [Optimizer.ADAMW_4BIT, Optimizer.ADAMW_8BIT_TORCHAO])
def test_torchao_under_fsdp2_steps_each_shard(opt: Optimizer) -> None:
    """ZeRO-3 as FSDP2 runs it: each state made from the DTensor's local shard (torchao ``_new_buffer``), one
    GPU's states and step temporaries the whole model's over the shard group."""
    m = get_model("llama-3.2-1b")
    one = model_states(m, TrainingSetup(optimizer=opt, precision=Precision.BF16))
    eight = model_states(m, TrainingSetup(optimizer=opt, precision=Precision.BF16, gpus=8, sharding=Sharding.ZERO3))
    assert eight.optimizer_states == -(-one.optimizer_states // 8)
    assert eight.step_temporaries == -(-one.step_temporaries // 8)
    with pytest.raises(ValueError, match="ZeRO-1/2"):
        TrainingSetup(optimizer=opt, gpus=8, sharding=Sharding.ZERO2)
