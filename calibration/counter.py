"""Count the bytes of live tensor storages, op by op, and keep the peak.

`LiveBytes` is a `TorchDispatchMode`: every aten op's tensor outputs are looked at after the op ran, and each
storage not seen before is added to the live total; a weak reference on the storage subtracts it again when
PyTorch frees it. Views share a storage and are counted once. Tensors created before the mode was entered
(parameters, inputs) are added with `track()`.

This is what a caching allocator is asked for by tensors (the quantity `torch.cuda.max_memory_allocated`
measures), without the allocator's rounding and without kernel workspaces that never become tensors. It works the
same on fake tensors (nothing is allocated) and on real ones, which is how the fake traces are validated.

Besides the running peak it keeps the peak of each phase ("fwd1", "bwd2", ...) and, for the global peak, a
snapshot of the live storages so that they can be sorted into parameters, gradients, optimizer states and the
rest (`at_peak`). Each storage's entry carries a `kind` that the caller sets (`mark`); the snapshot holds the
entries themselves, so a kind set later (a gradient is only known to be one once it is accumulated) still shows.
"""

from __future__ import annotations

import weakref
from collections import Counter
from dataclasses import dataclass
from functools import partial
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode, is_traceable_wrapper_subclass
from torch.utils._pytree import tree_leaves

KINDS = ("parameters", "gradients", "optimizer_states", "activations_and_temporaries")


@dataclass
class Entry:
    """One live storage: its size, what made it, and what it is."""

    nbytes: int
    op: str
    shape: tuple[int, ...]
    dtype: str
    phase: str
    kind: str = "activations_and_temporaries"


class LiveBytes(TorchDispatchMode):
    """Dispatch mode that adds up live storage bytes; see the module docstring."""

    def __init__(self) -> None:
        super().__init__()
        self.live: dict[int, tuple[Entry, weakref.ref]] = {}
        self.current = 0
        self.peak = 0
        self.peak_phase = ""
        self.phase = "setup"
        self.phase_peaks: dict[str, int] = {}
        self._snapshot: list[Entry] = []
        self._pending = False

    # -- bookkeeping -------------------------------------------------------------------------------------
    def set_phase(self, phase: str) -> None:
        """Start a phase; its peak begins at what is live now."""
        self._flush()
        self.phase = phase
        self.phase_peaks[phase] = max(self.phase_peaks.get(phase, 0), self.current)

    def track(self, t: torch.Tensor, op: str = "track") -> Entry:
        """Count `t`'s storage if it is new; return its entry. A wrapper subclass (torchao's quantized optimizer
        states) owns no storage: its inner tensors are counted instead (the entry returned is the last one's)."""
        if is_traceable_wrapper_subclass(t):
            inner = [self.track(getattr(t, name), op) for name in t.__tensor_flatten__()[0]]
            return inner[-1]
        st = t.untyped_storage()
        key = st._cdata
        found = self.live.get(key)
        if found is not None:
            entry = found[0]
            if st.nbytes() != entry.nbytes:  # resized in place
                self._add(st.nbytes() - entry.nbytes)
                entry.nbytes = st.nbytes()
            return entry
        entry = Entry(st.nbytes(), op, tuple(t.shape), str(t.dtype).replace("torch.", ""), self.phase)
        self.live[key] = (entry, weakref.ref(st, partial(self._freed, key)))
        self._add(entry.nbytes)
        return entry

    def mark(self, t: torch.Tensor, kind: str) -> None:
        """Say what `t`'s storage is (one of KINDS); a wrapper subclass's inner tensors all."""
        if is_traceable_wrapper_subclass(t):
            for name in t.__tensor_flatten__()[0]:
                self.mark(getattr(t, name), kind)
            return
        self.track(t).kind = kind

    def _add(self, nbytes: int) -> None:
        self.current += nbytes
        if self.current > self.phase_peaks.get(self.phase, 0):
            self.phase_peaks[self.phase] = self.current
        if self.current > self.peak:
            self.peak = self.current
            self.peak_phase = self.phase
            self._pending = True

    def _freed(self, key: int, _ref: weakref.ref) -> None:
        if key not in self.live:
            return
        self._flush()  # the live set before this free may be the peak
        self.current -= self.live.pop(key)[0].nbytes

    def _flush(self) -> None:
        """Keep the live set as the peak's snapshot if the peak was reached since the last one."""
        if self._pending and self.current == self.peak:
            self._snapshot = [entry for entry, _ in self.live.values()]
            self._pending = False

    # -- dispatch ----------------------------------------------------------------------------------------
    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        name = str(func.overloadpacket.__name__)
        for t in tree_leaves(out):
            if isinstance(t, torch.Tensor):
                self.track(t, name)
        return out

    # -- results -----------------------------------------------------------------------------------------
    def at_peak(self) -> dict[str, int]:
        """Bytes live at the peak, by kind; they add up to `peak`."""
        self._flush()
        sums = dict.fromkeys(KINDS, 0)
        for entry in self._snapshot:
            sums[entry.kind] += entry.nbytes
        if sum(sums.values()) != self.peak:
            raise AssertionError(f"at-peak snapshot holds {sum(sums.values())} bytes, peak is {self.peak}")
        return sums

    def top_at_peak(self, n: int = 8) -> list[dict[str, Any]]:
        """The largest groups of same-shaped activations/temporaries live at the peak."""
        groups: Counter[tuple[str, tuple[int, ...], str, str]] = Counter()
        sizes: dict[tuple[str, tuple[int, ...], str, str], int] = {}
        for e in self._snapshot:
            if e.kind == "activations_and_temporaries":
                key = (e.op, e.shape, e.dtype, e.phase)
                groups[key] += 1
                sizes[key] = e.nbytes
        ranked = sorted(groups, key=lambda k: -groups[k] * sizes[k])[:n]
        return [
            {"op": k[0], "shape": list(k[1]), "dtype": k[2], "made_in": k[3], "count": groups[k],
             "bytes": groups[k] * sizes[k]}
            for k in ranked
        ]


def allocator_peak(prof: Any) -> int:
    """Running peak of the CPU allocations and frees a ``torch.profiler.profile`` run with ``profile_memory``
    recorded (its "[memory]" events): the allocator's own count, against which the counter above is checked."""
    events = [e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"]
    current = peak = 0
    for e in sorted(events, key=lambda e: e.start_ns()):
        current += e.nbytes()
        peak = max(peak, current)
    return peak
