"""``python -m engine alignment``: GRPO / PPO's RL flags and their JSON (issue 19)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.cli import main

RL = ("--model", "qwen2.5-7b", "--method", "lora", "--checkpointing", "full", "--gpu", "h100-80gb",
      "--max-completion-length", "1024", "--rollout-engine", "vllm-colocate", "--vllm-gpu-memory-utilization", "0.3")


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["alignment", *argv, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_without_rl_flags_the_json_has_no_new_keys(capsys: pytest.CaptureFixture[str]) -> None:
    d = _json(capsys)
    assert set(d["options"]) == {"reference_shares_base", "dpo_precomputed_reference", "grpo_kl_coef",
                                 "grpo_reward_model", "rollout_share"}
    for stage in d["stages"]:
        assert "rollout" not in stage
        assert all("elsewhere" not in r for r in stage["roles"])


def test_grpo_rollout_fields(capsys: pytest.CaptureFixture[str]) -> None:
    d = _json(capsys, *RL, "--num-generations", "16", "--stage", "grpo")
    rollout = d["stages"][0]["rollout"]
    assert rollout == {**rollout, "engine": "vllm-colocate", "num_generations": 16, "max_prompt_length": 512,
                       "max_completion_length": 1024, "train_sequences": 16, "generate_sequences": 16,
                       "logits_to_keep": 1025, "vllm_gpu_memory_utilization": 0.3, "elsewhere_bytes": 0}
    assert rollout["kv_cache_bytes"] == 16 * 1536 * 2 * 28 * 4 * 128 * 2
    assert d["options"]["num_generations"] == 16


def test_ppo_gets_the_rollout_too_and_a_server_shows_elsewhere(capsys: pytest.CaptureFixture[str]) -> None:
    d = _json(capsys, *RL[:-4], "--rollout-engine", "vllm-server", "--stage", "ppo")
    ppo = d["stages"][0]
    assert ppo["rollout"]["num_generations"] == 1
    server = next(r for r in ppo["roles"] if r["role"] == "rollout")
    assert server["holding"] == "server"
    assert server["bytes"] == 0
    assert sum(server["elsewhere"].values()) == ppo["rollout"]["elsewhere_bytes"] > 0


@pytest.mark.parametrize("argv", [["--num-generations", "0"], ["--max-completion-length", "-5"],
                                  ["--rollout-engine", "vllm-colocate", "--vllm-gpu-memory-utilization", "0"],
                                  ["--rollout-engine", "sglang"]])
def test_bad_values_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    try:
        code = main(["alignment", *argv])
    except SystemExit as exit_:  # argparse's own refusals (an unknown choice) exit from inside
        code = exit_.code  # type: ignore[assignment]
    assert code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
