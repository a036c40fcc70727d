"""`StackBytes`: calibration's `LiveBytes` with what a stack keeps outside PyTorch's caching allocator.

bitsandbytes' paged optimizers put every state buffer of a tensor with at least 1e5 elements in CUDA managed
memory (bitsandbytes 0.50.2 `optim/optimizer.py` `Optimizer8bit.get_state_buffer` -> `functional.get_paged`, a
`cudaMallocManaged` buffer); `torch.cuda.max_memory_allocated` never sees it. Storages made inside
`outside_allocator()` are counted apart (`outside_peak`), not in the live total.

A DTensor (FSDP2's sharded parameters, their gradients and optimizer states) is counted by its local shard: the
counter sees the ops on DTensors (their outputs' shards), not the local ops DTensor runs inside them; FSDP2's
all-gathers, reduce-scatters and the unsharded parameters are plain tensors and are seen. FSDP2 frees and
re-allocates the unsharded parameters' storage in place (`storage.resize_`, not an op): `resized()` follows it.

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
        local = getattr(t, "_local_tensor", None)  # a DTensor: its shard is what this rank holds
        if isinstance(local, torch.Tensor):
            t = local
        st = t.untyped_storage()
        key = st._cdata
        if key in self.outside_live or (self._outside and key not in self.live):
            if key not in self.outside_live:
                self.outside_live[key] = (st.nbytes(), weakref.ref(st, partial(self._outside_freed, key)))
                self.outside_current += st.nbytes()
                self.outside_peak = max(self.outside_peak, self.outside_current)
            return Entry(st.nbytes(), op, tuple(t.shape), str(t.dtype), self.phase, "outside")
        return super().track(t, op)

    def resized(self, t: torch.Tensor, op: str = "resize") -> None:
        """A storage resized in place outside the dispatcher (FSDP2's `alloc_storage` / `free_storage`)."""
        st = t.untyped_storage()
        found = self.live.get(st._cdata)
        if found is None:
            if st.nbytes() > 0:
                self.track(t, op)
            return
        entry = found[0]
        delta = st.nbytes() - entry.nbytes
        if delta < 0:
            self._flush()  # the live set before the shrink may be the peak
        entry.nbytes = st.nbytes()
        self._add(delta)

    def _outside_freed(self, key: int, _ref: weakref.ref) -> None:
        found = self.outside_live.pop(key, None)
        if found is not None:
            self.outside_current -= found[0]

    def _flush(self) -> None:
        """As LiveBytes, keeping each storage's size at the peak too (a storage resized later keeps its entry)."""
        if self._pending and self.current == self.peak:
            self._snapshot = [entry for entry, _ in self.live.values()]
            self._sizes = [entry.nbytes for entry in self._snapshot]
            self._pending = False

    def _at_peak_entries(self) -> list[tuple[Entry, int]]:
        self._flush()
        return list(zip(self._snapshot, getattr(self, "_sizes", []), strict=True))

    def top_at_peak(self, n: int = 8) -> list[dict[str, object]]:
        """The largest groups of same-shaped activations/temporaries live at the peak (sizes at the peak)."""
        groups: dict[tuple[str, tuple[int, ...], str, str], list[int]] = {}
        for e, nbytes in self._at_peak_entries():
            if e.kind == "activations_and_temporaries":
                groups.setdefault((e.op, e.shape, e.dtype, e.phase), []).append(nbytes)
        ranked = sorted(groups, key=lambda k: -sum(groups[k]))[:n]
        return [{"op": k[0], "shape": list(k[1]), "dtype": k[2], "made_in": k[3], "count": len(groups[k]),
                 "bytes": sum(groups[k])} for k in ranked]

    def at_peak(self) -> dict[str, int]:
        """Bytes live at the peak by kind (KINDS; parameter sub-kinds folded into "parameters")."""
        sums = dict.fromkeys(KINDS, 0)
        for entry, nbytes in self._at_peak_entries():
            sums["parameters" if entry.kind in WEIGHT_KINDS else entry.kind] += nbytes
        if sum(sums.values()) != self.peak:
            raise AssertionError(f"at-peak snapshot holds {sum(sums.values())} bytes, peak is {self.peak}")
        return sums

    def weights_at_peak(self) -> dict[str, int]:
        """The parameters at the peak, by sub-kind (WEIGHT_KINDS; "parameters" = not sorted further)."""
        sums = dict.fromkeys((*WEIGHT_KINDS, "parameters"), 0)
        for entry, nbytes in self._at_peak_entries():
            if entry.kind in sums:
                sums[entry.kind] += nbytes
        return sums
