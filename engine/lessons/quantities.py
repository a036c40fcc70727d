"""The named numbers a goal may compare: the learner's inputs and the engine's results, each typed and labelled.

A goal names a quantity (``estimate.device_bytes``, ``serving.max_sequences``, ``alignment.ppo.models``,
``method``, ...) rather than a Python expression: the set is closed, every name is checked when a lesson loads,
each has a kind (bytes, count, number, yes/no, one of a set of choices) that decides which comparisons make sense,
and a label in both languages for the sentence that says why a goal passed or not.

Inputs (``model``, ``gpu``, the training setup's fields, ``serving.*`` settings, ``alignment.*`` options,
``attention.step``) can also be *kept* by a lesson: held at their starting value. Results are read from
:class:`engine.lessons.situation.Results`, which computes only what is asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any

from engine.alignment import Stage
from engine.attention import ATTENTION_DTYPE
from engine.attention_sizes import StepKey, flash_kept, tensor_size
from engine.attention_text import STEP_TEXT
from engine.catalog import gpus, models
from engine.lessons.situation import Results
from engine.lessons.text import Text, text
from engine.levers import biggest_term
from engine.serving import WeightDtype
from engine.serving.vllm_setup import KvCacheDtype
from engine.specs import Attention, Checkpointing, Method, Optimizer, Precision, Sharding
from engine.terms import TERMS, Scope, in_scope
from engine.units import Unit, format_bytes, format_count

Value = int | float | bool | str


class Kind(StrEnum):
    BYTES = "bytes"
    COUNT = "count"
    NUMBER = "number"
    BOOL = "bool"
    CHOICE = "choice"

    @property
    def numeric(self) -> bool:
        return self in (Kind.BYTES, Kind.COUNT, Kind.NUMBER)


@dataclass(frozen=True, slots=True)
class Quantity:
    """One named quantity: its kind, its label, how to read it, and for a choice its values and their words."""

    name: str
    kind: Kind
    label: Text
    read: Callable[[Results], Value]
    choices: Callable[[], Mapping[str, Text]] | None = None
    is_input: bool = False
    short_count: bool = False  # a parameter count: 6.74B rather than 6,738,415,616

    def show(self, value: Value, unit: Unit = Unit.GB) -> Text:
        """``value`` as the learner reads it, in both languages."""
        if self.kind is Kind.BOOL:
            return text("yes", "是") if value else text("no", "否")
        if self.kind is Kind.CHOICE:
            words = self.choices() if self.choices else {}
            return words.get(str(value)) or text(str(value), str(value))
        if self.kind is Kind.BYTES:
            shown = format_bytes(float(value), unit)
        elif self.kind is Kind.COUNT:
            shown = format_count(int(value)) if self.short_count else f"{int(value):,}"
        else:
            shown = f"{float(value):g}"
        return text(shown, shown)


# -- words for choices ----------------------------------------------------------------------------------------
#: the training terms, in stacking order (engine.terms)
TRAINING_TERMS = in_scope(Scope.TRAINING)
#: their Chinese as the GUI shows it (the ``words`` context of assets/translations/vramlab_zh_TW.ts; the engine
#: cannot read Qt's translations, so ``tests/engine/lessons/test_quantities.py`` checks these against the .ts)
TERM_ZH = {
    "weights": "權重",
    "gradients": "梯度",
    "optimizer_states": "優化器狀態",
    "activations": "激活值",
    "logits": "輸出分數（logits）",
    "sharding_buffers": "分片緩衝區",
    "temporaries": "暫存張量",
    "parallel_buffers": "平行化緩衝區",
}
#: each training term's words, English from ``engine.terms.TERMS`` (one term, one name)
TERM_WORDS = {name: text(TERMS[name].label, TERM_ZH[name]) for name in TRAINING_TERMS}
#: the attention steps' Chinese names as the walk-through shows them (context ``engine`` of the .ts)
STEP_ZH = {StepKey.X: "Token 嵌入", StepKey.Q: "Query", StepKey.K: "Key", StepKey.V: "Value", StepKey.SCORES: "分數",
           StepKey.MASKED: "因果遮罩", StepKey.SOFTMAX: "逐列 Softmax", StepKey.OUTPUT: "輸出"}
#: "step 5, Scores": the walk-through's names (``engine.attention_text``) and numbers
STEP_WORDS = {key.value: text(f"step {i}, {STEP_TEXT[key].name}", f"第 {i} 步，{STEP_ZH[key]}")
              for i, key in enumerate(StepKey, start=1)}


def _enum_words(enum: type[StrEnum]) -> Callable[[], Mapping[str, Text]]:
    return lambda: {e.value: text(e.value, e.value) for e in enum}


@cache
def _model_words() -> Mapping[str, Text]:
    return {m.id: text(m.label, m.label) for m in models()}


@cache
def _gpu_words() -> Mapping[str, Text]:
    return {g.id: text(g.name, g.name) for g in gpus()}


# -- the registry ---------------------------------------------------------------------------------------------
def _inputs() -> list[Quantity]:
    c, i, n, b = Kind.CHOICE, Kind.COUNT, Kind.NUMBER, Kind.BOOL

    def setup(field: str) -> Callable[[Results], Value]:
        return lambda r: _plain(getattr(r.situation.setup, field))

    def serving(field: str) -> Callable[[Results], Value]:
        return lambda r: _plain(getattr(r.situation.serving, field))

    def alignment(field: str) -> Callable[[Results], Value]:
        return lambda r: _plain(getattr(r.situation.alignment, field))

    rows: list[tuple[str, Kind, Text, Callable[[Results], Value], Callable[[], Mapping[str, Text]] | None]] = [
        ("model", c, text("model", "模型"), lambda r: r.situation.model.id, _model_words),
        ("gpu", c, text("GPU", "GPU"), lambda r: r.situation.gpu.id, _gpu_words),
        ("method", c, text("method", "方法"), setup("method"), _enum_words(Method)),
        ("precision", c, text("precision", "精度"), setup("precision"), _enum_words(Precision)),
        ("optimizer", c, text("optimizer", "優化器"), setup("optimizer"), _enum_words(Optimizer)),
        ("seq_len", i, text("sequence length", "序列長度"), setup("seq_len"), None),
        ("batch", i, text("batch", "批次"), setup("batch"), None),
        ("attention", c, text("attention kernel", "注意力實作"), setup("attention"), _enum_words(Attention)),
        ("checkpointing", c, text("gradient checkpointing", "梯度檢查點"), setup("checkpointing"),
         _enum_words(Checkpointing)),
        ("gpus", i, text("GPU count", "GPU 數量"), setup("gpus"), None),
        ("sharding", c, text("sharding", "分片"), setup("sharding"), _enum_words(Sharding)),
        ("offload_optimizer", b, text("optimizer offload", "優化器狀態卸載"), setup("offload_optimizer"), None),
        ("offload_params", b, text("parameter offload", "參數卸載"), setup("offload_params"), None),
        ("serving.tokens", i, text("context length", "上下文長度"), serving("tokens"), None),
        ("serving.sequences", i, text("concurrent sequences", "同時服務的序列數"), serving("sequences"), None),
        ("serving.kv_dtype", c, text("KV cache dtype", "KV cache 精度"), serving("kv_dtype"),
         _enum_words(KvCacheDtype)),
        ("serving.weight_dtype", c, text("weights dtype", "權重精度"), serving("weight_dtype"),
         _enum_words(WeightDtype)),
        ("serving.tp", i, text("tensor-parallel GPUs", "張量平行 GPU 數"), serving("tp"), None),
        ("alignment.reference_shares_base", b, text("reference shares the base", "reference 共用基底模型"),
         alignment("reference_shares_base"), None),
        ("alignment.dpo_precomputed_reference", b, text("DPO reference precomputed", "DPO reference 預先算好"),
         alignment("dpo_precomputed_reference"), None),
        ("alignment.grpo_kl", n, text("GRPO KL coefficient", "GRPO KL 係數"), alignment("grpo_kl_coef"), None),
        ("alignment.grpo_reward_model", b, text("GRPO reward model", "GRPO 獎勵模型"),
         alignment("grpo_reward_model"), None),
        ("alignment.rollout_share", n, text("rollout share of each GPU", "每張 GPU 給 rollout 的比例"),
         alignment("rollout_share"), None),
        ("attention.step", c, text("attention step", "注意力步驟"), lambda r: r.situation.attention_step.value,
         lambda: STEP_WORDS),
    ]
    return [Quantity(name, kind, label, read, choices, is_input=True) for name, kind, label, read, choices in rows]


def _plain(value: Any) -> Value:
    """An enum as its value; numbers and booleans as they are."""
    return value.value if isinstance(value, StrEnum) else value


def _results() -> list[Quantity]:
    by, i, b = Kind.BYTES, Kind.COUNT, Kind.BOOL
    out = [
        Quantity("model.params", i, text("parameters", "參數量"), lambda r: r.params, short_count=True),
        Quantity("model.kv_heads", i, text("KV heads", "KV heads"), lambda r: r.situation.model.num_kv_heads),
        Quantity("gpu.memory_bytes", by, text("GPU memory", "GPU 記憶體"), lambda r: r.situation.gpu.memory_bytes),
        Quantity("estimate.fits", b, text("fits", "放得下"), lambda r: r.estimate.fits),
        Quantity("estimate.device_bytes", by, text("device total", "裝置總量"), lambda r: r.estimate.device_bytes),
        Quantity("estimate.peak_allocated_bytes", by, text("allocated peak", "已配置尖峰"),
                 lambda r: r.estimate.peak_allocated_bytes),
        Quantity("estimate.headroom_bytes", by, text("headroom", "剩餘空間"), lambda r: r.estimate.headroom_bytes),
        Quantity("estimate.trainable_params", i, text("trainable parameters", "可訓練參數"),
                 lambda r: r.estimate.trainable_params, short_count=True),
        Quantity("estimate.biggest_term", Kind.CHOICE, text("biggest term", "最大的一項"),
                 lambda r: _plain(biggest_term(r.estimate).name), lambda: TERM_WORDS),
    ]
    out += [Quantity(f"estimate.{t}", by, TERM_WORDS[t], _term(t)) for t in TRAINING_TERMS]
    out += [
        Quantity("serving.fits", b, text("serving fits", "推論放得下"), lambda r: r.serving.fits),
        Quantity("serving.max_sequences", i, text("sequences that fit", "放得下的序列數"),
                 lambda r: r.serving.max_sequences),
        Quantity("serving.kv_bytes_per_sequence", by, text("KV cache per sequence", "每條序列的 KV cache"),
                 lambda r: r.serving.kv.bytes_per_sequence),
        Quantity("serving.kv_bytes_per_token", by, text("KV cache per token", "每個 token 的 KV cache"),
                 lambda r: r.serving.kv.bytes_per_token),
        Quantity("serving.kv_cache_bytes", by, text("KV cache", "KV cache"),
                 lambda r: r.serving.term("kv_cache").bytes),
        Quantity("serving.weights_bytes", by, text("serving weights", "推論權重"),
                 lambda r: r.serving.term("weights").bytes),
        Quantity("serving.used_bytes", by, text("serving total", "推論總用量"), lambda r: r.serving.used_bytes),
    ]
    for st in Stage:
        name = st.value.upper()
        out += [
            Quantity(f"alignment.{st.value}.models", i, text(f"models {name} holds", f"{name} 記憶體裡的模型數"),
                     _stage(st, "models")),
            Quantity(f"alignment.{st.value}.fits", b, text(f"{name} fits", f"{name} 放得下"), _stage(st, "fits")),
            Quantity(f"alignment.{st.value}.device_bytes", by, text(f"{name} per GPU", f"{name} 每張 GPU 用量"),
                     _stage(st, "device_bytes")),
        ]
    out += [
        Quantity("attention.step_bytes", by, text("this step's tensor, one layer", "這一步的張量（一層）"),
                 lambda r: r.step_size.per_layer_bytes),
        Quantity("attention.scores_bytes", by, text("the s × s scores, one layer", "s × s 分數矩陣（一層）"),
                 _scores),
        Quantity("attention.flash_kept_bytes", by,
                 text("what FlashAttention keeps, one layer", "FlashAttention 保留的量（一層）"), _flash),
    ]
    return out


def _term(name: str) -> Callable[[Results], Value]:
    return lambda r: next((t.bytes for t in r.estimate.terms if t.name == name), 0)


def _stage(stage: Stage, attr: str) -> Callable[[Results], Value]:
    return lambda r: getattr(r.stage(stage), attr)


def _scores(r: Results) -> Value:
    s = r.situation
    return tensor_size(StepKey.SCORES, s.model, s.setup.seq_len, ATTENTION_DTYPE, s.setup.batch).per_layer_bytes


def _flash(r: Results) -> Value:
    s = r.situation
    return flash_kept(s.model, s.setup.seq_len, ATTENTION_DTYPE, s.setup.batch).per_layer_bytes


@cache
def registry() -> Mapping[str, Quantity]:
    """Every quantity by name."""
    return {q.name: q for q in (*_inputs(), *_results())}


def quantity(name: str) -> Quantity:
    """One quantity by name (``ValueError`` naming the closest names when there is none)."""
    found = registry().get(name)
    if found is None:
        from difflib import get_close_matches

        close = get_close_matches(name, list(registry()), n=3)
        raise ValueError(f"unknown quantity {name!r}" + (f"; did you mean {', '.join(close)}?" if close else ""))
    return found
