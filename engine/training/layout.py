"""A parallel layout for one model: which layers each pipeline stage holds, and how many micro-batches it keeps.

``gpus = dp x tp x pp x cp`` (Megatron-LM's order of process groups; Shoeybi et al. 2019, arXiv:1909.08053,
and Narayanan et al. 2021, arXiv:2104.04473, s2-3). Expert parallelism is carved from the data- and
context-parallel ranks: the experts of a layer are spread over ``ep`` GPUs and each expert over ``etp``, and the
expert data-parallel size is ``tp x cp x dp / (etp x ep)`` (Megatron-Core ``parallel_state.initialize_model_parallel``,
its expert rank generator; MoE docs, "Expert Parallelism").

Micro-batches in flight on stage i (0 = first) of p, with m micro-batches per step:

* GPipe: every forward before any backward, so all m (Huang et al. 2019, arXiv:1811.06965, s2.3);
* 1F1B (PipeDream-Flush): stage i runs ``p - i - 1`` warm-up forwards before its first backward, so it holds at
  most ``min(p - i, m)`` (Narayanan et al. 2021, s2.2; Megatron-LM ``schedules.py``,
  ``forward_backward_pipelining_without_interleaving``);
* interleaved 1F1B with v model chunks per stage: ``(p - i - 1) x 2 + (v - 1) x p`` warm-up chunk-forwards plus
  the first steady one, each holding 1/v of the stage's layers, at most ``m x v`` (Megatron-LM ``schedules.py``,
  ``forward_backward_pipelining_with_interleaving``); for the first stage that is ``p x (1 + (p - 1) / (p v))``
  micro-batches' worth, the factor of Narayanan et al. 2021 s2.2 and Megatron-LM
  ``theoretical_memory_usage.py``.

The pipeline bubble, idle time over compute time, is ``(p - 1) / m``, and ``(p - 1) / (m v)`` interleaved
(Narayanan et al. 2021, s2.2).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.layers import runs
from engine.specs import Attention, CpCommType, Method, ModelSpec, ParallelSpec, PipelineSchedule, TrainingSetup


class LayoutError(ValueError):
    """A layout that cannot run this model; the message names the rule."""


@dataclass(frozen=True, slots=True)
class Layout:
    """The sizes of every parallel group, and each stage's layers (first, last), first stage first."""

    dp: int
    tp: int
    pp: int
    cp: int
    ep: int
    etp: int
    sequence_parallel: bool
    micro_batches: int
    schedule: PipelineSchedule
    virtual_stages: int
    stages: tuple[tuple[int, int], ...]

    @property
    def zero_group(self) -> int:
        """GPUs a ZeRO / distributed optimizer shards the dense parameters over: the data- and context-parallel
        ranks (Megatron-Core's distributed optimizer uses the data-parallel group with context parallelism)."""
        return self.dp * self.cp

    @property
    def expert_dp(self) -> int:
        """Expert data-parallel size: what shards the experts' states."""
        return self.tp * self.cp * self.dp // (self.etp * self.ep)

    def in_flight(self, stage: int) -> float:
        """Micro-batches' worth of this stage's activations held at once (module docstring)."""
        p, m, v = self.pp, self.micro_batches, self.virtual_stages
        if p == 1:
            return 1.0
        if self.schedule is PipelineSchedule.GPIPE:
            return float(m)
        if self.schedule is PipelineSchedule.ONE_F_ONE_B:
            return float(min(p - stage, m))
        chunks = min((p - stage - 1) * 2 + (v - 1) * p + 1, m * v)
        return chunks / v

    @property
    def bubble(self) -> float:
        """Pipeline bubble: idle over compute time."""
        return (self.pp - 1) / (self.micro_batches * self.virtual_stages)


def _even_split(layers: int, stages: int) -> tuple[int, ...]:
    """As even as possible; the extra layers go to the middle stages first (the first holds the embedding and
    the last the output layer and the loss), then to the first."""
    base, extra = divmod(layers, stages)
    counts = [base] * stages
    order = [*range(1, stages - 1), 0, stages - 1] if stages > 2 else list(range(stages))
    for i in order[:extra]:
        counts[i] += 1
    return tuple(counts)


def _check(m: ModelSpec, s: TrainingSetup, p: ParallelSpec) -> None:
    """The rules a layout must follow for this model; the first broken one, as one line."""
    kv_heads = m.num_kv_heads if m.mla is None else m.num_heads
    mixers = sorted({r.mixer.kind for r in runs(m) if r.mixer is not None})
    shown = ", ".join(mixers)
    rules = [
        (not mixers or p.tp == 1, f"tensor parallelism over {shown} layers is not modelled: use --tp 1"),
        (not mixers or p.cp == 1, f"context parallelism over {shown} layers (their recurrent state passes from "
                                  "rank to rank) is not modelled: use --cp 1"),
        (m.num_heads % p.tp == 0, f"tp ({p.tp}) must divide the attention heads ({m.num_heads})"),
        (kv_heads % p.tp == 0, f"tp ({p.tp}) must divide the key/value heads ({kv_heads})"),
        (p.pp <= m.num_layers, f"pp ({p.pp}) cannot exceed the layers ({m.num_layers})"),
        (p.pp * p.virtual_stages <= m.num_layers,
         f"pp x virtual stages ({p.pp * p.virtual_stages}) cannot exceed the layers ({m.num_layers})"),
        (p.ep == 1 or m.moe is not None, f"ep ({p.ep}) needs a mixture-of-experts model; {m.label} is dense"),
        (m.moe is None or m.moe.num_experts % p.ep == 0,
         f"ep ({p.ep}) must divide the experts ({m.moe.num_experts if m.moe else 0})"),
        ((p.tp * p.cp * s.dp) % (p.expert_tp * p.ep) == 0,
         f"etp x ep ({p.expert_tp} x {p.ep}) must divide tp x cp x dp ({p.tp * p.cp * s.dp}): expert parallelism "
         "is carved from the data- and context-parallel ranks"),
        (p.cp == 1 or s.seq_len % (2 * p.cp) == 0,
         f"cp ({p.cp}) needs a sequence length divisible by 2 x cp ({2 * p.cp}); it is {s.seq_len}"),
        (p.cp == 1 or s.attention is not Attention.EAGER or p.cp_comm_type is CpCommType.A2A,
         "context parallelism runs ring attention on a flash kernel: use --attention sdpa or flash, not eager"),
        (p.cp_comm_type is not CpCommType.A2A or (m.num_heads % p.cp == 0 and kv_heads % p.cp == 0),
         f"Ulysses (cp_comm_type a2a) gives each of the cp ({p.cp}) ranks whole heads: cp must divide the heads "
         f"({m.num_heads}) and the key/value heads ({kv_heads})"),
        (p.cp_comm_type is not CpCommType.A2A or m.mla is None,
         "Ulysses (cp_comm_type a2a) on MLA's latent attention is not costed"),
        (s.method is not Method.QLORA or p.tp == p.pp == p.cp == p.ep == 1,
         "QLoRA's 4-bit base (bitsandbytes) cannot be split by tensor, pipeline, context or expert parallelism"),
        (s.method is not Method.LORA_8BIT or p.tp == p.pp == p.cp == p.ep == 1,
         "an 8-bit base (bitsandbytes LLM.int8) cannot be split by tensor, pipeline, context or expert parallelism"),
        (p.pp_layers is None or sum(p.pp_layers) == m.num_layers,
         f"--pp-layers adds up to {sum(p.pp_layers or ())} layers; the model has {m.num_layers}"),
        (p.schedule is not PipelineSchedule.INTERLEAVED or p.micro_batches % p.pp == 0,
         f"the interleaved schedule needs micro-batches ({p.micro_batches}) to be a multiple of pp ({p.pp})"),
    ]
    for ok, message in rules:
        if not ok:
            raise LayoutError(message)


def layout(m: ModelSpec, s: TrainingSetup) -> Layout:
    """The layout of setup ``s`` for model ``m`` (``LayoutError`` naming the rule it breaks)."""
    p = s.parallel
    _check(m, s, p)
    counts = p.pp_layers or _even_split(m.num_layers, p.pp)
    bounds, first = [], 0
    for n in counts:
        bounds.append((first, first + n - 1))
        first += n
    return Layout(dp=s.dp, tp=p.tp, pp=p.pp, cp=p.cp, ep=p.ep, etp=p.expert_tp, sequence_parallel=p.sequence_parallel,
                  micro_batches=p.micro_batches, schedule=p.schedule, virtual_stages=p.virtual_stages,
                  stages=tuple(bounds))
