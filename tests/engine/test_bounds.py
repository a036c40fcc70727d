"""The engine's bounds refuse what cannot run, by name (issue 17): every number a user can give is a whole,
finite number within a bound, and a setup past the bounds is refused before anything is computed."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.alignment.stages import Stage, stage_memory
from engine.catalog import get_gpu, get_model
from engine.cli import main
from engine.errors import one_line
from engine.hf_config import ConfigFieldError, spec_fields
from engine.specs import MAX_MICRO_BATCH_TOKENS, GpuSpec, ModelSpec, ParallelSpec, TrainingSetup


def test_a_micro_batch_of_more_than_2_to_the_24_tokens_per_gpu_is_refused_by_name() -> None:
    """``estimate`` at every maximum (batch 4,096 x 1,048,576 tokens) printed 4.7e20 bytes."""
    with pytest.raises(ValidationError) as err:
        TrainingSetup(batch=4_096, seq_len=1_048_576)
    assert one_line(err.value).startswith("input: batch x seq_len = 4,294,967,296 tokens per GPU in one micro-batch")
    assert TrainingSetup(batch=128, seq_len=131_072).micro_batch_tokens == MAX_MICRO_BATCH_TOKENS  # the GUI's most
    assert TrainingSetup(batch=16, seq_len=1_048_576).micro_batch_tokens == MAX_MICRO_BATCH_TOKENS
    split = TrainingSetup(batch=64, seq_len=1_048_576, gpus=64, parallel=ParallelSpec(cp=64))  # context parallel
    assert split.micro_batch_tokens == 1_048_576


def test_estimate_at_every_maximum_is_refused_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["estimate", "--model", "llama-3.1-405b", "--seq-len", "1048576", "--batch", "4096",
            "--grad-accum", "65536", "--gpus", "65536", "--attention", "eager"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: batch x seq_len = 4,294,967,296 tokens per GPU"), err


@pytest.mark.parametrize(("memory", "message"), [(0, "greater than or equal to 1"),
                                                 (10**30, "less than or equal to 1125899906842624")])
def test_a_gpu_of_no_memory_or_of_10_to_the_30_bytes_is_refused(memory: int, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        GpuSpec(id="x", name="X", memory_bytes=memory)


def test_names_are_bounded() -> None:
    with pytest.raises(ValidationError, match="name"):
        GpuSpec(id="x", name="N" * 100_000, memory_bytes=10**9)
    with pytest.raises(ValidationError, match="id"):
        GpuSpec(id="", name="X", memory_bytes=10**9)
    base = get_model("gpt2").model_dump()
    for bad in ("", "   "):
        with pytest.raises(ValidationError, match="id"):
            ModelSpec.model_validate({**base, "id": bad})
    with pytest.raises(ValidationError, match="name"):
        ModelSpec.model_validate({**base, "name": "N" * 1_000})


def test_dpo_and_grpo_cost_their_derived_batches_past_the_bound_of_a_request() -> None:
    """``batch`` 4,096 made the alignment page raise: DPO trains on 2 x batch pairs."""
    m, gpu = get_model("gpt2"), get_gpu("h100-80gb")
    s = TrainingSetup(batch=4_096, seq_len=128)
    dpo = stage_memory(Stage.DPO, m, s, gpu)
    policy = next(r for r in dpo.roles if r.estimate is not None)
    assert policy.estimate is not None
    assert policy.estimate.setup.batch == 8_192


def test_first_k_dense_replace_past_the_layers_is_refused() -> None:
    """A 32-layer MoE with ``first_k_dense_replace: 1000`` was read as a dense model."""
    cfg = {"model_type": "deepseek_v3", "vocab_size": 32000, "hidden_size": 1024, "num_hidden_layers": 32,
           "num_attention_heads": 16, "num_key_value_heads": 16, "intermediate_size": 4096,
           "moe_intermediate_size": 512, "n_routed_experts": 8, "num_experts_per_tok": 2, "n_shared_experts": 1,
           "first_k_dense_replace": 1000, "kv_lora_rank": 512, "q_lora_rank": None, "qk_rope_head_dim": 64,
           "qk_nope_head_dim": 128, "v_head_dim": 128}
    with pytest.raises(ConfigFieldError) as err:
        spec_fields(cfg, "m")
    assert str(err.value) == ("config.json: field 'first_k_dense_replace': 1,000 is more than the model's 32 layers "
                              "(num_hidden_layers)")
    assert spec_fields({**cfg, "first_k_dense_replace": 3}, "m")["moe"].first_dense_layers == 3
