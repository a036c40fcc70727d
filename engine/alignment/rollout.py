"""RL's rollout: how many sequences one step samples and trains on, and what the sampling engine holds.

**Shape** (TRL ``GRPOConfig`` / ``GRPOTrainer``, trl 1.x): each prompt of P tokens gets G completions of up to C
tokens (``num_generations``, ``max_completion_length``; ``max_prompt_length`` in TRL before 1.0). Here a
micro-batch holds ``batch`` prompts' whole groups, so the policy trains on ``batch x G`` sequences of ``P + C``
tokens (TRL's ``per_device_train_batch_size`` counts completions: it is ``batch x G`` here). The rollout samples
a whole generation batch at once: ``per_device_train_batch_size x steps_per_generation`` completions per GPU,
``steps_per_generation`` defaulting to ``gradient_accumulation_steps`` (``GRPOConfig.generation_batch_size``).
The policy and the reference make logits only for the completion: ``logits_to_keep = C + 1``
(``GRPOTrainer._get_per_token_logps_and_entropies``). PPO (TRL ``trl.experimental.ppo.PPOTrainer``) samples one
completion per prompt (G = 1) and makes logits for every position.

**Rollout engine** (``GRPOConfig.use_vllm``, ``vllm_mode``, ``vllm_gpu_memory_utilization``):

* ``hf-generate``: ``model.generate`` with the policy's own weights, in the training process, before the
  training forward: its KV cache (``2 x layers x KV heads x head dim`` per token, 16 bits) for the generation
  batch, plus the prefill's no-grad forward over the prompts, is one more working set that does not overlap the
  others. Under ZeRO-3 TRL gathers the whole policy for generation (``ds3_gather_for_generation=True``).
* ``vllm-colocate``: a vLLM instance in each training process reserves ``U x`` the GPU's memory
  (``gpu_memory_utilization``, TRL's default 0.3), weights included, and keeps it all step (without
  ``vllm_enable_sleep_mode``); whatever its 16-bit copy of the policy leaves is KV cache. A generation batch
  whose cache needs more than that runs in turns (vLLM preempts), slower but not out of memory.
* ``vllm-server``: ``trl vllm-serve`` on GPUs of its own: nothing on the training GPUs; the server needs the
  16-bit weights and the KV cache of every training GPU's generation batch (``elsewhere``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.alignment.roles import Holding, Mode, Role, RoleCost, frozen_weights, frozen_whole, rollout
from engine.params import count_params
from engine.serving.kv import kv_cache
from engine.specs import KvDtype, ModelSpec, Sharding, TrainingSetup
from engine.terms import TermName
from engine.training.inference import forward_bytes
from engine.training.precision import HALF, dtype_plan
from engine.translatable import QT_TRANSLATE_NOOP

SOURCE = ("TRL GRPOConfig (num_generations, max_completion_length, generation_batch_size, use_vllm, vllm_mode, "
          "vllm_gpu_memory_utilization) and GRPOTrainer (logits_to_keep, ds3_gather_for_generation)")

# TRL's defaults when only some of the RL settings are given: GRPOConfig.num_generations = 8,
# max_completion_length = 512, and the max_prompt_length = 512 TRL had before 1.0
DEFAULT_GENERATIONS = 8
DEFAULT_PROMPT = 512
DEFAULT_COMPLETION = 512


class RolloutEngine(StrEnum):
    HF_GENERATE = "hf-generate"  # model.generate in the training process
    VLLM_COLOCATE = "vllm-colocate"  # a vLLM instance sharing each training GPU
    VLLM_SERVER = "vllm-server"  # trl vllm-serve on GPUs of its own


@dataclass(frozen=True, slots=True)
class RolloutShape:
    """The sequences of one RL step, per GPU (module docstring)."""

    engine: RolloutEngine
    generations: int  # G: completions per prompt (1 for PPO)
    prompt: int  # P tokens
    completion: int  # C tokens
    train_sequences: int  # what the policy trains on at once: batch x G
    generate_sequences: int  # what the rollout samples at once: batch x G x gradient accumulation
    logits_to_keep: int | None  # positions per sequence given logits (GRPO: C + 1); None: all (PPO)
    gpu_memory_utilization: float | None = None  # a colocated vLLM's share of each GPU (else None)

    @property
    def seq_len(self) -> int:
        return self.prompt + self.completion


def shape(s: TrainingSetup, engine: RolloutEngine, *, generations: int, prompt: int, completion: int,
          completion_only_logits: bool, share: float) -> RolloutShape:
    """The shape of a step of ``s`` (its batch in prompts, its gradient accumulation as steps_per_generation);
    ``share``: a colocated vLLM's gpu_memory_utilization."""
    train = s.batch * generations
    return RolloutShape(engine, generations, prompt, completion, train, train * s.grad_accum,
                        completion + 1 if completion_only_logits else None,
                        share if engine is RolloutEngine.VLLM_COLOCATE else None)


def kv_bytes(m: ModelSpec, s: TrainingSetup, sequences: int, tokens: int) -> int:
    """The generation's KV cache in the setup's compute dtype (16 bits under autocast)."""
    dtype = KvDtype.BF16 if dtype_plan(s.precision).compute == HALF else KvDtype.FP32
    return kv_cache(m, tokens, dtype).total(sequences)


def hf_generate(m: ModelSpec, s: TrainingSetup, rs: RolloutShape) -> RoleCost:
    """``model.generate`` in the training process: the larger of the prefill (KV cache of the prompts + a no-grad
    forward over them, logits for the last position) and the last decoding step (the whole KV cache + one
    token's forward), plus under ZeRO-3 the rest of the gathered weights."""
    n = rs.generate_sequences
    prefill = kv_bytes(m, s, n, rs.prompt) + forward_bytes(m, s.derived(seq_len=rs.prompt), n, logit_tokens=1).bytes
    decode = kv_bytes(m, s, n, rs.seq_len) + forward_bytes(m, s.derived(seq_len=1), n).bytes
    kv = kv_bytes(m, s, n, rs.seq_len if decode >= prefill else rs.prompt)
    transient: dict[str, int] = {TermName.KV_CACHE: kv, TermName.FORWARD: max(prefill, decode) - kv}
    if s.sharding is Sharding.ZERO3 and s.gpus > 1:
        whole = frozen_whole(m, s)
        transient[TermName.WEIGHTS] = whole - frozen_weights(m, s)
    return RoleCost(Role.ROLLOUT, Mode.FROZEN, Holding.POLICY, transient=transient)


def vllm_colocate(m: ModelSpec, s: TrainingSetup, rs: RolloutShape, share: float, gpu_bytes: int) -> RoleCost:
    """A colocated vLLM: ``share x`` the GPU (``engine.alignment.roles.rollout``); a note when the generation
    batch's KV cache needs more than the share leaves."""
    held = rollout(m, share, gpu_bytes)
    if held.note:
        return held
    needed = kv_bytes(m, s, rs.generate_sequences, rs.seq_len)
    if needed <= held.resident[TermName.KV_CACHE]:
        return held
    note = QT_TRANSLATE_NOOP("engine", "the generation batch's KV cache is larger than the share leaves: vLLM "
                                       "samples it in turns (slower)")
    return RoleCost(held.role, held.mode, held.holding, held.resident, note=note)


def vllm_server(m: ModelSpec, s: TrainingSetup, rs: RolloutShape) -> RoleCost:
    """A vLLM server on its own GPUs: nothing here; elsewhere its 16-bit weights and the KV cache of every
    training GPU's generation batch."""
    elsewhere: dict[str, int] = {TermName.WEIGHTS: count_params(m).total * HALF,
                                 TermName.KV_CACHE: kv_bytes(m, s, rs.generate_sequences * s.gpus, rs.seq_len)}
    return RoleCost(Role.ROLLOUT, Mode.FROZEN, Holding.SERVER, elsewhere=elsewhere)


def rollout_role(m: ModelSpec, s: TrainingSetup, rs: RolloutShape, gpu_bytes: int) -> RoleCost:
    """The rollout engine's cost on each training GPU (module docstring)."""
    if rs.engine is RolloutEngine.HF_GENERATE:
        return hf_generate(m, s, rs)
    if rs.engine is RolloutEngine.VLLM_SERVER or rs.gpu_memory_utilization is None:
        return vllm_server(m, s, rs)
    return vllm_colocate(m, s, rs, rs.gpu_memory_utilization, gpu_bytes)

