"""`StackBytes`: calibration's `LiveBytes` with what a stack keeps outside PyTorch's caching allocator.

bitsandbytes' paged optimizers put every state buffer of a tensor with at least 1e5 elements in CUDA managed
memory (bitsandbytes 0.50.2 `optim/optimizer.py` `Optimizer8bit.get_state_buffer` -> `functional.get_paged`, a
`cudaMallocManaged` buffer); `torch.cuda.max_memory_allocated` never sees it. Storages made inside
`outside_allocator()` are counted apart (`outside_peak`), not in the live total.

The at-peak breakdown also splits the parameters into the 4-bit weights, their quantization constants (absmax,
the nested absmax and code maps, held by each `QuantState`), the other frozen parameters and the trainable ones.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from functools import partial

import torch

from calibration.counter import KINDS, Entry, LiveBytes

#: parameter sub-kinds (all count as "parameters" in `at_peak`)
WEIGHT_KINDS = ("weights_4bit", "quant_constants", "frozen", "trainable")


class StackBytes(LiveBytes):
    """LiveBytes, plus storages outside the allocator and a split of the parameters (module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._outside = False
        self.outside_live: dict[int, tuple[int, weakref.ref]] = {}
        self.outside_current = 0
        self.outside_peak = 0

    @contextlib.contextmanager
    def outside_allocator(self) -> Iterator[None]:
        """Storages made in this block live outside PyTorch's allocator (CUDA managed memory)."""
        self._outside = True
        try:
            yield
        finally:
            self._outside = False

    def track(self, t: torch.Tensor, op: str = "track") -> Entry:
        st = t.untyped_storage()
        key = st._cdata
        if key in self.outside_live or (self._outside and key not in self.live):
            if key not in self.outside_live:
                self.outside_live[key] = (st.nbytes(), weakref.ref(st, partial(self._outside_freed, key)))
                self.outside_current += st.nbytes()
                self.outside_peak = max(self.outside_peak, self.outside_current)
            return Entry(st.nbytes(), op, tuple(t.shape), str(t.dtype), self.phase, "outside")
        return super().track(t, op)

    def _outside_freed(self, key: int, _ref: weakref.ref) -> None:
        found = self.outside_live.pop(key, None)
        if found is not None:
            self.outside_current -= found[0]

    def at_peak(self) -> dict[str, int]:
        """Bytes live at the peak by kind (KINDS; parameter sub-kinds folded into "parameters")."""
        self._flush()
        sums = dict.fromkeys(KINDS, 0)
        for entry in self._snapshot:
            sums["parameters" if entry.kind in WEIGHT_KINDS else entry.kind] += entry.nbytes
        if sum(sums.values()) != self.peak:
            raise AssertionError(f"at-peak snapshot holds {sum(sums.values())} bytes, peak is {self.peak}")
        return sums

    def weights_at_peak(self) -> dict[str, int]:
        """The parameters at the peak, by sub-kind (WEIGHT_KINDS; "parameters" = not sorted further)."""
        sums = dict.fromkeys((*WEIGHT_KINDS, "parameters"), 0)
        for entry in self._snapshot:
            if entry.kind in sums:
                sums[entry.kind] += entry.nbytes
        return sums
