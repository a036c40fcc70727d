"""Measure host RAM (RSS, PSS, USS) of the CPU side of a fine-tuning run on this machine (dev only).

    /work/calib-venv/bin/python -m calibration.host_rss --all          # rewrite calibration/host_rss.jsonl
    /work/calib-venv/bin/python -m calibration.host_rss --part dataset # one part: runtime, tokens, dataset, loading

Every case runs in a fresh interpreter (a subprocess of this driver) and prints one JSON line; nothing is
downloaded. What is measured (calibration/README.md, "Host RAM"):

* runtime: the resident set of an interpreter after ``import torch`` (and transformers, and a model built on the
  meta device): what every training process holds before it holds anything of its own;
* tokens: bytes per token of a tokenized dataset held three ways (the issue's sanity check);
* dataset: a tokenized dataset of 1, 4 and 16 Mi tokens stored four ways (Python lists, NumPy, a memory-mapped
  Arrow file, streamed Parquet shards), iterated for one epoch by a DataLoader with 0, 2 and 4 forked workers;
  the main process and every worker measured mid-epoch and at its end (persistent workers, still alive);
* loading: a small Llama checkpoint (safetensors, random weights, built from a config) loaded by two processes
  at once, each way the platform allows: every process whole, rank 0 only (the other built on meta), sharded.

Memory of a process comes from ``/proc/<pid>/status`` (VmRSS, RssAnon, RssFile, RssShmem, VmHWM) and
``/proc/<pid>/smaps_rollup`` (Pss; USS = Private_Clean + Private_Dirty): shared pages count in every process's RSS,
split in PSS, and not at all in USS.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

OUT = Path(__file__).with_name("host_rss.jsonl")
WORK = Path(os.environ.get("HOST_RSS_WORK", "/tmp/vramlab-host-rss"))
SIZES = (1 << 20, 1 << 22, 1 << 24)  # tokens: 1, 4 and 16 Mi
WORKERS = (0, 2, 4)
KINDS = ("python-lists", "numpy", "arrow-mmap")
#: pyarrow's memory pools measured for streaming: "system" (glibc malloc) and the default here, mimalloc
POOLS = ("system", "mimalloc")
SEQ = 512  # tokens per example
BATCH = 8  # examples per batch
PREFETCH = 2
VOCAB = 32_000
#: the checkpoint: a Llama built from this config, random bf16 weights, two safetensors shards
LLAMA = {"vocab_size": 32_000, "hidden_size": 2_048, "intermediate_size": 5_632, "num_hidden_layers": 6,
         "num_attention_heads": 16, "num_key_value_heads": 16}


# -- measuring a process ---------------------------------------------------------------------------------------
def mem(pid: int | str = "self") -> dict[str, int]:
    """Bytes: rss, anon, file, shmem, hwm (peak RSS), pss, uss of one process."""
    keys = {"VmRSS": "rss", "RssAnon": "anon", "RssFile": "file", "RssShmem": "shmem", "VmHWM": "hwm"}
    out: dict[str, int] = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in keys:
                out[keys[k]] = int(v.split()[0]) * 1024
    private = 0
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k == "Pss":
                out["pss"] = int(v.split()[0]) * 1024
            elif k in ("Private_Clean", "Private_Dirty"):
                private += int(v.split()[0]) * 1024
    out["uss"] = private
    return out


def children(pid: int) -> list[int]:
    """Direct children of a process (DataLoader workers, the pin-memory thread is a thread, not a child)."""
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        kids += [int(x) for x in text]
    return sorted(kids)


def _emit(record: dict[str, Any]) -> None:
    print("ROW " + json.dumps(record), flush=True)


# -- runtime ---------------------------------------------------------------------------------------------------
RUNTIME_STEPS = {
    "python": "",
    "numpy": "import numpy",
    "torch": "import torch",
    "torch+transformers": "import torch, transformers",
    "torch+datasets": "import torch, datasets",
    "torch+transformers+meta-model": (
        "import torch, transformers\n"
        "cfg = transformers.LlamaConfig(**LLAMA)\n"
        "with torch.device('meta'):\n"
        "    m = transformers.AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16)"
    ),
}


def case_runtime(name: str) -> None:
    exec(RUNTIME_STEPS[name], {"LLAMA": LLAMA})  # the fixed strings above
    _emit({"part": "runtime", "id": f"runtime-{name}", "what": name, "main": mem()})


# -- tokens: bytes per token, three ways -----------------------------------------------------------------------
def _json_examples(tokens: int) -> list[dict[str, list[int]]]:
    """Tokenized examples as a JSON-lines file gives them back: every id its own int object."""
    import numpy as np

    rng = np.random.default_rng(0)
    out = []
    for _ in range(tokens // SEQ):
        row = rng.integers(1_000, VOCAB, SEQ).tolist()
        out.append(json.loads(json.dumps({"input_ids": row, "attention_mask": [1] * SEQ, "labels": row})))
    return out


def _token_form(form: str, tokens: int) -> Any:
    import numpy as np

    if form == "dicts-of-three-lists":
        return _json_examples(tokens)
    if form == "lists-of-ints":
        rng = np.random.default_rng(0)
        return [json.loads(json.dumps(rng.integers(1_000, VOCAB, SEQ).tolist())) for _ in range(tokens // SEQ)]
    arr = np.empty(tokens, dtype=np.int32)
    arr[:] = 7  # touch every page
    return arr


TOKEN_FORMS = ("lists-of-ints", "dicts-of-three-lists", "int32-numpy")


def case_tokens(form: str, tokens: int) -> None:
    """Bytes per token of one form, in a fresh interpreter (freed memory is not reused by the next form)."""
    import gc

    import numpy as np  # noqa: F401  (part of the baseline)

    gc.collect()
    base = mem()["rss"]
    data = _token_form(form, tokens)
    gc.collect()
    _emit({"part": "tokens", "id": f"tokens-{form}", "form": form, "tokens": tokens,
           "bytes_per_token": (mem()["rss"] - base) / tokens, "items": len(data)})


# -- dataset and DataLoader workers ----------------------------------------------------------------------------
def _files(tokens: int) -> dict[str, Path]:
    return {"npy": WORK / f"tokens-{tokens}.npy", "arrow": WORK / f"arrow-{tokens}",
            "parquet": WORK / f"parquet-{tokens}"}


def prepare(tokens: int) -> None:
    """Write the on-disk forms once: an int32 .npy, a datasets Arrow folder, four Parquet shards."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = _files(tokens)
    if files["parquet"].exists():
        return
    WORK.mkdir(parents=True, exist_ok=True)
    flat = np.random.default_rng(0).integers(1_000, VOCAB, tokens, dtype=np.int32)
    np.save(files["npy"], flat)
    rows = flat.reshape(-1, SEQ)
    offsets = pa.array(np.arange(0, rows.size + 1, SEQ, dtype=np.int32))
    # the column types datasets' ArrowWriter gives tokenizer output (datasets 5.2 arrow_writer.py:
    # input_ids int32, attention_mask int8; labels stays int64)
    table = pa.table({
        "input_ids": pa.ListArray.from_arrays(offsets, pa.array(rows.ravel(), pa.int32())),
        "attention_mask": pa.ListArray.from_arrays(offsets, pa.array(np.ones(rows.size, np.int8))),
        "labels": pa.ListArray.from_arrays(offsets, pa.array(rows.ravel().astype(np.int64))),
    })
    import datasets

    datasets.Dataset(table).save_to_disk(str(files["arrow"]))
    files["parquet"].mkdir()
    step = -(-table.num_rows // 4)
    for i in range(4):
        pq.write_table(table.slice(i * step, step), files["parquet"] / f"part-{i}.parquet")


class _ListData:
    """A map-style dataset over Python objects (what a JSON-lines file loaded into lists gives)."""

    def __init__(self, examples: list[dict[str, list[int]]]) -> None:
        self.examples = examples

    def __len__(self) -> int:
        return len(self.examples)

    def __getitem__(self, i: int) -> dict[str, list[int]]:
        return self.examples[i]


class _NumpyData:
    """A map-style dataset over one flat int32 token array in RAM (masks and labels made per batch)."""

    def __init__(self, flat: Any) -> None:
        self.flat = flat

    def __len__(self) -> int:
        return len(self.flat) // SEQ

    def __getitem__(self, i: int) -> dict[str, Any]:
        ids = self.flat[i * SEQ:(i + 1) * SEQ]
        return {"input_ids": ids, "attention_mask": [1] * SEQ, "labels": ids}


def _collate(batch: list[dict[str, Any]]) -> dict[str, Any]:
    import numpy as np
    import torch

    return {k: torch.as_tensor(np.asarray([ex[k] for ex in batch]), dtype=torch.long) for k in batch[0]}


def _dataset(kind: str, tokens: int) -> Any:
    files = _files(tokens)
    if kind == "python-lists":
        return _ListData(_json_examples(tokens))
    if kind == "numpy":
        import numpy as np

        return _NumpyData(np.load(files["npy"]))
    if kind == "arrow-mmap":
        import datasets

        return datasets.load_from_disk(str(files["arrow"]))
    import datasets

    shards = sorted(str(p) for p in files["parquet"].iterdir())
    ds = datasets.load_dataset("parquet", data_files=shards, split="train", streaming=True)
    return ds.shuffle(seed=0, buffer_size=1_000)


def _tree() -> tuple[dict[str, int], list[dict[str, int]]]:
    """This process's memory and each of its workers'."""
    return mem(), [mem(k) for k in children(os.getpid())]


def case_dataset(kind: str, tokens: int, workers_n: int) -> None:
    import gc

    import torch
    from torch.utils.data import DataLoader

    if kind in ("arrow-mmap", "streaming"):
        import datasets  # noqa: F401  (part of the baseline, not of the data)
    torch.set_num_threads(1)
    gc.collect()
    before = mem()
    ds = _dataset(kind, tokens)
    gc.collect()
    built = mem()
    extra: dict[str, Any] = {"shuffle": True} if kind != "streaming" else {}
    if workers_n:
        extra |= {"num_workers": workers_n, "persistent_workers": True, "prefetch_factor": PREFETCH,
                  "multiprocessing_context": "fork"}
    loader = DataLoader(ds, batch_size=BATCH, collate_fn=_collate, **extra)
    seen, samples = 0, []
    half = tokens // SEQ // BATCH // 2  # a streaming shuffle buffer is full mid-epoch and drains at its end
    start = time.perf_counter()
    for i, batch in enumerate(loader):
        seen += batch["input_ids"].numel()
        if i == half:
            samples.append(_tree())
    samples.append(_tree())
    main, workers = max(samples, key=lambda t: t[0]["pss"] + sum(w["pss"] for w in t[1]))
    pool = ""
    if kind == "streaming":
        import pyarrow

        pool = pyarrow.default_memory_pool().backend_name
    record = {
        "part": "dataset", "id": f"{kind}{'-' + pool if pool == 'mimalloc' else ''}-{tokens >> 20}Mi-w{workers_n}",
        "kind": kind, "tokens": tokens, "arrow_pool": pool,
        "workers": workers_n, "prefetch_factor": PREFETCH if workers_n else 0, "batch": BATCH, "seq_len": SEQ,
        "tokens_seen": seen, "seconds": round(time.perf_counter() - start, 1),
        "sampled": ["mid-epoch", "end"][samples.index((main, workers))],
        "before": before, "built": built, "main": main, "workers_mem": workers,
    }
    del loader
    _emit(record)


# -- loading a checkpoint --------------------------------------------------------------------------------------
CKPT = WORK / "llama-ckpt"


def prepare_checkpoint() -> None:
    if CKPT.exists():
        return
    import torch
    import transformers

    cfg = transformers.LlamaConfig(**LLAMA)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16)
    model = model.to_empty(device="cpu")
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0, 0.02)
    model.save_pretrained(str(CKPT), max_shard_size="500MB")


def _touch(model: Any) -> int:
    """Read every local weight once (as moving it to a GPU does); return the local bytes."""
    import torch

    total = 0
    with torch.no_grad():
        for p in model.parameters():
            t = p.to_local() if hasattr(p, "to_local") else p
            total += t.numel() * t.element_size()
            float(t.float().sum())
    return total


def case_loading(mode: str) -> None:
    import torch
    import torch.distributed as dist
    import transformers

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    cfg = transformers.LlamaConfig.from_pretrained(str(CKPT))
    with torch.device("meta"):  # the runtime part: the model's code imported, its skeleton built
        skeleton = transformers.AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16)
    del skeleton
    before = mem()
    dtype = torch.float32 if mode == "full-per-process-fp32" else torch.bfloat16
    if mode == "meta-sharded":
        from transformers.distributed import DistributedConfig

        model = transformers.AutoModelForCausalLM.from_pretrained(
            str(CKPT), dtype=dtype, distributed_config=DistributedConfig(fsdp_size=dist.get_world_size()))
    elif mode == "rank0-broadcast" and rank != 0:
        with torch.device("meta"):  # what accelerate's cpu_ram_efficient_loading leaves on the other ranks
            model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=dtype)
    else:
        model = transformers.AutoModelForCausalLM.from_pretrained(str(CKPT), dtype=dtype)
    local = _touch(model) if next(model.parameters()).device.type != "meta" else 0
    after = mem()
    dist.barrier()  # both processes hold their weights when the other one is measured
    time.sleep(0.5)
    dist.barrier()
    params = sum(p.numel() for p in model.parameters())
    _emit({"part": "loading", "id": f"{mode}-rank{rank}", "mode": mode, "rank": rank,
           "world_size": dist.get_world_size(), "params": params, "dtype": str(dtype).removeprefix("torch."),
           "local_weight_bytes": local, "before": before, "after": mem(), "touched": after})
    dist.destroy_process_group()


# -- driver ----------------------------------------------------------------------------------------------------
def _run(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "calibration.host_rss", *args], stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM":
                                            "false", "OMP_NUM_THREADS": "1", **(env or {})})


def _rows(procs: list[subprocess.Popen[str]]) -> list[dict[str, Any]]:
    rows = []
    for p in procs:
        out, _ = p.communicate(timeout=900)
        rows += [json.loads(line[4:]) for line in out.splitlines() if line.startswith("ROW ")]
        if p.returncode:
            print(f"case failed: {p.args}", file=sys.stderr)
    return rows


def part_rows(part: str) -> list[dict[str, Any]]:
    if part == "runtime":
        return [r for name in RUNTIME_STEPS for r in _rows([_run(["--case", "runtime", name])])]
    if part == "tokens":
        return [r for form in TOKEN_FORMS for r in _rows([_run(["--case", "tokens", form, "4000000"])])]
    for n in SIZES if part in ("dataset", "streaming") else ():
        _rows([_run(["--case", "prepare", str(n)])])
    if part == "dataset":
        return [r for kind in KINDS for n in SIZES for w in WORKERS
                for r in _rows([_run(["--case", "dataset", kind, str(n), str(w)])])]
    if part == "streaming":
        return [r for pool in POOLS for n in SIZES for w in WORKERS
                for r in _rows([_run(["--case", "dataset", "streaming", str(n), str(w)],
                                     {"ARROW_DEFAULT_MEMORY_POOL": pool})])]
    _rows([_run(["--case", "checkpoint"])])
    rows = []
    for i, mode in enumerate(("full-per-process", "full-per-process-fp32", "rank0-broadcast", "meta-sharded")):
        env = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(29_600 + i), "WORLD_SIZE": "2"}
        procs = [_run(["--case", "loading", mode], {**env, "RANK": str(r), "LOCAL_RANK": str(r)}) for r in (0, 1)]
        rows += sorted(_rows(procs), key=lambda r: r["rank"])
    return rows


PARTS = ("runtime", "tokens", "dataset", "streaming", "loading")


def _part_of(row: dict[str, Any]) -> str:
    return "streaming" if row.get("kind") == "streaming" else str(row["part"])


def _case(argv: list[str]) -> None:
    what, *rest = argv
    if what == "runtime":
        case_runtime(rest[0])
    elif what == "tokens":
        case_tokens(rest[0], int(rest[1]))
    elif what == "prepare":
        prepare(int(rest[0]))
    elif what == "dataset":
        case_dataset(rest[0], int(rest[1]), int(rest[2]))
    elif what == "checkpoint":
        prepare_checkpoint()
    else:
        case_loading(rest[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--part", choices=PARTS, action="append")
    ap.add_argument("--case", nargs="+", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.case:
        _case(a.case)
        return 0
    parts = list(PARTS) if a.all else (a.part or [])
    old = [json.loads(x) for x in OUT.read_text().splitlines() if x] if OUT.exists() else []
    rows = [r for r in old if _part_of(r) not in parts]
    for part in parts:
        start = time.perf_counter()
        rows += part_rows(part)
        print(f"{part}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
        OUT.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
