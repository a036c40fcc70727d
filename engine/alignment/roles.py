"""What one role of an alignment stage costs on each GPU, computed with the training engine.

* **trained** (policy, critic): weights + gradients + optimizer states + activations, an :func:`estimate` of the
  setup. Weights and optimizer states stay for the whole step (*resident*); gradients, activations and logits
  live only while this role trains (*transient*).
* **frozen** (reference, reward model, the rollout engine): its own weights (resident; split over N under
  ZeRO-3, as DeepSpeed shards every engine it prepares) plus one forward pass without gradients (transient,
  :func:`engine.training.inference.forward_bytes`). With LoRA / QLoRA the reference can be the policy's base with
  its adapters switched off (PEFT ``disable_adapter``): no second copy, only the forward.
* **rule**: a program (unit tests, a math answer check): no GPU memory.

A critic or a reward model has the policy's architecture by default with a value head (hidden -> 1) instead of the
LM head: :func:`value_model` ties the head away and no vocabulary logits are formed. The value head's hidden + 1
parameters (4,097 for Llama 2 7B) are left out, under 0.0001% of the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from engine.params import count_params
from engine.specs import Method, ModelSpec, Sharding, TrainingSetup
from engine.terms import TermName
from engine.training.estimate import Estimate, Phase
from engine.training.inference import forward_bytes
from engine.training.plan import resolve
from engine.training.precision import FP32, HALF
from engine.translatable import QT_TRANSLATE_NOOP

ROLLOUT_SOURCE = ("vLLM EngineArgs.gpu_memory_utilization (weights + activations + KV cache of one instance); "
                  "TRL GRPOConfig.vllm_gpu_memory_utilization = 0.3 in colocate mode")


class Role(StrEnum):
    POLICY = "policy"
    REFERENCE = "reference"
    REWARD = "reward"
    CRITIC = "critic"
    ROLLOUT = "rollout"  # the sampling engine: a copy of the policy and its KV cache


class Mode(StrEnum):
    TRAINED = "trained"
    FROZEN = "frozen"  # inference only
    RULE = "rule"  # a program, not a model


class Holding(StrEnum):
    """How a role is held in GPU memory during training."""

    OWN = "own"  # its own weights
    SHARED_BASE = "shared-base"  # the policy's base weights, adapters off: no second copy
    PRECOMPUTED = "precomputed"  # its outputs were computed before training: not in memory
    NOT_LOADED = "not-loaded"  # not needed (KL coefficient 0)
    PROGRAM = "program"  # a rule on the CPU
    POLICY = "policy"  # the policy itself, adapters on (a rollout by model.generate)
    SERVER = "server"  # on GPUs of its own (a vLLM server)


@dataclass(frozen=True, slots=True)
class RoleCost:
    """One role's bytes per GPU: resident (all step long) and transient (only while it runs), by part."""

    role: Role
    mode: Mode
    holding: Holding
    resident: dict[str, int] = field(default_factory=dict)
    transient: dict[str, int] = field(default_factory=dict)
    estimate: Estimate | None = None  # for a trained role
    note: str = ""  # a warning (a rollout share too small for the weights)
    # bytes on GPUs other than the training ones, by part (a vLLM server's weights and KV cache)
    elsewhere: dict[str, int] = field(default_factory=dict)

    @property
    def resident_bytes(self) -> int:
        return sum(self.resident.values())

    @property
    def transient_bytes(self) -> int:
        return sum(self.transient.values())

    @property
    def bytes(self) -> int:
        return self.resident_bytes + self.transient_bytes


def value_model(m: ModelSpec) -> ModelSpec:
    """The policy's architecture with no LM head (the value head is left out: see the module docstring)."""
    return m.model_copy(update={"id": f"{m.id}-value", "tie_embeddings": True})


def trained(role: Role, e: Estimate, logits: bool = True, logit_share: float = 1.0) -> RoleCost:
    """Resident weights and optimizer states; the rest of the peak (at the phase peaking highest) is transient.

    ``logits=False`` (a critic) drops the vocabulary logits and re-takes the peak over the phases;
    ``logit_share`` keeps that share of them (the logits term is per token: GRPO makes logits for the completion
    only, TRL's ``logits_to_keep``)."""
    share = logit_share if logits else 0.0
    st = e.states

    def scaled(p: Phase) -> dict[str, float]:
        return {n: v * share if n == TermName.LOGITS else v for n, v in p.terms.items()}

    peak = max((scaled(p) for p in e.phases), key=lambda t: sum(t.values()))
    at = {n: round(v) for n, v in peak.items() if logits or n != TermName.LOGITS}
    resident: dict[str, int] = {TermName.WEIGHTS: st.weights, TermName.OPTIMIZER_STATES: st.optimizer_states}
    transient = {n: b - resident.get(n, 0) for n, b in at.items() if b - resident.get(n, 0) > 0}
    return RoleCost(role, Mode.TRAINED, Holding.OWN, resident, transient, e)


def frozen_whole(m: ModelSpec, s: TrainingSetup) -> int:
    """A whole frozen copy stored like the policy's base (16-bit, or 4-bit NF4 for QLoRA), without the fp32
    adapters: ``weights_full``, the model's weights before any ZeRO divisor or offload
    (``engine.training.plan.Plan.weights_full``). Read from ``s`` itself: a copy of it on one GPU was once
    re-validated and refused any setup with tensor parallelism, several nodes or a derived batch past a request's
    bound (issue 17)."""
    plan = resolve(m, s)
    return plan.weights_full - (plan.counts.trainable * FP32 if s.method is not Method.FULL else 0)


def frozen_weights(m: ModelSpec, s: TrainingSetup) -> int:
    """A frozen copy stored like the policy's base, per GPU (ZeRO-3 shards it over the GPUs)."""
    stored = frozen_whole(m, s)
    return -(-stored // s.gpus) if s.sharding is Sharding.ZERO3 else stored


def frozen(role: Role, m: ModelSpec, s: TrainingSetup, sequences: int, *, logits: bool = True,
           holding: Holding = Holding.OWN, logit_tokens: int | None = None) -> RoleCost:
    """Weights (none when sharing the policy's base) + one no-grad forward over ``sequences`` sequences
    (``logit_tokens``: positions per sequence given logits, ``engine.training.inference.forward_bytes``)."""
    resident: dict[str, int] = {TermName.WEIGHTS: frozen_weights(m, s)} if holding is Holding.OWN else {}
    transient: dict[str, int] = {TermName.FORWARD: forward_bytes(m, s, sequences, logits, logit_tokens).bytes}
    return RoleCost(role, Mode.FROZEN, holding, resident, transient)


def absent(role: Role, holding: Holding, mode: Mode = Mode.FROZEN) -> RoleCost:
    """A role that takes no GPU memory during training (precomputed, not loaded, a program)."""
    return RoleCost(role, mode, holding)


def rollout(m: ModelSpec, share: float, gpu_bytes: int) -> RoleCost:
    """The sampling engine's reserved share: its 16-bit copy of the policy, the rest its KV cache."""
    budget = round(share * gpu_bytes)
    weights = count_params(m).total * HALF
    note = "" if weights < budget else QT_TRANSLATE_NOOP(
        "engine", "the share does not hold the weights: the engine cannot start")
    held: dict[str, int] = {TermName.WEIGHTS: min(weights, budget), TermName.KV_CACHE: max(budget - weights, 0)}
    return RoleCost(Role.ROLLOUT, Mode.FROZEN, Holding.OWN, held, note=note)
