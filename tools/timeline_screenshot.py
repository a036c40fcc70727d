"""Render the Timeline page with a snapshot laid over the prediction: ``docs/screenshots/timeline-snapshot.png``.

No GPU records snapshots here, so the snapshot is synthetic (``tools.snapshot_fixtures``): three training steps of
a toy model sized like the scenario's (Llama 3.2 1B, pure bf16, 2,048 tokens: its weights, activations and
logits per layer from the estimate), for the picture only; it is not a measurement.

    python tools/timeline_screenshot.py [--theme light|dark] [--lang en|zh_TW] [--size 1280x800] [OUT.png]
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from engine.catalog import get_gpu, get_model  # noqa: E402
from engine.specs import ModelSpec, Precision, TrainingSetup  # noqa: E402
from engine.training import estimate  # noqa: E402
from tools.snapshot_fixtures import MIB, StepShape, training  # noqa: E402

MODEL, GPU = "llama-3.2-1b", "a100-80gb"
SETUP = TrainingSetup(seq_len=2048, precision=Precision.BF16)


def shape_like(m: ModelSpec, s: TrainingSetup) -> StepShape:
    """A toy step whose weights, saved activations and logits match the estimate's, layer by layer."""
    terms = {t.name: t.bytes for t in estimate(m, s, get_gpu(GPU)).terms}
    layers = m.num_layers
    return StepShape(layers=layers, weight=terms["weights"] // layers, act=terms["activations"] // layers,
                     temp=90 * MIB, logits=terms["logits"] // 3, batch=s.seq_len * 8)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", type=Path, default=REPO / "docs" / "screenshots" / "timeline-snapshot.png")
    ap.add_argument("--theme", choices=["light", "dark"], default="light")
    ap.add_argument("--lang", default="en")
    ap.add_argument("--size", default="1280x800")
    args = ap.parse_args()
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from gui.actions.snapshot_open import open_snapshot
    from gui.look.theme import ThemeManager, ThemeMode
    from gui.shell.main_window import MainWindow
    from gui.state.scenario import Scenario
    from gui.text import i18n
    from gui.text.fonts import register_fonts

    app = QApplication(sys.argv[:1])
    register_fonts()
    i18n.set_language(app, args.lang)
    theme = ThemeManager(app, ThemeMode(args.theme))
    model = get_model(MODEL)
    window = MainWindow(Scenario(model=model, setup=SETUP, gpu=get_gpu(GPU)), theme, initial_page="timeline")
    window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    window.resize(*map(int, args.size.split("x")))
    window.show()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "snapshot.pickle"
        path.write_bytes(pickle.dumps(training(shape_like(model, SETUP), steps=3).snapshot(), protocol=4))
        open_snapshot(path, window)
        page = window.pages.currentWidget()
        while page.loader.is_busy():  # type: ignore[attr-defined]
            app.processEvents()
    page.flush()  # type: ignore[attr-defined]
    app.processEvents()
    if not window.grab().save(str(args.out)):
        sys.stderr.write(f"cannot write {args.out}\n")
        return 2
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
