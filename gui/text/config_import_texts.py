"""The words of an imported training config, in the user's language (no widgets: the panel only shows them).

The engine's report (``engine.config_import.ImportReport``) says what was read, ignored (with why) and assumed;
its sentences are ``Message`` templates marked in the context ``engine`` (``tools/translations.py`` extracts
them), translated here and filled with their values. A few sentences name a command-line flag; the window says
the same thing in its own terms (``GUI_WORDING``). Setup fields are named as the Memory page names them.

An alignment method a file names picks the Alignment page's stage (``STAGES``): DPO, PPO and GRPO are stages of
their own; IPO is DPO with another loss; KTO holds DPO's models and RLOO GRPO's, so they are drawn as those, with a
note saying what differs. ORPO, SimPO, CPO and reward modelling have no stage: the Memory page shows the
training, with a note.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.alignment import Stage
from engine.config_import import AlignmentMethod, ConfigRefusedError, Format, ImportedConfig, Message
from engine.config_import import importer as engine_importer
from engine.config_import.detect import MODEL_CONFIG
from engine.config_import.report import NOT_USED, show
from gui.text.tr import QT_TRANSLATE_NOOP, translate

C = "ConfigImport"

# engine sentences that name a command-line flag, as the window says them
GUI_WORDING = {
    engine_importer.NOT_FOUND: QT_TRANSLATE_NOOP(
        "ConfigImport", "{value} was not found beside the config; select it too when you import, to use it"),
    MODEL_CONFIG: QT_TRANSLATE_NOOP(
        "ConfigImport", "a model's config.json, not a training config; drop it on the window or use the Memory "
                        "page's Import config.json to import the model"),
}

FORMATS = {Format.AXOLOTL: "Axolotl", Format.LLAMA_FACTORY: "LLaMA-Factory", Format.TORCHTUNE: "torchtune",
           Format.TRL: "TRL", Format.DEEPSPEED: "DeepSpeed", Format.ACCELERATE: "accelerate",
           Format.TORCHTITAN: "torchtitan"}
#: a file that is no tool's format (issue 27), named in the user's language
SCRIPT_ARGS = QT_TRANSLATE_NOOP("ConfigImport", "a training script's own arguments")

FIELDS = {
    "format": QT_TRANSLATE_NOOP("ConfigImport", "Format"),
    "model": QT_TRANSLATE_NOOP("ConfigImport", "Model"),
    "alignment": QT_TRANSLATE_NOOP("ConfigImport", "Alignment method"),
    "method": QT_TRANSLATE_NOOP("ConfigImport", "Method"),
    "precision": QT_TRANSLATE_NOOP("ConfigImport", "Precision"),
    "optimizer": QT_TRANSLATE_NOOP("ConfigImport", "Optimizer"),
    "batch": QT_TRANSLATE_NOOP("ConfigImport", "Micro-batch"),
    "seq_len": QT_TRANSLATE_NOOP("ConfigImport", "Sequence length"),
    "grad_accum": QT_TRANSLATE_NOOP("ConfigImport", "Gradient accumulation"),
    "attention": QT_TRANSLATE_NOOP("ConfigImport", "Attention"),
    "checkpointing": QT_TRANSLATE_NOOP("ConfigImport", "Gradient checkpointing"),
    "gpus": QT_TRANSLATE_NOOP("ConfigImport", "GPUs"),
    "sharding": QT_TRANSLATE_NOOP("ConfigImport", "Sharding"),
    "offload_optimizer": QT_TRANSLATE_NOOP("ConfigImport", "Offload the optimizer"),
    "offload_params": QT_TRANSLATE_NOOP("ConfigImport", "Offload the parameters"),
    "lora.rank": QT_TRANSLATE_NOOP("ConfigImport", "LoRA rank"),
    "lora.alpha": QT_TRANSLATE_NOOP("ConfigImport", "LoRA alpha"),
    "lora.dropout": QT_TRANSLATE_NOOP("ConfigImport", "LoRA dropout"),
    "lora.targets": QT_TRANSLATE_NOOP("ConfigImport", "LoRA targets"),
    "quant.quant_type": QT_TRANSLATE_NOOP("ConfigImport", "4-bit data type"),
    "quant.double_quant": QT_TRANSLATE_NOOP("ConfigImport", "Double quantization"),
    "parallel.tp": QT_TRANSLATE_NOOP("ConfigImport", "Tensor parallel"),
    "parallel.pp": QT_TRANSLATE_NOOP("ConfigImport", "Pipeline parallel"),
    "parallel.cp": QT_TRANSLATE_NOOP("ConfigImport", "Context parallel"),
    "parallel.ep": QT_TRANSLATE_NOOP("ConfigImport", "Expert parallel"),
    "parallel.sequence_parallel": QT_TRANSLATE_NOOP("ConfigImport", "Sequence parallel"),
    "parallel.micro_batches": QT_TRANSLATE_NOOP("ConfigImport", "Pipeline micro-batches"),
    "loss": QT_TRANSLATE_NOOP("ConfigImport", "Loss"),
    "loss_chunks": QT_TRANSLATE_NOOP("ConfigImport", "Loss chunks"),
    "activation_offload": QT_TRANSLATE_NOOP("ConfigImport", "Offload activations"),
    "checkpoint_every": QT_TRANSLATE_NOOP("ConfigImport", "Checkpointed layers (one in k)"),
    "optimizer_in_backward": QT_TRANSLATE_NOOP("ConfigImport", "Optimizer step in backward"),
    "compile": QT_TRANSLATE_NOOP("ConfigImport", "torch.compile"),
    "stack": QT_TRANSLATE_NOOP("ConfigImport", "Training stack"),
    "optimizer_impl": QT_TRANSLATE_NOOP("ConfigImport", "AdamW implementation"),
    "alloc_conf": QT_TRANSLATE_NOOP("ConfigImport", "Allocator settings (PYTORCH_CUDA_ALLOC_CONF)"),
    # issue 27's options, named as the Memory page's controls are
    "dora": QT_TRANSLATE_NOOP("ConfigImport", "DoRA"),
    "modules_to_save": QT_TRANSLATE_NOOP("ConfigImport", "Modules trained in full"),
    "freeze_layers": QT_TRANSLATE_NOOP("ConfigImport", "Trained layers"),
    "oft_block_size": QT_TRANSLATE_NOOP("ConfigImport", "OFT block"),
    "optimizer_rank": QT_TRANSLATE_NOOP("ConfigImport", "Projection rank"),
    "offload_optimizer_device": QT_TRANSLATE_NOOP("ConfigImport", "Where the optimizer is offloaded"),
    "offload_params_device": QT_TRANSLATE_NOOP("ConfigImport", "Where the parameters are offloaded"),
    "parallel.cp_comm_type": QT_TRANSLATE_NOOP("ConfigImport", "CP exchange"),
    "fsdp_version": QT_TRANSLATE_NOOP("ConfigImport", "FSDP version"),
}

STAGES = {AlignmentMethod.DPO: Stage.DPO, AlignmentMethod.IPO: Stage.DPO, AlignmentMethod.KTO: Stage.DPO,
          AlignmentMethod.PPO: Stage.PPO, AlignmentMethod.GRPO: Stage.GRPO, AlignmentMethod.RLOO: Stage.GRPO}

METHOD_NAMES = {AlignmentMethod.DPO: "DPO", AlignmentMethod.IPO: "IPO", AlignmentMethod.ORPO: "ORPO",
                AlignmentMethod.SIMPO: "SimPO", AlignmentMethod.CPO: "CPO", AlignmentMethod.KTO: "KTO",
                AlignmentMethod.PPO: "PPO", AlignmentMethod.GRPO: "GRPO", AlignmentMethod.RLOO: "RLOO"}
REWARD = QT_TRANSLATE_NOOP("ConfigImport", "reward modelling")

_OWN_STAGE = QT_TRANSLATE_NOOP("ConfigImport", "The file trains with {method}: the Alignment page shows its stage.")
_AS_STAGE = {
    AlignmentMethod.IPO: QT_TRANSLATE_NOOP(
        "ConfigImport", "The file trains with IPO, DPO with another loss: the Alignment page shows the DPO stage."),
    AlignmentMethod.KTO: QT_TRANSLATE_NOOP(
        "ConfigImport", "The file trains with KTO, which holds DPO's models (the policy and a frozen reference): "
                        "the Alignment page shows the DPO stage. Its second sequence per example keeps "
                        "activations for the backward pass, where KTO's (the mismatched completion of its KL "
                        "estimate) runs without gradients, so the activations shown are an upper bound."),
    AlignmentMethod.RLOO: QT_TRANSLATE_NOOP(
        "ConfigImport", "The file trains with RLOO, which holds GRPO's models (the policy, a frozen reference, the "
                        "reward) and samples several completions per prompt: the Alignment page shows the GRPO "
                        "stage."),
}
_NO_STAGE = QT_TRANSLATE_NOOP(
    "ConfigImport", "The file trains with {method}, for which the Alignment page has no stage: the Memory page "
                    "shows the training at the file's micro-batch, one sequence per example, where {method} runs "
                    "two (the chosen and the rejected answer).")
_MODEL_KEPT = QT_TRANSLATE_NOOP(
    "ConfigImport", "The file's model, {value}, is not one VRAM Lab knows: the current model, {model}, is kept. "
                    "Pick another on the Memory page, or drop the model's config.json on the window.")
_SUMMARY = QT_TRANSLATE_NOOP("ConfigImport", "{files} ({tool}): {read} read, {ignored} ignored, {assumed} assumed.")
_SHOWN_ON = QT_TRANSLATE_NOOP("ConfigImport", "The {page} page shows the imported setup; Edit ▸ Undo ({keys}) "
                                              "brings back the scenario you had.")
_READ = QT_TRANSLATE_NOOP("ConfigImport", "Read ({n})")
_IGNORED = QT_TRANSLATE_NOOP("ConfigImport", "Ignored ({n})")
_ASSUMED = QT_TRANSLATE_NOOP("ConfigImport", "Assumed ({n})")
_KEY = QT_TRANSLATE_NOOP("ConfigImport", "Key")
_VALUE = QT_TRANSLATE_NOOP("ConfigImport", "Value in the file")
_WHY = QT_TRANSLATE_NOOP("ConfigImport", "Why it is not used as written")
_FIELD = QT_TRANSLATE_NOOP("ConfigImport", "Setting")
_USED = QT_TRANSLATE_NOOP("ConfigImport", "Value used")
_NONE = QT_TRANSLATE_NOOP("ConfigImport", "Nothing.")


def tr(text: str) -> str:
    return translate(C, text)


def message_text(message: Message) -> str:
    """An engine sentence in the user's language, filled with its values."""
    template = GUI_WORDING.get(message.template)
    text = tr(template) if template is not None else translate("engine", message.template)
    return text.format(**dict(message.args))


def refusal_line(err: Exception) -> str:
    """One line naming the file (and the key) and why: a refused import, translated; any other error as it is.
    The engine's hint names a command-line flag, so it is left out here."""
    if isinstance(err, ConfigRefusedError):
        where = f"{err.file}: {err.key}: " if err.key else f"{err.file}: "
        return where + message_text(err.message)
    return " ".join(str(err).split())


def field_label(name: str) -> str:
    """A setup field as the Memory page names it (``seq_len`` -> "Sequence length")."""
    return tr(FIELDS[name]) if name in FIELDS else name


def method_name(method: AlignmentMethod) -> str:
    return METHOD_NAMES.get(method) or tr(REWARD)


def stage_for(method: AlignmentMethod | None) -> Stage | None:
    """The Alignment page's stage that draws ``method`` (None: the Memory page shows it)."""
    return STAGES.get(method) if method is not None else None


def alignment_note(method: AlignmentMethod) -> str:
    """Where the imported method is shown, and how near that is (module docstring)."""
    if method in _AS_STAGE:
        return tr(_AS_STAGE[method])
    template = _OWN_STAGE if method in STAGES else _NO_STAGE
    return tr(template).format(method=method_name(method))


def model_kept_note(err: ConfigRefusedError, model_label: str) -> str:
    """The note when the file's model is unknown and the current one is kept."""
    return tr(_MODEL_KEPT).format(value=dict(err.message.args).get("value", ""), model=model_label)


@dataclass(frozen=True)
class Section:
    """One tab of the panel: its title, its two column headings and its rows (plain text); ``keys``: the first
    column holds a file's keys (shown as code), not the names of settings."""

    title: str
    headings: tuple[str, str]
    rows: tuple[tuple[str, str], ...]
    keys: bool = True


@dataclass(frozen=True)
class ReportView:
    """Everything the panel shows, translated: a summary, notes, and the read / ignored / assumed sections."""

    summary: str
    shown: str
    sections: tuple[Section, Section, Section]
    notes: tuple[str, ...] = ()


def _value(value: Any) -> str:
    if isinstance(value, Message):  # the assumed format of a script's arguments: a sentence, translated whole
        return message_text(value)
    return show(getattr(value, "value", value))


def sections(imported: ImportedConfig) -> tuple[Section, Section, Section]:
    """Read (key, value in the file), ignored (key, why: a particular reason before "not a setting the memory
    estimate uses") and assumed (setting, value used)."""
    r = imported.report
    read = tuple((key, _value(v)) for key, v in r.read.items())
    ignored = tuple((i.key, message_text(i.why)) for i in sorted(r.ignored, key=lambda i: i.why.template == NOT_USED))
    assumed = tuple((field_label(name), _value(v)) for name, v in r.assumed.items())
    return (Section(tr(_READ).format(n=len(read)), (tr(_KEY), tr(_VALUE)), read),
            Section(tr(_IGNORED).format(n=len(ignored)), (tr(_KEY), tr(_WHY)), ignored),
            Section(tr(_ASSUMED).format(n=len(assumed)), (tr(_FIELD), tr(_USED)), assumed, keys=False))


def report_view(imported: ImportedConfig, page_title: str, undo_keys: str, notes: Iterable[str] = ()) -> ReportView:
    """The panel's content for an import shown on the page titled ``page_title``."""
    r = imported.report
    files = ", ".join(f.replace("\\", "/").rsplit("/", 1)[-1] for f in r.files)
    tool = tr(SCRIPT_ARGS) if r.format is Format.SCRIPT_ARGS else FORMATS[r.format]
    summary = tr(_SUMMARY).format(files=files, tool=tool, read=len(r.read), ignored=len(r.ignored),
                                  assumed=len(r.assumed))
    shown = tr(_SHOWN_ON).format(page=page_title, keys=undo_keys)
    extra = [alignment_note(imported.alignment)] if imported.alignment is not None else []
    return ReportView(summary, shown, sections(imported), (*notes, *extra))


def section_html(section: Section) -> str:
    """A section as a rich-text table (escaped), or a line saying it is empty."""
    if not section.rows:
        return f"<p>{html.escape(tr(_NONE))}</p>"
    head = "".join(f"<th align='left' width='{w}'>{html.escape(h)}</th>" for h, w in zip(section.headings,
                                                                                      ("40%", "60%"), strict=True))
    first = "<td><code>{}</code></td>" if section.keys else "<td>{}</td>"
    rows = "".join(f"<tr>{first.format(html.escape(a))}<td>{html.escape(b)}</td></tr>" for a, b in section.rows)
    return f"<table cellspacing='0' cellpadding='4' width='100%'><tr>{head}</tr>{rows}</table>"
