"""Training memory: model states, activations, sharding, composed phase by phase into a per-GPU peak."""

from engine.training.estimate import Estimate, Phase, Verdict, estimate

__all__ = ["Estimate", "Phase", "Verdict", "estimate"]
