"""The shared name tables: LoRA target sets, optimizers, dtypes, attention kernels."""

from __future__ import annotations

import pytest

from engine.config_import.names import (
    NEAR_OPTIMIZERS,
    OPTIMIZERS,
    attention_of,
    dtype_of,
    is_all_linear,
    split_names,
    target_parts,
    targets_of,
)
from engine.specs import Attention, LoraTargets, Optimizer


@pytest.mark.parametrize(("names", "expected"), [
    (["q_proj", "v_proj"], (LoraTargets.QV, True)),
    (["q_proj"], (LoraTargets.QV, False)),
    (["q_proj", "k_proj", "v_proj", "o_proj"], (LoraTargets.ATTENTION, True)),
    (["q_proj", "v_proj", "output_proj"], (LoraTargets.ATTENTION, False)),  # torchtune's usual minus the MLP
    (["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"], (LoraTargets.ALL_LINEAR, True)),
    (["q_proj", "v_proj", "output_proj", "gate_proj", "up_proj", "down_proj"], (LoraTargets.QVO_MLP, True)),
    (["qkv_proj", "o_proj", "gate_up_proj", "down_proj"], (LoraTargets.ALL_LINEAR, True)),  # fused (Phi-3)
    (["c_attn", "c_proj", "c_fc"], (LoraTargets.ALL_LINEAR, True)),  # GPT-2
    (["model.layers.0.self_attn.q_proj", "model.layers.0.self_attn.v_proj"], (LoraTargets.QV, True)),
    ([r"model.language_model.layers.[\d]+.(mlp|self_attn).(up|down|gate|q|k|v|o)_proj"],
     (LoraTargets.ALL_LINEAR, True)),
    (["gate_proj", "up_proj"], (LoraTargets.ALL_LINEAR, False)),  # the MLP alone: experts too (all-linear)
    (["q_proj", "gate_proj"], (LoraTargets.QVO_MLP, False)),
    (["k_proj", "gate_proj"], (LoraTargets.ALL_LINEAR, False)),
])
def test_target_sets(names: list[str], expected: tuple[LoraTargets, bool]) -> None:
    parts, unknown = target_parts(names)
    assert unknown == []
    assert targets_of(parts) == expected


def test_modules_outside_the_blocks_are_named_not_counted() -> None:
    parts, unknown = target_parts(["q_proj", "v_proj", "lm_head", "embed_tokens"])
    assert parts == {"q", "v"}
    assert unknown == ["lm_head", "embed_tokens"]
    assert targets_of(target_parts(["lm_head"])[0]) is None


def test_target_spellings() -> None:
    assert split_names("q_proj, v_proj") == ["q_proj", "v_proj"]
    assert split_names(["q_proj", " v_proj "]) == ["q_proj", "v_proj"]
    assert all(is_all_linear(v) for v in ("all", "all-linear", "ALL"))
    assert not is_all_linear(["all"])


@pytest.mark.parametrize(("name", "optimizer"), [
    ("adamw_torch", Optimizer.ADAMW), ("adamw_torch_fused", Optimizer.ADAMW), ("adamw_bnb_8bit", Optimizer.ADAMW_8BIT),
    ("adamw_8bit", Optimizer.ADAMW_8BIT), ("paged_adamw_8bit", Optimizer.PAGED_ADAMW_8BIT),
    ("adafactor", Optimizer.ADAFACTOR), ("lion_32bit", Optimizer.LION), ("sgd", Optimizer.SGD),
    ("torch.optim.adamw", Optimizer.ADAMW), ("bitsandbytes.optim.pagedadamw8bit", Optimizer.PAGED_ADAMW_8BIT),
    ("paged_adamw_32bit", Optimizer.PAGED_ADAMW), ("bitsandbytes.optim.pagedadamw", Optimizer.PAGED_ADAMW),
    ("bitsandbytes.optim.pagedadamw32bit", Optimizer.PAGED_ADAMW),
])
def test_optimizer_names(name: str, optimizer: Optimizer) -> None:
    assert OPTIMIZERS[name] is optimizer


def test_optimizers_without_a_counterpart_are_absent() -> None:
    for name in ("rmsprop_bnb_32bit", "lion_8bit", "ademamix", "galore_adamw_layerwise", "lomo"):
        assert name not in OPTIMIZERS
        assert name not in NEAR_OPTIMIZERS


@pytest.mark.parametrize(("name", "optimizer"), [
    ("adamw_torch_4bit", Optimizer.ADAMW_4BIT), ("adamw_torch_8bit", Optimizer.ADAMW_8BIT_TORCHAO),
    ("rmsprop", Optimizer.RMSPROP), ("galore_adamw", Optimizer.GALORE_ADAMW),
    ("apollo_adamw", Optimizer.APOLLO_ADAMW), ("torch.optim.muon", Optimizer.MUON),
])
def test_issue_27s_optimizers(name: str, optimizer: Optimizer) -> None:
    assert OPTIMIZERS[name] is optimizer


def test_dtypes_and_attention() -> None:
    assert [dtype_of(v) for v in ("bfloat16", "torch.float16", "float32", "auto", None)] == \
        ["bf16", "fp16", "fp32", None, None]
    assert attention_of("flash_attention_2") == (Attention.FLASH, True)
    assert attention_of("sdpa") == (Attention.SDPA, True)
    assert attention_of("kernels-community/vllm-flash-attn3") == (Attention.FLASH, False)
    assert attention_of("xformers") == (Attention.SDPA, False)
    assert attention_of("something") is None
