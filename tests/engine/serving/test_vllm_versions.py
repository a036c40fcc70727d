"""vLLM's start-up rules by version (engine.serving.vllm_versions): each range as read in vLLM's wheels."""

from __future__ import annotations

import pytest

from engine.serving.vllm_versions import (
    NEWEST,
    RELEASES,
    Engine,
    Entrypoint,
    NonTorch,
    VersionError,
    budget_rule,
    check_engine,
    chunked_prefill,
    default_engine,
    default_max_num_batched_tokens,
    default_max_num_seqs,
    hybrid_allocator,
    mla_latent,
    mla_padded,
    parse_version,
)

H100, A100_80, RTX4090 = ("NVIDIA H100 80GB HBM3", 85 * 2**30), ("NVIDIA A100-SXM4-80GB", 85 * 2**30), \
    ("NVIDIA GeForce RTX 4090", 24 * 2**30)


@pytest.mark.parametrize(
    ("text", "version"),
    [("0.6.3", (0, 6, 3)), ("0.10", (0, 10, 0)), ("v0.8.5", (0, 8, 5)), ("0.6.3.post1", (0, 6, 3)),
     ("0.19.1", NEWEST)],
)
def test_versions_parse(text: str, version: tuple[int, int, int]) -> None:
    assert parse_version(text) == version


@pytest.mark.parametrize(("text", "why"), [("0.20.0", "outside the modelled"), ("0.1.7", "outside"),
                                           ("latest", "not a version"), ("0.10.1.1", "not a version")])
def test_unmodelled_versions_are_refused_by_name(text: str, why: str) -> None:
    with pytest.raises(VersionError, match=why):
        parse_version(text)


def test_the_newest_release_offered_is_the_newest_modelled() -> None:
    assert parse_version(RELEASES[0]) == NEWEST
    assert all(parse_version(r) <= NEWEST for r in RELEASES)


def test_engines() -> None:
    assert default_engine((0, 7, 3)) is Engine.V0
    assert default_engine((0, 8, 0)) is Engine.V1
    with pytest.raises(VersionError, match=r"first shipped in vLLM 0\.7\.0"):
        check_engine((0, 6, 6), Engine.V1)
    with pytest.raises(VersionError, match=r"removed in 0\.11\.0"):
        check_engine((0, 11, 0), Engine.V0)
    check_engine((0, 10, 2), Engine.V0)


@pytest.mark.parametrize(
    ("version", "kwargs", "engine"),
    [((0, 8, 2), {"weights": "gguf-q8_0"}, Engine.V0),  # V1_UNSUPPORTED_QUANT = ["bitsandbytes", "gguf"]
     ((0, 8, 2), {"weights": "nf4"}, Engine.V0),
     ((0, 8, 4), {"weights": "nf4"}, Engine.V1),  # 0.8.4: ["gguf"]
     ((0, 8, 5), {"weights": "gguf-q4_k_m"}, Engine.V0),
     ((0, 9, 0), {"weights": "gguf-q4_k_m"}, Engine.V1),
     ((0, 9, 2), {"capability": 7.5}, Engine.V0),  # "Compute Capability < 8.0" (T4)
     ((0, 10, 2), {"capability": 7.5}, Engine.V1),
     ((0, 10, 0), {"capability": 8.6, "fp8_kv_cache": True}, Engine.V0),  # no FlashAttention 3 off Hopper
     ((0, 10, 0), {"capability": 9.0, "fp8_kv_cache": True}, Engine.V1),
     ((0, 10, 0), {"capability": 0.0, "fp8_kv_cache": True}, Engine.V1),  # ROCm reads an fp8 cache
     ((0, 11, 0), {"capability": 7.0, "weights": "gguf-q8_0"}, Engine.V1)],  # v0 is gone
)
def test_v1_falls_back_to_v0_where_its_oracle_does(version: tuple[int, int, int], kwargs: dict[str, object],
                                                   engine: Engine) -> None:
    """``EngineArgs._is_v1_supported_oracle`` (vllm/engine/arg_utils.py, 0.8.0-0.10.x)."""
    assert default_engine(version, **kwargs) is engine  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("version", "engine", "key", "non_torch"),
    [((0, 2, 4), Engine.V0, "allocated", NonTorch.NONE),  # torch.cuda.max_memory_allocated()
     ((0, 2, 7), Engine.V0, "device_used", NonTorch.ABSOLUTE),  # total - free (PR #2031)
     ((0, 3, 1), Engine.V0, "since_init", NonTorch.SINCE_INIT),  # init_gpu_memory - free
     ((0, 6, 3), Engine.V0, "since_init", NonTorch.SINCE_INIT),
     ((0, 6, 4), Engine.V0, "peak_plus_non_torch", NonTorch.ABSOLUTE),  # PR #9352
     ((0, 6, 6), Engine.V0, "profile_baseline", NonTorch.SINCE_INIT),
     ((0, 10, 2), Engine.V0, "snapshot", NonTorch.SINCE_INIT),
     ((0, 9, 1), Engine.V1, "peak_plus_non_torch", NonTorch.ABSOLUTE),
     ((0, 9, 2), Engine.V1, "snapshot", NonTorch.SINCE_INIT),  # init_snapshot before NCCL
     ((0, 11, 0), Engine.V1, "snapshot_after_nccl", NonTorch.AFTER_NCCL),
     ((0, 19, 1), Engine.V1, "snapshot_after_nccl", NonTorch.AFTER_NCCL)],
)
def test_the_budget_rule_by_version(version: tuple[int, int, int], engine: Engine, key: str,
                                    non_torch: NonTorch) -> None:
    rule = budget_rule(version, engine)
    assert (rule.key, rule.non_torch) == (key, non_torch)
    assert "vllm/" in rule.source


def test_chunked_prefill_defaults() -> None:
    """v1 always; v0 from 0.5.3 only past 32K tokens and without a sliding window."""
    assert chunked_prefill((0, 8, 0), Engine.V1, 4096, sliding=False)
    assert not chunked_prefill((0, 5, 2), Engine.V0, 131_072, sliding=False)
    assert chunked_prefill((0, 5, 3), Engine.V0, 32_769, sliding=False)
    assert not chunked_prefill((0, 6, 3), Engine.V0, 32_768, sliding=False)
    assert not chunked_prefill((0, 6, 3), Engine.V0, 131_072, sliding=True)


@pytest.mark.parametrize(
    ("version", "engine", "length", "chunked", "gpu", "entry", "tokens"),
    [((0, 4, 0), Engine.V0, 8192, False, H100, Entrypoint.SERVE, 8192),  # max(max_model_len, 2048)
     ((0, 4, 0), Engine.V0, 1024, False, H100, Entrypoint.SERVE, 2048),
     ((0, 6, 3), Engine.V0, 131_072, True, H100, Entrypoint.SERVE, 512),  # chunked prefill, 0.4.3-0.6.4
     ((0, 6, 5), Engine.V0, 131_072, True, H100, Entrypoint.SERVE, 2048),
     ((0, 8, 0), Engine.V1, 131_072, True, H100, Entrypoint.SERVE, 8192),  # H100 / H200 by name to 0.8.4
     ((0, 8, 0), Engine.V1, 131_072, True, A100_80, Entrypoint.SERVE, 2048),
     ((0, 8, 5), Engine.V1, 131_072, True, A100_80, Entrypoint.SERVE, 8192),  # >= 70 GiB from 0.8.5
     ((0, 9, 0), Engine.V1, 131_072, True, A100_80, Entrypoint.SERVE, 2048),  # ... A100s excluded from 0.9.0
     ((0, 19, 1), Engine.V1, 131_072, True, H100, Entrypoint.LLM, 16_384),
     ((0, 19, 1), Engine.V1, 131_072, True, RTX4090, Entrypoint.LLM, 8192),
     ((0, 19, 1), Engine.V1, 4, True, RTX4090, Entrypoint.SERVE, 256 * 4)],  # at most max_num_seqs x length
)
def test_max_num_batched_tokens_defaults(  # noqa: PLR0917 (one parameter per column of the table)
        version: tuple[int, int, int], engine: Engine, length: int, chunked: bool, gpu: tuple[str, int],
        entry: Entrypoint, tokens: int) -> None:
    seqs = default_max_num_seqs(version, engine, *gpu)
    got = default_max_num_batched_tokens(version, engine, length, chunked=chunked, entrypoint=entry,
                                         gpu_name=gpu[0], total_bytes=gpu[1], max_num_seqs=seqs)
    assert got == tokens


def test_max_num_seqs_defaults() -> None:
    assert default_max_num_seqs((0, 6, 3), Engine.V0, *H100) == 256
    assert default_max_num_seqs((0, 8, 3), Engine.V1, *RTX4090) == 1024
    assert default_max_num_seqs((0, 8, 4), Engine.V1, *RTX4090) == 256
    assert default_max_num_seqs((0, 19, 1), Engine.V1, *H100) == 1024
    assert default_max_num_seqs((0, 19, 1), Engine.V1, *A100_80) == 256


def test_cache_layouts_by_version() -> None:
    assert not hybrid_allocator((0, 9, 0), Engine.V1)
    assert hybrid_allocator((0, 9, 1), Engine.V1)
    assert not hybrid_allocator((0, 10, 2), Engine.V0)
    assert not mla_latent((0, 7, 0))
    assert mla_latent((0, 7, 1))
    assert [mla_padded(v, Engine.V0) for v in ((0, 7, 1), (0, 7, 2), (0, 7, 3), (0, 8, 0))] == \
        [False, True, True, False]
    assert not mla_padded((0, 7, 3), Engine.V1)
