"""A seeded stream of serving requests: arrival step, prompt length, output length.

Lengths are lognormal (a few long requests, many short ones) with means close to the traces the vLLM paper
serves (Kwon et al. 2023, arXiv:2309.06180, section 6.1: ShareGPT prompts about 161 tokens and outputs about
338; Alpaca about 19 and 58); the lognormal shape and its spread are assumptions. Arrivals are a Poisson
process of ``rate`` requests per decoding step. The same seed always gives the same stream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated

import numpy as np
from pydantic import BaseModel, ConfigDict, Field


@dataclass(frozen=True, slots=True)
class Request:
    """One request: it arrives at ``arrival``, brings ``prompt`` tokens and will generate ``output`` more."""

    id: int
    arrival: int
    prompt: int
    output: int

    @property
    def final(self) -> int:
        """Tokens cached when it finishes."""
        return self.prompt + self.output


class TraceShape(BaseModel):
    """How requests look: mean lengths, their spread, the context limit, the arrival rate."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mean_prompt: Annotated[float, Field(gt=0)] = 161.0
    mean_output: Annotated[float, Field(gt=0)] = 338.0
    sigma: Annotated[float, Field(ge=0, le=3)] = 1.0  # spread of log-length (assumed)
    max_len: Annotated[int, Field(ge=2, le=1_048_576)] = 2_048  # OPT-13B's context, as in the paper
    rate: Annotated[float, Field(gt=0, le=100)] = 0.05  # arrivals per decoding step


SHAREGPT = TraceShape()
ALPACA = TraceShape(mean_prompt=19.0, mean_output=58.0)


def _lognormal(rng: np.random.Generator, mean: float, sigma: float, n: int) -> np.ndarray:
    """``n`` lognormal draws with the given mean (mu = ln(mean) - sigma^2 / 2), rounded, at least 1."""
    draws = rng.lognormal(math.log(mean) - sigma**2 / 2, sigma, n)
    return np.maximum(1, np.rint(draws)).astype(np.int64)


def request_stream(shape: TraceShape, count: int, seed: int) -> tuple[Request, ...]:
    """``count`` requests drawn from ``shape`` with generator ``seed``; prompt + output <= max_len."""
    if count < 1:
        raise ValueError("count must be at least 1")
    rng = np.random.default_rng(seed)
    arrivals = np.floor(np.cumsum(rng.exponential(1 / shape.rate, count))).astype(np.int64)
    prompts = np.minimum(_lognormal(rng, shape.mean_prompt, shape.sigma, count), shape.max_len - 1)
    outputs = np.minimum(_lognormal(rng, shape.mean_output, shape.sigma, count), shape.max_len - prompts)
    rows = zip(arrivals, prompts, outputs, strict=True)
    return tuple(Request(i, int(a), int(p), int(o)) for i, (a, p, o) in enumerate(rows))
