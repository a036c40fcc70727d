"""A lesson's goal: a small, typed predicate over the learner's situation, checked by the engine.

Four forms, each a JSON object with one key (no expressions, no ``eval``):

* ``{"fits": true}``: the training estimate's device total fits the GPU (the memory page's verdict);
  ``{"fits": true, "of": "serving"}`` the serving page's concurrency fits; ``"of": "sft" | "dpo" | "ppo" |
  "grpo"`` one alignment stage fits; ``"fits": false`` asks that it does *not* fit.
* ``{"compare": {"left": Q, "op": OP, "value": V}}`` or ``{"compare": {"left": Q, "op": OP, "quantity": Q2,
  "factor": F}}``: a named quantity (``engine.lessons.quantities``) against a literal, or against ``F`` times
  another quantity of the same kind. ``OP`` is ``<``, ``<=``, ``>``, ``>=``, ``==`` or ``!=``; yes/no and choice
  quantities take only ``==`` and ``!=``, and a choice's literal must be one of its choices.
* ``{"all": [goal, ...]}`` and ``{"any": [goal, ...]}``.

:func:`evaluate` answers with :class:`Check`: passed, and one sentence in both languages that says why, built from
the engine's numbers ("Does not fit: the device total, 130.21 GB, is 104.45 GB over the RTX 4090's 25.76 GB").
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Union

from pydantic import (
    AfterValidator,
    Discriminator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    Tag,
    model_validator,
)

from engine.alignment import Holding, Role, Stage
from engine.lessons.quantities import TERM_WORDS, Kind, Quantity, Value, quantity
from engine.lessons.situation import Results
from engine.lessons.text import Strict, Text, text
from engine.levers import biggest_term
from engine.units import Unit, format_bytes


class FitTarget(StrEnum):
    TRAINING = "training"
    SERVING = "serving"
    SFT = "sft"
    DPO = "dpo"
    PPO = "ppo"
    GRPO = "grpo"


class Op(StrEnum):
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    EQ = "=="
    NE = "!="


_OPS: dict[Op, Callable[[Any, Any], bool]] = {
    Op.LT: operator.lt, Op.LE: operator.le, Op.GT: operator.gt, Op.GE: operator.ge, Op.EQ: operator.eq,
    Op.NE: operator.ne,
}


@dataclass(frozen=True, slots=True)
class Check:
    """A goal checked: passed or not, and one sentence saying why, in both languages."""

    passed: bool
    why: Text


def _known(name: str) -> str:
    quantity(name)  # raises ValueError naming the closest names
    return name


QuantityName = Annotated[str, AfterValidator(_known)]
Literal = StrictBool | StrictInt | StrictFloat | StrictStr


class FitsGoal(Strict):
    """The setup fits (``fits: true``) or does not (``fits: false``) on the GPU, for training, serving or a stage."""

    fits: bool
    of: FitTarget = FitTarget.TRAINING

    def check(self, r: Results, unit: Unit) -> Check:
        actual, why = _fit_sentence(self.of, r, unit)
        return Check(actual == self.fits, why)


class Comparison(Strict):
    """``left OP value`` or ``left OP factor x quantity``; the kinds must agree (checked when a lesson loads)."""

    left: QuantityName
    op: Op
    value: Literal | None = None
    quantity: QuantityName | None = None
    factor: Annotated[float, Field(gt=0)] = 1.0

    @model_validator(mode="after")
    def _typed(self) -> Comparison:
        left = quantity(self.left)
        if (self.value is None) == (self.quantity is None):
            raise ValueError("give exactly one of value and quantity")
        if not left.kind.numeric and self.op not in (Op.EQ, Op.NE):
            raise ValueError(f"{self.left} is {left.kind.value}: compare it with == or !=")
        if self.quantity is not None:
            right = quantity(self.quantity)
            if right.kind is not left.kind:
                raise ValueError(f"{self.left} ({left.kind.value}) and {self.quantity} ({right.kind.value}) differ")
        else:
            if "factor" in self.model_fields_set:
                raise ValueError("factor goes with quantity, not with value")
            _check_literal(left, self.value)
        return self

    def check(self, r: Results, unit: Unit) -> Check:
        left = quantity(self.left)
        lv = left.read(r)
        if self.quantity is not None:
            right = quantity(self.quantity)
            rv: Value = self.factor * float(right.read(r)) if left.kind.numeric else right.read(r)
            rshow = _scaled(self.factor, right, rv, unit)
        else:
            assert self.value is not None
            rv = self.value
            rshow = left.show(rv, unit)
        passed = _OPS[self.op](lv, rv)
        return Check(passed, _compare_sentence(left.label, left.show(lv, unit), self.op, rshow, passed))


class CompareGoal(Strict):
    compare: Comparison

    def check(self, r: Results, unit: Unit) -> Check:
        return self.compare.check(r, unit)


class AllGoal(Strict):
    """Every goal passes; why: the first that does not, or all of them joined."""

    all: Annotated[list[Goal], Field(min_length=1)]

    def check(self, r: Results, unit: Unit) -> Check:
        checks = []
        for goal in self.all:
            c = goal.check(r, unit)
            if not c.passed:
                return c
            checks.append(c)
        return Check(True, _joined(checks))


class AnyGoal(Strict):
    """At least one goal passes; why: the first that does, or all of them joined."""

    any: Annotated[list[Goal], Field(min_length=1)]

    def check(self, r: Results, unit: Unit) -> Check:
        checks = []
        for goal in self.any:
            c = goal.check(r, unit)
            if c.passed:
                return c
            checks.append(c)
        return Check(False, _joined(checks))


_FORMS = ("fits", "compare", "all", "any")


def _form(value: Any) -> str | None:
    """Which form a goal is, by its one key (``None``: not a goal; pydantic then names the four forms)."""
    if isinstance(value, dict):
        return next((k for k in _FORMS if k in value), None)
    return next((k for k in _FORMS if hasattr(value, k)), None)


Goal = Annotated[
    Union[  # noqa: UP007 (Tag needs the Annotated members inside a Union)
        Annotated[FitsGoal, Tag("fits")],
        Annotated[CompareGoal, Tag("compare")],
        Annotated[AllGoal, Tag("all")],
        Annotated[AnyGoal, Tag("any")],
    ],
    Discriminator(_form, custom_error_type="goal_form",
                  custom_error_message="a goal is one of {fits}, {compare}, {all}, {any}"),
]
AllGoal.model_rebuild()
AnyGoal.model_rebuild()


def evaluate(goal: Goal, r: Results, unit: Unit = Unit.GB) -> Check:
    """Check ``goal`` against the results of one situation (bytes shown in ``unit``)."""
    return goal.check(r, unit)


# -- validation helpers ---------------------------------------------------------------------------------------
def _check_literal(q: Quantity, value: Any) -> None:
    if q.kind is Kind.BOOL and not isinstance(value, bool):
        raise ValueError(f"{q.name} is yes/no: give true or false")
    if q.kind.numeric and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise ValueError(f"{q.name} is a number ({q.kind.value}): give a number")
    if q.kind is Kind.CHOICE:
        allowed = list(q.choices()) if q.choices else []
        if value not in allowed:
            raise ValueError(f"{q.name} is one of {', '.join(allowed)}; not {value!r}")


# -- sentences ------------------------------------------------------------------------------------------------
#: (passed, failed) phrasing of "left OP right", in English and Chinese: {l} label, {lv} its value, {r} the right
_PHRASES: dict[Op, tuple[tuple[str, str], tuple[str, str]]] = {
    Op.LT: (("{l}: {lv}, below {r}.", "{l}：{lv}，低於{r}。"),
            ("{l}: {lv}, not below {r}.", "{l}：{lv}，沒有低於{r}。")),
    Op.LE: (("{l}: {lv}, within {r}.", "{l}：{lv}，不超過{r}。"),
            ("{l}: {lv}, above {r}.", "{l}：{lv}，超過{r}。")),
    Op.GT: (("{l}: {lv}, above {r}.", "{l}：{lv}，高於{r}。"),
            ("{l}: {lv}, not above {r}.", "{l}：{lv}，沒有高於{r}。")),
    Op.GE: (("{l}: {lv}, at least {r}.", "{l}：{lv}，達到{r}。"),
            ("{l}: {lv}, short of {r}.", "{l}：{lv}，不到{r}。")),
    Op.EQ: (("{l}: {lv}, as asked.", "{l}：{lv}，符合要求。"),
            ("{l}: {lv}, not {r}.", "{l}：{lv}，不是{r}。")),
    Op.NE: (("{l}: {lv}, no longer {r}.", "{l}：{lv}，已不是{r}。"),
            ("{l}: still {r}.", "{l}：仍是{r}。")),
}


def _compare_sentence(label: Text, lv: Text, op: Op, r: Text, passed: bool) -> Text:
    en, zh = _PHRASES[op][0 if passed else 1]
    return text(capital(en.format(l=label.en, lv=lv.en, r=r.en)), zh.format(l=label.zh_TW, lv=lv.zh_TW, r=r.zh_TW))


def capital(sentence: str) -> str:
    """The sentence with a capital first letter ("biggest term: ..." -> "Biggest term: ...")."""
    return sentence[:1].upper() + sentence[1:]


def _lower(sentence: str) -> str:
    """A sentence continuing another: first letter lower-case, unless it starts an acronym (PPO, GPU, KV)."""
    return sentence if sentence[:2].isupper() else sentence[:1].lower() + sentence[1:]


def _scaled(factor: float, q: Quantity, value: Value, unit: Unit) -> Text:
    """The right-hand side: "weights (13.48 GB)" or "0.5 × weights (6.74 GB)"."""
    shown = q.show(value, unit)
    times = "" if factor == 1 else f"{factor:g} × "
    return text(f"{times}{q.label.en} ({shown.en})", f"{times}{q.label.zh_TW}（{shown.zh_TW}）")


def _joined(checks: list[Check]) -> Text:
    """Several sentences as one: joined by semicolons."""
    en = "; ".join(c.why.en.rstrip(".") if i == 0 else _lower(c.why.en.rstrip(".")) for i, c in enumerate(checks)) + "."
    zh = "；".join(c.why.zh_TW.rstrip("。") for c in checks) + "。"
    return Text.model_construct(en=en, zh_TW=zh)


def _fit_sentence(of: FitTarget, r: Results, unit: Unit) -> tuple[bool, Text]:
    if of is FitTarget.TRAINING:
        return _training_fit(r, unit)
    if of is FitTarget.SERVING:
        return _serving_fit(r, unit)
    return _stage_fit(Stage(of.value), r, unit)


def _training_fit(r: Results, unit: Unit) -> tuple[bool, Text]:
    e, gpu = r.estimate, r.situation.gpu
    dev, mem = format_bytes(e.device_bytes, unit), format_bytes(gpu.memory_bytes, unit)
    if e.fits:
        left = format_bytes(e.headroom_bytes, unit)
        return True, text(f"Fits: the device total, {dev}, leaves {left} of the {gpu.name} ({mem}) free.",
                          f"放得下：裝置總量 {dev}，{gpu.name}（{mem}）還剩 {left}。")
    over, big = format_bytes(-e.headroom_bytes, unit), biggest_term(e)
    words, size = TERM_WORDS.get(big.name, text(big.name, big.name)), format_bytes(big.bytes, unit)
    return False, text(
        f"Does not fit: the device total, {dev}, is {over} more than the {gpu.name} holds ({mem}); "
        f"the biggest term is {words.en} ({size}).",
        f"放不下：裝置總量 {dev}，比 {gpu.name} 的容量（{mem}）多出 {over}；最大的一項是{words.zh_TW}：{size}。",
    )


def _serving_fit(r: Results, unit: Unit) -> tuple[bool, Text]:
    f = r.serving
    n, tokens, room = f.setup.sequences, f"{f.setup.tokens:,}", f"{f.max_sequences:,}"
    each = format_bytes(f.kv.bytes_per_sequence, unit)
    if f.fits:
        return True, text(f"{n:,} sequences of {tokens} tokens fit: room for {room}, {each} of KV cache each.",
                          f"{n:,} 條 {tokens} token 的序列放得下：最多可放 {room} 條，每條 KV cache {each}。")
    return False, text(
        f"{n:,} sequences of {tokens} tokens do not fit: room for only {room}, {each} of KV cache each.",
        f"{n:,} 條 {tokens} token 的序列放不下：只放得下 {room} 條，每條 KV cache {each}。",
    )


def _stage_fit(stage: Stage, r: Results, unit: Unit) -> tuple[bool, Text]:
    sm, gpu = r.stage(stage), r.situation.gpu
    name, dev, mem = stage.value.upper(), format_bytes(sm.device_bytes, unit), format_bytes(gpu.memory_bytes, unit)
    held = [x.role.value for x in sm.roles
            if x.role is not Role.ROLLOUT and x.holding in (Holding.OWN, Holding.SHARED_BASE)]
    en_roles, zh_roles = ", ".join(held), "、".join("獎勵" if h == "reward" else h for h in held)
    verb, zh_verb, has = ("fits", "放得下", "有") if sm.fits else ("does not fit", "放不下", "只有")
    return sm.fits, text(
        f"{name} {verb}: {dev} per GPU, and the {gpu.name} holds {mem}; {sm.models} models in memory ({en_roles}).",
        f"{name} {zh_verb}：每張 GPU 要 {dev}，{gpu.name} {has} {mem}；記憶體裡有 {sm.models} 個模型（{zh_roles}）。",
    )
