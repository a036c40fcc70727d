"""Write docs/accuracy.md: every bundled measurement against the engine's estimate.

``python tools/accuracy_report.py`` (after ``tools/export_traces.py`` when the traces changed).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.allocator.device import cublas_workspace_bytes, cuda_context, nccl_buffers  # noqa: E402
from engine.allocator.total import with_device_total  # noqa: E402
from engine.catalog import get_gpu, get_model  # noqa: E402
from engine.specs import Sharding, TrainingSetup  # noqa: E402
from engine.training import estimate  # noqa: E402
from engine.training.accuracy import (  # noqa: E402
    Comparison,
    _load,
    gpu_runs,
    offloaded_host,
    stack_traces,
    summarize,
    traced_steps,
)
from engine.training.host_accuracy import HostComparison, host_runs, runtime_rows, token_rows  # noqa: E402
from tools.published import compare  # noqa: E402

GIB = 1 << 30


def _table(rows: tuple[Comparison, ...]) -> list[str]:
    out = ["| run | measured (GiB) | estimate (GiB) | error |", "|---|---:|---:|---:|"]
    for r in rows:
        note = "" if r.comparable else " (not comparable: different adapter placement)"
        out.append(f"| {r.described}{note} | {r.measured_bytes / GIB:.2f} | {r.estimated_bytes / GIB:.2f} "
                   f"| {r.error:+.2%} |")
    return out


def _kernel_section(rows: tuple[Comparison, ...]) -> list[str]:
    """The traced rows that ran kernels through registered fakes (calibration/kernels.py)."""
    faked = [r for r in rows if r.fake_kernels]
    if not faked:
        return []
    out = [
        "## Hybrid layers: traced with registered fakes of their kernels",
        "",
        "These rows run transformers' own modeling code for layers whose kernels users install from other packages",
        "(flash-linear-attention, causal-conv1d, mamba-ssm), which cannot run on this CPU-only machine. Each kernel",
        "function is a transcription of the package's Python code at the version named (the same allocations,",
        "shapes, dtypes and lifetimes, the same tensors saved by its autograd Function), with every GPU kernel launch",
        "a registered custom op (`torch.library.custom_op` with `register_fake`) that writes its outputs in place:",
        "calibration/kernels.py. They are in the table above too; here with the functions each one faked.",
        "",
        "| run | faked kernels | measured (GiB) | estimate (GiB) | error |",
        "|---|---|---:|---:|---:|",
    ]
    for r in faked:
        out.append(f"| {r.described} | {'; '.join(r.fake_kernels)} | {r.measured_bytes / GIB:.2f} "
                   f"| {r.estimated_bytes / GIB:.2f} | {r.error:+.2%} |")
    return [*out, ""]


def _published_rows() -> list[str]:
    return [
        f"| {r.id} | {r.what} | {r.value_gb:.1f} | {b / 1e9:.1f} ({r.metric}) | {b / 1e9 / r.value_gb:.2f} | {r.note} |"
        for r, b in compare()
    ]


#: the published CUDA snapshots the allocator check was run on (tools/allocator_check.py; not bundled: each
#: repository's own files, read at the commit named)
_SNAPSHOTS = (
    ("kkaitlyn111/cs336-a2-systems @ c1272e18, 5 snapshots (Transformer forward / full step, 1.0-3.3 MB)",
     "16.65-56.91", "0 bytes", "178-783 segments, all equal"),
    ("Wedsonlin/assignment2-systems @ 87b08641, 8 snapshots (medium model, 128-1,024 tokens, inference / training)",
     "1.64-23.45", "0 bytes", "0-1 (recording began after warm-up)"),
    ("cranberrii/ftcourse @ a8cedf28, memory_snapshot.pickle", "6.03", "0 bytes", "152 / 152"),
)


def _reserved_rows() -> tuple[list[str], list[float]]:
    gpu = get_gpu("h200")
    out = ["| run | allocated (GiB) | reserved measured (GiB) | replayed (GiB) | error | the ratio's error | "
           "cached in no live block (GiB) |", "|---|---:|---:|---:|---:|---:|---:|"]
    errors = []
    for r in _load("gpu_runs.json")["runs"]:
        e0 = estimate(get_model(r["model"]), TrainingSetup.model_validate(r["setup"]), gpu)
        e = with_device_total(e0)
        measured = r["max_memory_reserved"]
        err = e.reserved_bytes / measured - 1
        errors.append(abs(err))
        out.append(f"| {r['described']} | {e.peak_allocated_bytes / GIB:.2f} | {measured / GIB:.2f} "
                   f"| {e.reserved_bytes / GIB:.2f} | {err:+.2%} | {e0.reserved_bytes / measured - 1:+.2%} "
                   f"| {e.device_detail.fragmentation / GIB:.2f} |")
    return out, errors


def _device_section() -> list[str]:
    rows, errors = _reserved_rows()
    h100, h200 = get_gpu("h100-80gb"), get_gpu("h200")
    fsdp = nccl_buffers(h100, TrainingSetup(gpus=8, sharding=Sharding.ZERO3))
    return [
        "## The device total (issue 26)",
        "",
        "What nvidia-smi shows is the caching allocator's reserve plus memory the allocator never sees.",
        "`estimate` replays its two steps through a model of PyTorch's caching allocator (engine/allocator:",
        "CUDACachingAllocator.cpp rule by rule, with the setup's `--alloc-conf`) and adds each addend",
        "(engine/allocator/device.py):",
        "",
        "| addend | where | source | check |",
        "|---|---|---|---|",
        "| reserve: the replayed reserved peak | inside PyTorch | c10/cuda/CUDACachingAllocator.cpp (pytorch/pytorch "
        "001074d2; torch 2.13.0's defaults) | published snapshots replayed (below); the H200 runs (below) |",
        f"| cuBLAS workspaces, one per matmul thread ({cublas_workspace_bytes(h200) >> 20} MiB on sm90, "
        f"{cublas_workspace_bytes(get_gpu('a100-80gb')):,} bytes elsewhere) | inside the reserve | "
        "aten/src/ATen/cuda/CublasHandlePool.cpp (parseChosenWorkspaceSize, getNewWorkspace) | part of the H200 "
        "runs' reserve |",
        f"| CUDA context ({cuda_context(h200).bytes / 1e9:.2f} GB) | outside | measured on an H200 (shared/"
        "ENVIRONMENT.md); the context alone is 287 MB with lazy loading (pytorch#86509), 426 MiB on an RTX 6000 Ada "
        "(unsloth-zoo#1053) | not checked on other GPUs |",
        f"| NCCL buffers ({fsdp.bytes / 2**20:.0f} MiB on 8 x H100 under ZeRO-3: {fsdp.formula}) | outside | "
        "NVIDIA/nccl v2.30.7 (src/init.cc, src/transport/p2p.cc, src/transport/nvls.cc, src/graph/paths.cc) | "
        "the per-connection buffers NVIDIA/nccl#1685 logs (10 + 2 MiB, 32 channels on H100) |",
        "| paged optimizer states | outside (unified memory) | bitsandbytes paged optimizers | - |",
        "",
        "Reserved bytes against `torch.cuda.max_memory_reserved()` of the eight H200 runs (not fitted to them; the",
        "ratio column is the engine's former rule, a median ratio of these very runs): median absolute error "
        f"{100 * statistics.median(errors):.2f}%, worst {100 * max(errors):.2f}%.",
        "",
        *rows,
        "",
        "The allocator model replayed over published memory snapshots of real CUDA runs (`python -m engine snapshot",
        "FILE` prints it as `allocator_check`; `tools/allocator_check.py` lists it): from the trace's allocations and",
        "frees alone, starting from the segments alive at its first event, it reproduces the reserved bytes the",
        "snapshot records at every event.",
        "",
        "| snapshots | recorded reserved peak (GiB) | largest difference at any event "
        "| segments made, recorded / model |",
        "|---|---:|---:|---|",
        *[f"| {a} | {b} | {c} | {d} |" for a, b, c, d in _SNAPSHOTS],
        "",
        "Not replayed yet: tensor, pipeline, context and expert parallel layouts (their reserved and device totals",
        "keep the former ratio), Apple GPUs (MPS has its own allocator). The activations are cut into the parts the",
        "engine's rules add up (each norm's input, each linear group's, the attention core, the MLP), not into every",
        "tensor; the sharding buffers are one block per change.",
        "",
    ]


def _host_table(rows: tuple[HostComparison, ...]) -> list[str]:
    out = ["| row | case | before (MB) | measured (MB) | engine (MB) | error | added: measured | engine | error |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        note = "" if r.comparable else " (not modelled: see below)"
        out.append(f"| {r.id} | {r.described}{note} | {r.before_bytes / 1e6:,.1f} | {r.measured_bytes / 1e6:,.1f} "
                   f"| {r.estimated_bytes / 1e6:,.1f} | {r.error:+.1%} | {r.added_bytes / 1e6:,.1f} "
                   f"| {r.modelled_bytes / 1e6:,.1f} | {r.added_error:+.1%} |")
    return out


def _host_section() -> list[str]:
    rows = host_runs()
    if not rows:
        return []
    worst = max(abs(r.error) for r in rows if r.comparable)
    return [
        "## Host RAM (calibration/host_rss.py)",
        "",
        "Measured on this project's Debian 12 machine (2 cores, Python 3.11.7, torch 2.13.0+cpu, transformers 5.24,",
        "datasets 5.2); calibration/README.md (Host RAM) says how and what was found; regenerate with",
        "`python -m calibration.host_rss --all` in the dev venv, then `python tools/export_host_rss.py`.",
        "Every figure is PSS, which splits a page shared by several processes among them, so that a process tree",
        "counts it once: *dataset* rows are a DataLoader epoch (the main process and its forked workers, summed,",
        "mid-epoch or at its end, whichever is larger), *loading* rows one of two processes loading the checkpoint at",
        "once. *before*: before the data or the weights (the runtime); *engine*: before + the engine's terms for the",
        "same case (dataset + DataLoader workers, or that rank's model loading; one GPU per process, no CUDA host",
        "side); *added*: the part the engine models, alone (a fixed 5-12 MB of DataLoader iteration is not modelled,",
        "which shows in the smallest rows).",
        "",
        "Rows marked *not modelled*: streaming (a reader held, mid-epoch, several times the Arrow size of the Parquet",
        "row group it decoded in the main process and less in forked workers, with glibc's allocator or pyarrow's",
        "default mimalloc pool alike: the engine's buffer-plus-one-row-group is not checked), and `full-per-process`",
        "with the checkpoint's own dtype (transformers 5.24 keeps those weights memory-mapped: each process's RSS",
        "shows the whole model, but the two share one copy in the page cache; the engine costs a private copy per",
        "process, which the fp32 rows, a dtype change, measure).",
        f"{len(rows)} rows, {sum(r.comparable for r in rows)} checked: worst error of the total {worst:.1%}, "
        f"median {statistics.median(abs(r.error) for r in rows if r.comparable):.1%}.",
        "",
        *_host_table(rows),
        "",
        "Runtime rows (RSS of a fresh interpreter after these imports; the engine's `RUNTIME_CPU_BYTES` is the last):",
        "",
        "| imports | RSS (MB) |",
        "|---|---:|",
        *[f"| {what} | {rss / 1e6:,.1f} |" for what, rss in runtime_rows()],
        "",
        "The issue's figures re-measured (4 Mi tokens, bytes of RSS per token; 512-token examples parsed from JSON):",
        "",
        "| form | bytes per token |",
        "|---|---:|",
        *[f"| {form} | {bpt:.1f} |" for form, bpt in token_rows()],
        "",
    ]


#: each stack's rules the engine counts from the stack's source without a trace (calibration/stacks/NOTES.md)
UNTRACED = {
    "torchtitan": [
        "Pipelining's FSDP2 (torch 2.13 pipelining/stage.py `backward_maybe_with_nosync`): every stage's parameters "
        "gathered in bf16 and its gradients accumulated unsharded in fp32 until the last micro-batch (6 bytes a "
        "parameter of the stage); read, not traced (its gathering alone is traced: the `reshard-never` row).",
        "The compiled cross-entropy's backward as one fused kernel writing the logits' gradient (its saved set is "
        "traced: calibration/stacks/compiled_block.py); the compiled blocks' backward temporaries are eager's.",
        "float8 (`--float8`) is traced (NOTES.md section 8) and refused: not costed.",
    ],
    "torchtune": [
        "`--optimizer-in-backward` (optimizer_in_bwd: one gradient at a time, step 1's states made in backward) and "
        "`--checkpoint-every` (ac_mode selective): read from training/memory.py and training/activations.py, not "
        "traced; its full fine-tuning RMSNorm (the fp32 normalised tensor kept) likewise.",
    ],
    "litgpt": [
        "Not traced (Lightning Fabric is not in the dev venv): bf16-true QLoRA (no fp32 casts), 32-bit paged AdamW "
        "(fp32 states), foreach AdamW, bf16-mixed as autocast over fp32 parameters are its rules; its own GPT block "
        "(fused qkv, its RMSNorm, LoRAQKVLinear) and its 128-token chunked loss are costed with transformers' "
        "layer and loss rules.",
    ],
    "megatron": [
        "Not traced: with --bf16 the gradients are accumulated in fp32 `main_grad` buffers allocated with the model "
        "(4 bytes a parameter from the first forward, whole also with the distributed optimizer, which shards the "
        "fp32 main parameters and Adam states: `--sharding zero1`); Transformer Engine's fused Adam.",
    ],
}


def _stack_section() -> list[str]:
    """Issue 25: each stack's own step, grouped by stack (calibration/stacks/NOTES.md has every traced case), and
    what of each stack is counted from its source without a trace (:data:`UNTRACED`)."""
    out = ["## Stack traces (issue 25)", "",
           "Each stack's own code traced with fake tensors (calibration/stacks/: transformers' real `Trainer.train()`,",
           "torchtitan's FSDP2 step over 8 fake ranks, torchtune's recipe step); bundled here are the traces whose",
           "every rule the engine models (`tools/export_stack_traces.py`), each estimated with its setup typed as",
           "flags, `--stack` among them. calibration/stacks/NOTES.md lists every traced case with the engine beside",
           "it, the rules the engine does not model yet among them.", ""]
    traced = stack_traces()
    for stack in dict.fromkeys([*traced, *UNTRACED]):
        out += [f"### {stack}", ""]
        if stack in traced:
            out += [*_table(traced[stack]), ""]
        if stack == "hf-trainer":
            out += _hf_trainer_notes()
        out += [f"- {line}" for line in UNTRACED.get(stack, [])]
        out += [""] if stack in UNTRACED else []
    return out


def _hf_trainer_notes() -> list[str]:
    """What the hf-trainer rows rest on, what maps to the flags, and its rules counted from source only."""
    return [
        "The QLoRA rows run PEFT's `prepare_model_for_kbit_training` and bitsandbytes' `Linear4bit` as the Trainer",
        "does (engine/training/policy.py, NOTES.md section 1): the embeddings, norms and head in fp32, the fp32",
        "residual stream and 4-bit layers' outputs, the head's bf16 autocast copy, autocast's copies of the fp32",
        "adapters (also in the plain-LoRA rows), bitsandbytes' optimizer states tensor by tensor (paged only for",
        "tensors of 1e5 elements or more). The engine stays 0.45% under the r64 case at the end of the forward:",
        "the final norm's fp32 output, alive while the loss runs, is not counted.",
        "",
        "**Checkpointing.** `--checkpointing` states what ran. PEFT's preparation turns reentrant checkpointing on",
        "unless it is called with `use_gradient_checkpointing=False`, whatever `TrainingArguments` says: a Trainer",
        "script that calls `prepare_model_for_kbit_training(model)` checkpoints (`--checkpointing full`) even with",
        "`gradient_checkpointing: false`. TRL up to 0.22 passes its own `gradient_checkpointing` to PEFT, so a TRL",
        "file's `gradient_checkpointing: false` is `--checkpointing none`, as config import reads it; Axolotl and",
        "LLaMA-Factory likewise follow their own switch (`gradient_checkpointing`, `disable_gradient_checkpointing`).",
        "",
        "**Counted from source, not traced** (hf-trainer):",
        "",
        "| rule | flags | source |",
        "|---|---|---|",
        "| accelerate's FSDP with mixed precision: fp32 shards of what trains (16 bytes per parameter over N GPUs "
        "for a full fine-tune), bf16 gathered units, no autocast copy | `--fsdp-version 1` / `2` with `--sharding "
        "zero3` (or zero2) | accelerate/accelerator.py `Accelerator.prepare_model`@1.15.0; "
        "accelerate/utils/fsdp_utils.py `fsdp2_prepare_model`@1.15.0 |",
        "| FSDP2 leaves bitsandbytes' 4-bit `Params4bit` out of sharding: whole on every GPU | `--fsdp-version 2 "
        "--method qlora` | accelerate/utils/fsdp_utils.py `fsdp2_prepare_model`@1.15.0 (`ignored_params`) |",
        "| bitsandbytes' quantization constants are never sharded (a `QuantState` is no parameter) | `--method qlora "
        "--sharding zero3` | bitsandbytes/nn/modules.py `Params4bit`@0.50.2 |",
        "",
        "Not modelled: TRL's SFTTrainer calls PEFT's preparation up to 0.22 only (from 0.23 its own, which casts",
        "nothing; from 0.26 a quantized model's adapters are cast to bf16), LLaMA-Factory 0.9.5 casts only the norms",
        "(`upcast_layernorm`), Axolotl 0.19 can keep the embeddings and head in 16 bits (`embeddings_skip_upcast`):",
        "the engine counts PEFT's preparation for every hf-trainer QLoRA run, an upper bound for those.",
        "",
    ]


def _summary_line(name: str, rows: tuple[Comparison, ...]) -> str:
    s = summarize(rows)
    if s is None:
        return f"- {name}: none bundled."
    return (f"- {name}: {s.runs} runs, median absolute error {s.median_abs_error:.2%}, "
            f"worst {s.worst_abs_error:.2%}.")


def fragment(name: str) -> list[str]:
    """A hand-written section of the report, kept in ``docs/accuracy/NAME`` (the step time's fit and validation,
    the serving rules and their checks: written with their own tools, tools/fit_timing.py and tools/serve_logs.py)."""
    return [*(ROOT / "docs" / "accuracy" / name).read_text(encoding="utf-8").splitlines(), ""]


def main() -> int:
    gpu, traced = gpu_runs(), traced_steps()
    lines = [
        "# Accuracy of the training-memory estimate",
        "",
        "Generated by `python tools/accuracy_report.py`; the same numbers are checked by",
        "`tests/engine/test_accuracy.py` and quoted by the memory page. The quantity compared is the",
        "**allocated peak** (`torch.cuda.max_memory_allocated()`), not what nvidia-smi shows.",
        "",
        _summary_line("Real training steps on an H200 (shared/reference/gpu_llama.jsonl)", gpu),
        _summary_line("PyTorch training steps traced with fake tensors (calibration/)", traced),
        "",
        "## Real H200 runs",
        "",
        *_table(gpu),
        "",
        "## Traced training steps",
        "",
        "Traced on the CPU with `FakeTensorMode` and a live-storage counter (calibration/README.md: the method,",
        "its validation against real CPU runs, and its limits; regenerate with",
        "`python -m calibration.trace --all` in the dev venv, then `python tools/export_traces.py`).",
        "Runs whose trained parameters differ from the engine's count would be listed but left out of the summary;",
        "since issue 13 the engine places LoRA as PEFT 0.21.2 does (fused MoE experts and routers as parameters,",
        "fused qkv / gate_up projections), so every row counts. Ids ending in a layer count (`deepseek-v3-5l`,",
        "`llama-4-maverick-4l`, `glm-4.5-air-3l`, `minimax-m2-3l`, `exaone-4.0-32b-4l`) are the real configs with",
        "fewer layers, every layer kind kept (calibration/models.py says which). The families the training-config",
        "import (issue 16) brought into the catalog are traced too: StableLM 2 (LayerNorm with a bias in a gated-MLP",
        "model, q/k/v biases switched by `use_qkv_bias`, RoPE on a quarter of each head), Gemma (1) (GeGLU, one",
        "key-value head) and Qwen1.5-MoE (60 experts and a gated shared expert, which PEFT's all-linear leaves",
        "alone); their other new models (Qwen2, Code Llama, TinyLlama, OpenLLaMA, Yi, Mistral 7B v0.2, LLaVA 1.5's",
        "language model) are Llama / Mistral / Qwen2 decoders already traced here.",
        "Ids starting `op-` are issue 27's options, each run by its library's own code on fake tensors",
        "(calibration/options.py; calibration/README.md, Issue 27): torchao's AdamW4bit / AdamW8bit (0.18.0; its",
        "compiled step's buffers stand in for inductor's, read from its output code), torch's RMSprop and Muon",
        "(2.13.0), galore-torch 1.0, apollo-torch 1.0.3 and adam-mini 1.1.1 inside the same step; an 8-bit base",
        "(bitsandbytes 0.50.2 `Int8Params` / `MatMul8bitLt` on the CPU, its CUDA kernels' allocations emulated from",
        "source, no outlier columns); DoRA, OFT, `modules_to_save` and `trainable_token_indices` through PEFT 0.21.2;",
        "freeze tuning and BAdam as LLaMA-Factory 0.9.5 sets them up (its checkpointing emulated). The single",
        "optimizer steps (one matrix each, calibration/optimizer_steps.jsonl) are checked byte for byte by",
        "tests/engine/training/test_optimizers.py. Not traced here, derived by hand and tested so: NVMe offload",
        "(DeepSpeed 0.19.8's swapper buffers, tests/engine/training/test_nvme.py) and the Ulysses all-to-all's",
        "buffers (its exchange traced op by op under torch's fake process group: `python -m calibration.options",
        "--ulysses`; tests/engine/training/test_ulysses.py).",
        "",
        *_table(traced),
        "",
        *_kernel_section(traced),
        "## Activation offloading: what moved to host RAM",
        "",
        "The traced steps that offload activations (torchtune's OffloadActivations rules, calibration/long_context.py)",
        "also count the bytes moved to the host, at their largest; the estimate's `offloaded_bytes` (part of",
        "`host_bytes`) against them:",
        "",
        *_table(offloaded_host()),
        "",
        *_stack_section(),
        "## Published measurements (loose)",
        "",
        "From shared/reference/measured.csv, where the setup can be stated in the engine's terms (tools/published.py",
        "says what differs for each row). Decimal GB. These mix metrics and leave details out; no test holds the",
        "engine to them. The analytic rows (ZeRO's 120 / 31.4 / 16.6 / 1.88 GB for a 7.5B model on 64 GPUs, QLoRA's",
        "0.127 bits of constants per parameter) are reproduced exactly by tests/engine/test_published.py.",
        "",
        "| row | setup | published | engine (level) | ratio | differs |",
        "|---|---|---:|---:|---:|---|",
        *_published_rows(),
        "",
        *_device_section(),
        *_host_section(),
        *fragment("time.md"),
        "## Known gaps",
        "",
        "- hf-trainer's QLoRA follows PEFT's preparation (above); the tools on the Trainer that skip it (TRL from",
        "  0.23, LLaMA-Factory) are costed with it, an upper bound. accelerate's FSDP rules are read, not traced.",
        "- torchtitan's and torchtune's traced rows agree within 0.002% (their stacks' rules: NOTES.md sections 4,",
        "  5, 7); what of them is read but not traced is listed under each stack above.",
        "- LoRA on MoE experts follows PEFT 0.21.2 with transformers 5.24 (fused 3-D expert tensors: a merged",
        "  expert-weight copy per layer); other versions place adapters differently.",
        "- Sliding-window layers past their window (SDPA's additive bias) and MLA's narrower value head are",
        "  traced through patches that emulate the CUDA kernels (calibration/patches.py), not checked on a GPU.",
        "- Issue 27's options: DoRA and OFT take their forward's weight-sized temporaries from the largest adapted",
        "  linear of a layer (an upper bound where two moments peak in different linears: Llama 3.1 8B +0.5%);",
        "  GaLore's projector SVD counts the fp32 copy it factors, not cuSOLVER's own workspace; torchao's optimizers",
        "  are costed under ZeRO-3 as FSDP2 runs them (each DTensor shard) and refused under DeepSpeed's flat",
        "  partitions; fp8 training (torchao float8, Transformer Engine) is left to issue 25 and still refused.",
        "  None of these was run on a GPU.",
        "- Reserved and device totals of parallel layouts use the median reserved/allocated ratio of the H200 runs",
        "  (1.017-1.112); the rest come from the allocator replay (above).",
        "- Qwen2-VL and Qwen2.5-VL (their language model) are not traced: transformers builds their text model only",
        "  inside the multimodal wrapper. Their decoder is Qwen2's; what differs is the multimodal RoPE, whose cos and",
        "  sin are rebuilt in every layer (two b x s x head_dim tensors in 16 bits: 1 MiB a layer at 2,048 tokens, not",
        "  counted), and images, whose tokens the estimate does not count.",
        "",
    ]
    lines += fragment("serving.md")
    (ROOT / "docs" / "accuracy.md").write_text("\n".join(lines))
    print("\n".join(lines[6:8]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
