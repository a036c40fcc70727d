"""Models on this computer (engine.catalog.local): the Hugging Face cache read offline, robust against junk."""

from __future__ import annotations

import json
import os
import struct
import threading
import time
from pathlib import Path

import pytest

from engine.catalog.local import MAX_FOLDERS, cache_dir, find_local, local_models, repo_id
from engine.cli import main

LLAMA_TINY = {
    "model_type": "llama", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "tie_word_embeddings": False,
}


def _safetensors(path: Path, tensors: dict[str, list[int]]) -> None:
    """A safetensors file (8-byte header length, JSON header, then the data): float32 zeros."""
    header, offset = {}, 0
    for name, shape in tensors.items():
        size = 4
        for d in shape:
            size *= d
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + bytes(offset))


def _model(cache: Path, repo: str, config: object = LLAMA_TINY, rev: str = "abc123", ref: bool = True) -> Path:
    folder = cache / ("models--" + repo.replace("/", "--"))
    snap = folder / "snapshots" / rev
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(config if isinstance(config, str) else json.dumps(config))
    if ref:
        (folder / "refs").mkdir()
        (folder / "refs" / "main").write_text(rev)
    return snap


def _finishes(fn, seconds: float = 20.0):
    """Run ``fn`` in a thread; fail (instead of hanging the suite) if it has not returned in time."""
    out: list[object] = []
    t = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "the cache scan hung"
    return out[0]


def test_cache_dir_follows_huggingface_hub_rules(tmp_path: Path) -> None:
    assert cache_dir({"HF_HUB_CACHE": str(tmp_path / "a"), "HF_HOME": str(tmp_path / "b")}) == tmp_path / "a"
    assert cache_dir({"HF_HOME": str(tmp_path / "b")}) == tmp_path / "b" / "hub"
    assert cache_dir({"XDG_CACHE_HOME": str(tmp_path / "x")}) == tmp_path / "x" / "huggingface" / "hub"
    assert cache_dir({}) == Path.home() / ".cache" / "huggingface" / "hub"


def test_folder_names_map_to_repository_ids() -> None:
    assert repo_id("models--Qwen--Qwen3-8B") == "Qwen/Qwen3-8B"
    assert repo_id("models--org--name--with--dashes") == "org/name--with--dashes"
    assert repo_id("datasets--org--name") is None
    assert repo_id("models--nodash") is None


def test_a_cached_model_is_imported_with_its_exact_count(tmp_path: Path) -> None:
    snap = _model(tmp_path, "acme/tiny-llama")
    # 1000x64 embedding + 1000x64 head + 2 layers: q 64x64, k,v 64x32, o 64x64, MLP 3 x 64x128, 2 norms; final norm
    _safetensors(snap / "model.safetensors", {"embed": [1000, 64], "head": [1000, 64], "layers": [2, 37_120]})
    [m] = local_models(tmp_path)
    assert m.error is None
    assert m.spec is not None
    assert m.repo == m.spec.id == m.spec.hf_repo == "acme/tiny-llama"
    assert m.spec.published_params == 1000 * 64 * 2 + 2 * 37_120
    assert m.path == snap


def test_refs_main_picks_the_snapshot_and_newest_is_the_fallback(tmp_path: Path) -> None:
    _model(tmp_path, "acme/a", rev="old")
    newer = dict(LLAMA_TINY, num_hidden_layers=3)
    folder = tmp_path / "models--acme--a"
    (folder / "snapshots" / "new").mkdir()
    (folder / "snapshots" / "new" / "config.json").write_text(json.dumps(newer))
    [m] = local_models(tmp_path)
    assert m.spec is not None
    assert m.spec.num_layers == 2
    (folder / "refs" / "main").write_text("missing-revision")
    os.utime(folder / "snapshots" / "old" / "config.json", (1, 1))
    [m] = local_models(tmp_path)
    assert m.spec is not None
    assert m.spec.num_layers == 3


def test_junk_never_hangs_and_never_raises(tmp_path: Path) -> None:
    _model(tmp_path, "good/model")
    fifo_cfg = tmp_path / "models--junk--fifo" / "snapshots" / "r"
    fifo_cfg.mkdir(parents=True)
    os.mkfifo(fifo_cfg / "config.json")
    fifo_st = _model(tmp_path, "junk/fifo-weights")
    os.mkfifo(fifo_st / "model.safetensors")
    broken = tmp_path / "models--junk--broken-link" / "snapshots" / "r"
    broken.mkdir(parents=True)
    (broken / "config.json").symlink_to(tmp_path / "nowhere" / "blob")
    folder_cfg = tmp_path / "models--junk--folder-config" / "snapshots" / "r" / "config.json"
    folder_cfg.mkdir(parents=True)
    _model(tmp_path, "junk/not-json", config="{ not json")
    # a bare {"model_type": "llama"} is a model (transformers' LlamaConfig defaults); a zero width is not
    _model(tmp_path, "junk/not-a-model", config={"model_type": "llama", "hidden_size": 0})
    _model(tmp_path, "junk/nan", config='{"vocab_size": NaN}')
    (tmp_path / "models--junk--a-file").write_text("not a folder")
    (tmp_path / "models--junk--empty").mkdir()
    (tmp_path / "not-a-model-folder").mkdir()
    (tmp_path / "models--junk--link").symlink_to(tmp_path / "models--good--model")

    found = _finishes(lambda: local_models(tmp_path))
    by_repo = {m.repo: m for m in found}
    assert by_repo["good/model"].spec is not None
    bad = {r: m.error for r, m in by_repo.items() if r != "good/model"}
    assert set(bad) == {"junk/fifo", "junk/fifo-weights", "junk/broken-link", "junk/folder-config", "junk/not-json",
                        "junk/not-a-model", "junk/nan", "junk/empty"}
    assert all(isinstance(e, str) and e for e in bad.values())
    assert "model.safetensors: not a regular file" in bad["junk/fifo-weights"]
    assert "'hidden_size'" in bad["junk/not-a-model"]


def test_hundreds_of_folders_are_cut_at_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("engine.catalog.local.MAX_FOLDERS", 50)
    for i in range(300):
        (tmp_path / f"models--org--m{i:03d}").mkdir()
    start = time.monotonic()
    found = _finishes(lambda: local_models(tmp_path))
    assert len(found) == 50
    assert MAX_FOLDERS > 50
    assert time.monotonic() - start < 10


def test_a_missing_cache_is_empty(tmp_path: Path) -> None:
    assert local_models(tmp_path / "absent") == []
    assert find_local("a/b", tmp_path / "absent") is None


def test_find_local_is_case_insensitive(tmp_path: Path) -> None:
    _model(tmp_path, "Acme/Tiny")
    m = find_local("acme/tiny", tmp_path)
    assert m is not None
    assert m.repo == "Acme/Tiny"
    assert find_local("acme/other", tmp_path) is None


def test_models_local_json_lists_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    _model(tmp_path, "acme/tiny-llama")
    _model(tmp_path, "junk/not-json", config="{")
    assert main(["models", "--local", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cache"] == str(tmp_path)
    rows = {r["id"]: r for r in data["models"]}
    assert rows["acme/tiny-llama"]["error"] is None
    assert rows["junk/not-json"]["error"]
    assert {"id", "hf_repo", "path", "total_params", "error"} <= rows["acme/tiny-llama"].keys()


def test_estimate_finds_a_cached_model_the_catalog_does_not_know(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    _model(tmp_path, "acme/tiny-llama")
    assert main(["estimate", "--model", "acme/tiny-llama", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["model"] == "acme/tiny-llama"
    _model(tmp_path, "junk/not-json", config="{")
    assert main(["estimate", "--model", "junk/not-json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "junk/not-json (Hugging Face cache): config.json" in err
    assert main(["estimate", "--model", "nobody/nothing"]) == 2
    assert "--config" in capsys.readouterr().err
