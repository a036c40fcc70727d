"""Names the catalog accepts: ids, HF repositories and aliases for models; ids, names and shorthands for GPUs."""

from __future__ import annotations

import pytest

from engine.catalog import CatalogError, get_gpu, get_model, gpus, model_ids, model_source, models, resolve_model_id


def test_an_hf_alias_returns_the_hand_written_model_when_both_catalogs_hold_it() -> None:
    assert get_model("meta-llama/Meta-Llama-3.1-8B") is get_model("llama-3.1-8b")
    assert get_model("meta-llama/Meta-Llama-3.1-8B").published_params == 8_030_261_248


def test_an_imported_model_is_its_stored_spec_with_its_layers() -> None:
    m = get_model("Qwen/Qwen3-8B")
    assert (m.id, m.hf_repo, m.family) == ("qwen3-8b", "Qwen/Qwen3-8B", "Qwen3")
    assert (m.hidden_size, m.num_layers, m.num_heads, m.num_kv_heads, m.vocab_size) == (4096, 36, 32, 8, 151_936)
    assert m.layers is not None
    assert sum(r.count for r in m.layers) == 36


def test_ids_list_both_catalogs_once() -> None:
    ids = model_ids()
    assert len(ids) == len(set(ids)) >= 60
    assert ids[0] == "llama-2-7b"
    assert "qwen3-235b-a22b" in ids


def test_the_catalog_is_grouped_by_family() -> None:
    """Each family's models are next to each other (the model picker shows one heading per family)."""
    seen: list[str] = []
    for m in models():
        if not seen or seen[-1] != m.family:
            assert m.family not in seen, f"{m.family} appears in two places"
            seen.append(m.family)
    assert len(seen) >= 20


def test_no_name_means_two_models() -> None:
    """Every id, repository and alias is claimed by one model only (a shared alias would make lookups arbitrary)."""
    owner: dict[str, str] = {}
    for m in models():
        names = {m.id.lower(), *(a.lower() for a in model_source(m.id).aliases)}
        names |= {m.hf_repo.lower()} if m.hf_repo else set()
        for name in names:
            assert owner.setdefault(name, m.id) == m.id, f"{name} is claimed by {owner[name]} and {m.id}"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("meta-llama/Meta-Llama-3.1-8B", "llama-3.1-8b"),
        ("META-LLAMA/llama-3.1-8b-instruct", "llama-3.1-8b"),
        ("Qwen/Qwen3-8B", "qwen3-8b"),
        ("qwen/qwen3-8b-base", "qwen3-8b"),
        ("deepseek-ai/DeepSeek-V3", "deepseek-v3"),
        ("deepseek-ai/DeepSeek-V3-0324", "deepseek-v3"),
        ("openai/gpt-oss-20b", "gpt-oss-20b"),
        ("google/gemma-3-27b-pt", "gemma-3-27b"),
        ("mistralai/Devstral-Small-2505", "devstral-small-2507"),
        ("meta-llama/Llama-2-7b-chat-hf", "llama-2-7b"),
        ("  llama-2-7b ", "llama-2-7b"),
    ],
)
def test_names_and_aliases_resolve(name: str, expected: str) -> None:
    assert resolve_model_id(name) == expected
    assert get_model(name).id == expected


@pytest.mark.parametrize(
    ("name", "suggested"),
    [("llamma-3.1-8b", "llama-3.1-8b"), ("qwen3-8", "qwen3-8b"), ("gpt-oss", "gpt-oss-20b")],
)
def test_an_unknown_model_gets_close_matches_and_the_config_hint(name: str, suggested: str) -> None:
    with pytest.raises(CatalogError) as err:
        get_model(name)
    text = str(err.value)
    assert f"unknown model {name!r}" in text
    assert suggested in text
    assert "--config" in text
    assert "\n" not in text


def test_a_name_with_no_close_match_still_says_how_to_bring_it_in() -> None:
    with pytest.raises(CatalogError, match=r"unknown model 'zz/qq'\. For a Hugging Face model .* --config"):
        get_model("zz/qq")


@pytest.mark.parametrize(
    ("name", "gpu_id"),
    [("rtx4090", "rtx-4090"), ("RTX 4090", "rtx-4090"), ("H100", "h100-80gb"), ("h200", "h200"),
     ("B200 180 GB", "b200"), ("MI355X", "mi355x"), ("rtx pro 6000", "rtx-pro-6000")],
)
def test_gpu_shorthands_that_fit_one_gpu(name: str, gpu_id: str) -> None:
    assert get_gpu(name).id == gpu_id


def test_an_ambiguous_gpu_lists_the_candidates() -> None:
    with pytest.raises(CatalogError, match=r"GPU 'a100' fits several: a100-40gb, a100-80gb"):
        get_gpu("a100")


def test_an_unknown_gpu_gets_close_matches() -> None:
    with pytest.raises(CatalogError, match=r"unknown GPU 'rtx4095'; did you mean .*rtx-4090"):
        get_gpu("rtx4095")


def test_an_alias_names_one_gpu_before_prefixes_do() -> None:
    """``H100`` is the SXM 80 GB (an alias), though ``h100-nvl`` starts the same; ``rtx 4060 ti`` fits two."""
    assert get_gpu("H100").id == "h100-80gb"
    assert get_gpu("h100 nvl").id == "h100-nvl"
    with pytest.raises(CatalogError, match="fits several: rtx-4060-ti-8gb, rtx-4060-ti-16gb"):
        get_gpu("rtx 4060 ti")


def test_every_gpu_has_a_source_and_apple_ones_a_usable_share() -> None:
    for g in gpus():
        assert g.source, g.id
        assert 0 < g.usable_fraction <= 1
    apple = [g for g in gpus() if g.vendor == "Apple"]
    assert apple
    assert all(g.unified_memory and g.usable_fraction < 1 and g.usable_source for g in apple)
    m4 = get_gpu("m4-max-128gb")
    # Metal's recommendedMaxWorkingSetSize measured at 107.52 GiB on a 128 GiB Mac
    assert m4.memory_bytes == 128 * 2**30
    assert abs(m4.usable_bytes / 2**30 - 107.52) < 0.1
    assert get_gpu("h200").usable_bytes == get_gpu("h200").memory_bytes


def test_new_gpus_are_there_with_their_vendor_capacity() -> None:
    gib = {g.id: g.memory_bytes / 2**30 for g in gpus()}
    assert gib["mi325x"] == 256
    assert gib["mi355x"] == 288
    assert gib["gb200"] == 186
    assert gib["h20"] == 96
    assert gib["rtx-5080"] == 16
    assert gib["rtx-pro-6000"] == 96
    for gpu_id in ("rtx-4060-laptop", "rtx-4070-laptop", "rtx-4080-laptop", "rtx-5070-laptop", "rtx-5080-laptop",
                   "rtx-3060", "rtx-3080", "rtx-4060-ti-8gb", "rtx-4060-ti-16gb", "rtx-4070", "rtx-4080", "rtx-2060",
                   "rtx-2080-ti", "a40", "l40", "h100-nvl", "h20", "gh200", "b300", "mi250x", "gaudi-3",
                   "apple-8gb", "apple-16gb", "apple-24gb", "apple-192gb"):
        assert gpu_id in gib, gpu_id
    assert gib["h100-nvl"] == 94
    assert gib["b300"] == 288


@pytest.mark.parametrize(
    ("gpu_id", "gib"),
    # what CUDA reports on the card, as vLLM or PyTorch logged it (each entry's source names the log)
    [("h100-80gb", 79.22), ("a100-80gb", 79.25), ("a100-40gb", 39.50), ("rtx-4090", 23.55), ("rtx-3090", 23.58),
     ("rtx-5090", 31.37), ("t4", 14.57), ("a10", 22.18), ("l40", 44.40), ("rtx-6000-ada", 44.43)],
)
def test_memory_is_what_the_driver_reports_to_cuda(gpu_id: str, gib: float) -> None:
    g = get_gpu(gpu_id)
    assert g.memory_kind == "cuda"
    assert round(g.memory_bytes / 2**30, 2) == gib
    assert g.nominal_bytes is not None
    assert g.nominal_bytes > g.memory_bytes


def test_a_derived_memory_is_the_nvidia_smi_total_less_450_mib() -> None:
    """The L4's nvidia-smi total, 23,034 MiB (published), less the 450 MiB median reservation of ten cards."""
    l4 = get_gpu("l4")
    assert l4.memory_kind == "derived"
    assert l4.memory_bytes == (23_034 - 450) * 2**20
    assert "23,034 MiB" in l4.source
