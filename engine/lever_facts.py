"""The numbers the lever cards state beside the bars: LoRA's trainable share and ZeRO-3's communication.

* LoRA trains ``r * (n_in + n_out)`` per adapted linear (Hu et al. 2021, arXiv:2106.09685, s4.1). For Llama 2 7B
  at rank 16 on all linear layers that is 39,976,960 parameters: 0.59% of all 6,738,415,616, or 0.62% of the
  6,476,271,616 outside the embedding and output tables (the seed's figure). Both shares are exposed, labelled.
* ZeRO-3's communication (Rajbhandari et al. 2020, arXiv:1910.02054, s7.2): data parallelism all-reduces the
  gradients, a reduce-scatter plus an all-gather, 2 Psi per step; ZeRO-3 all-gathers the parameters in forward
  and again in backward and reduce-scatters the gradients, 3 Psi: 1.5x. Here the volumes are counted in bytes
  of what actually moves (stored weights, gradients of the trainable parameters), so the factor is 1.5 for full
  fine-tuning in 16 bits and much larger for LoRA, whose frozen weights are gathered but have no gradients.
  Ring collectives move (N-1)/N of each volume per GPU; like the paper, we leave that factor out.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.params import count_params, lora_params
from engine.specs import ModelSpec, TrainingSetup
from engine.training.plan import resolve

#: Rajbhandari et al. 2020, s7.2: 3 parameter volumes (ZeRO-3) against 2 (data parallelism).
PAPER_FACTOR = 1.5
COMMUNICATION_SOURCE = "Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) s7.2"


@dataclass(frozen=True, slots=True)
class LoraShare:
    """LoRA's trainable parameters against the base model's, both ways of counting."""

    rank: int
    trainable: int
    total: int
    non_embedding: int

    @property
    def of_total(self) -> float:
        return self.trainable / self.total

    @property
    def of_non_embedding(self) -> float:
        """The seed's 0.62%: against the parameters outside the embedding and output tables."""
        return self.trainable / self.non_embedding


def lora_share(m: ModelSpec, s: TrainingSetup) -> LoraShare:
    """Trainable adapters for the setup's rank and targets (whatever its method)."""
    pc = count_params(m)
    return LoraShare(s.lora.rank, lora_params(m, s.lora.rank, s.lora.targets), pc.total, pc.non_embedding)


@dataclass(frozen=True, slots=True)
class Communication:
    """Bytes each GPU sends per step, data parallelism against ZeRO-3, for the setup's method and precision."""

    data_parallel: int  # 2 x gradient bytes (all-reduce = reduce-scatter + all-gather)
    zero3: int  # 2 x stored weight bytes (all-gathers in forward and backward) + gradient bytes

    @property
    def factor(self) -> float:
        return self.zero3 / self.data_parallel


def communication(m: ModelSpec, s: TrainingSetup) -> Communication:
    """Per-step volumes (formula in the module docstring); 1.5x for full fine-tuning in 16 bits."""
    plan = resolve(m, s.on_one_gpu())
    grads = plan.counts.trainable * plan.trained.grad
    return Communication(data_parallel=2 * grads, zero3=2 * plan.weights_full + grads)
