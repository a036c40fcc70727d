"""Memory page latency: from a slider's input event to the repaint done, offscreen (target p95 <= 16 ms).

Drives the real sequence-length slider with key presses (Right / Left), lets the event loop deliver the coalesced
scenario update and the page's recompute, then forces a synchronous repaint, and times the path per event:

* drag: presses back to back (a held arrow key): the headline (peak, verdict, breakdown) is recomputed and
  repainted within the event's turn; the secondary views wait until the input pauses;
* single change: one press after a quiet spell: every view recomputed and repainted, the page's pause
  (``SECONDARY_MS``) included.

Prints medians and 95th percentiles of the wall clock, and of the main thread's CPU time beside them (the app's own
work: on a machine other jobs share, the wall clock measures them too); ``--json`` prints ``{"p95_ms": ...,
"median_ms": ..., "full_p95_ms": ..., "full_median_ms": ..., "cpu_p95_ms": ..., "cpu_median_ms": ...,
"cpu_full_p95_ms": ..., "cpu_full_median_ms": ...}`` (p95_ms / median_ms: the drag path, wall clock).

``--window`` drives the same page inside the main window (navigation, menus; the whole window repainted);
``--lessons`` adds the Lessons drawer, open, with a lesson on the memory page started, so that every change is
also checked against its goal (``gui.lessons.panel``): compare the two to see what the live check costs.
``--cpu`` checks the target against the CPU-time p95 instead of the wall clock's: steadier on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication, QEventLoop, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from bench.machine import Target, report
from gui.pages.memory import SECONDARY_MS, MemoryPage
from gui.state.recompute import Recompute
from gui.state.scenario import Scenario

LESSON = "full-7b-one-80gb"  # a memory-page lesson that keeps neither the sequence length nor the batch


def _page() -> MemoryPage:
    page = MemoryPage(Scenario())
    page.resize(1280, 800)
    page.show()
    page.flush()  # its charts too (built after the first paint otherwise: gui.widgets.lazy_tab)
    QCoreApplication.processEvents()
    page.controls.seq_slider.setFocus()
    return page


def _in_window(lessons: bool) -> tuple[MemoryPage, QWidget, list[Recompute]]:
    """The memory page in the main window (settings in a temporary folder), the drawer open if ``lessons``."""
    import tempfile

    from gui import settings
    from gui.shell.main_window import MainWindow

    settings.redirect(tempfile.mkdtemp(prefix="vramlab-bench-"))
    window = MainWindow(Scenario())
    window.resize(1280, 800)
    window.show()
    page = window.pages.page("memory")
    assert isinstance(page, MemoryPage)
    waits = [page.recompute]
    if lessons:
        window.lessons.set_open(True)
        panel = window.lessons.panel
        assert panel is not None
        panel.show_lesson(LESSON)
        panel.start()
        waits.append(panel.recompute)
    page.flush()
    QCoreApplication.processEvents()
    page.controls.seq_slider.setFocus()
    return page, window, waits


def _turns(n: int) -> None:
    for _ in range(n):
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents)


Stamp = tuple[float, float]  # (wall clock, main thread's CPU time), seconds


def _stamp() -> Stamp:
    return time.perf_counter(), time.thread_time()


def _since(t0: Stamp) -> Stamp:
    """Milliseconds since ``t0``: (wall, CPU)."""
    wall, cpu = _stamp()
    return (wall - t0[0]) * 1e3, (cpu - t0[1]) * 1e3


def _drag(page: MemoryPage, shown: QWidget, events: int, warmup: int) -> list[Stamp]:
    """Key presses back to back, as a held arrow key: event -> headline recomputed and repainted."""
    times: list[Stamp] = []
    for i in range(warmup + events):
        key = Qt.Key.Key_Right if (i // 20) % 2 == 0 else Qt.Key.Key_Left
        t0 = _stamp()
        QTest.keyClick(page.controls.seq_slider, key)
        _turns(2)  # the binder's coalesced write, then the page's recompute (and the lesson's check)
        shown.repaint()
        if i >= warmup:
            times.append(_since(t0))
    return times


def _steps(page: MemoryPage, shown: QWidget, waits: list[Recompute], events: int) -> list[Stamp]:
    """One key press after a quiet spell: event -> every view recomputed and repainted."""
    times: list[Stamp] = []
    for i in range(events):
        QTest.qWait(SECONDARY_MS + 5)
        key = Qt.Key.Key_Right if (i // 10) % 2 == 0 else Qt.Key.Key_Left
        t0 = _stamp()
        QTest.keyClick(page.controls.seq_slider, key)
        _turns(2)  # write, headline; then the secondary views, once input has paused, one per turn
        while any(r.pending() for r in waits):
            QTest.qWait(1)
        shown.repaint()
        times.append(_since(t0))
    return times


def _p95(values: list[float]) -> float:
    return round(statistics.quantiles(values, n=20)[-1], 2)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--events", type=int, default=200)
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--window", action="store_true", help="the page inside the main window")
    ap.add_argument("--lessons", action="store_true", help="the main window with the Lessons drawer checking a lesson")
    ap.add_argument("--cpu", action="store_true", help="check the target against main-thread CPU time, not wall time")
    args = ap.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    if args.window or args.lessons:
        page, shown, waits = _in_window(args.lessons)
    else:
        page = _page()
        shown, waits = page, [page.recompute]
    drag = _drag(page, shown, args.events, warmup=10)
    full = _steps(page, shown, waits, max(20, args.events // 5))
    shown.close()
    result: dict[str, float] = {}
    for prefix, which in (("", 0), ("cpu_", 1)):
        d, f = [t[which] for t in drag], [t[which] for t in full]
        result |= {f"{prefix}p95_ms": _p95(d), f"{prefix}median_ms": round(statistics.median(d), 2),
                   f"{prefix}full_p95_ms": _p95(f), f"{prefix}full_median_ms": round(statistics.median(f), 2)}
    del app
    if not args.json:
        r = result
        print(f"drag, event -> headline repainted, over {len(drag)} events: median {r['median_ms']} ms, "
              f"p95 {r['p95_ms']} ms (main thread's CPU: median {r['cpu_median_ms']} ms, p95 {r['cpu_p95_ms']} ms)")
        print(f"single change, event -> every view repainted, over {len(full)} events: median "
              f"{r['full_median_ms']} ms, p95 {r['full_p95_ms']} ms (CPU: median {r['cpu_full_median_ms']} ms, "
              f"p95 {r['cpu_full_p95_ms']} ms)")
    name, key = ("(CPU time) ", "cpu_p95_ms") if args.cpu else ("", "p95_ms")
    missed = report(result, [Target(f"slider drag, key to headline repainted {name}(p95)", result[key], 16, "ms",
                                    scaled=True)], args.json)
    return missed if args.check else 0


if __name__ == "__main__":
    sys.exit(main())
