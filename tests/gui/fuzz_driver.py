"""The GUI fuzz driver: a seeded stream of random user actions on the real main window, and what must hold after
each (issue 17). ``tests/gui/test_fuzz.py`` runs it in a subprocess, so that a crash fails a test instead of
killing pytest; ``make fuzz`` runs it long.

Usage::

    python tests/gui/fuzz_driver.py --seed 7 --actions 300
    python tests/gui/fuzz_driver.py --seed 7 --actions 300 --trace   # print every action as it happens

Actions, drawn with ``random.Random(seed)`` so that a run is reproducible (the same seed, the same actions):
the visible, enabled controls of the current page (sliders, spin boxes, pickers, buttons, check boxes, text
fields) set to values at and beyond their limits, clicked or typed into; keys (F5, Esc, PageUp, PageDown, the
arrows, Home, End) to the focused widget; pages from the navigation; the language; the window's size from
200 x 150 to 3840 x 2160; the presentation scale; the theme; the menus' actions; scenario files opened (good
and bad ones from ``tests/corpus``), saved and reset.

A run fails (exit 1, the action and the seed printed) on: an exception (the app's error hook,
``gui.errors.add_listener``, reports it here; so does an error raised straight out of an action), a Qt warning,
a crash (the test sees the exit status), an action that does not finish within ``--hang-s`` seconds (a
watchdog, ``faulthandler.dump_traceback_later``, prints every thread's stack and exits 1: 2 s times the machine
factor, ``sum(range(10000))``'s best time over 100 us as the benchmarks measure it, times the load per core when
other work shares the machine, so that a slow or busy machine's rebuild of the window, 0.5 to 1.5 s here under
a load of 5 on 2 cores, is not taken for a hang), a memory-page
headline or an estimate of the scenario that is not a finite, non-negative number, or a spin box of the memory
page that does not show the scenario's value.
"""

from __future__ import annotations

import argparse
import faulthandler
import math
import os
import random
import re
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "corpus"
#: what the drop action picks from: the malformed corpus and the real training configs of the fixtures
DROPPED = (CORPUS, REPO / "tests" / "fixtures" / "training_configs")
#: what an action may set a number to, past the control's own range
BEYOND = (-(2**31), -1, 0, 1, 2**31 - 1, 10**9)
KEYS = ("Key_F5", "Key_Escape", "Key_PageUp", "Key_PageDown", "Key_Left", "Key_Right", "Key_Up", "Key_Down",
        "Key_Home", "Key_End", "Key_Return", "Key_Tab", "Key_Space")
TEXTS = ("", "a", "llama", "gpt2", "Qwen/Qwen3-8B", "9" * 40, "-1", "1e400", "NaN", "𝔘nicode 微調", " " * 10,
         "x" * 5_000, "\n", "'; DROP TABLE", "0")
#: menu actions never triggered: they end the run or open a modal dialog the driver cannot close
SKIPPED_ACTIONS = frozenset({"quit", "about"})
#: the offscreen platform's own notes on what it cannot do (propagate size hints, raise a window, grab the keyboard)
IGNORED_QT = ("This plugin does not support",)


class Driver:
    """One window and one seeded stream of actions."""

    def __init__(self, seed: int, hang_s: float, trace: bool) -> None:
        from PySide6.QtWidgets import QApplication

        self.rng = random.Random(seed)
        self.seed, self.hang_s, self.trace = seed, hang_s, trace
        self.failures: list[str] = []
        self.tmp = Path(tempfile.mkdtemp(prefix="vramlab-fuzz-"))
        self.droppable = [p for folder in DROPPED for p in sorted(folder.rglob("*"))
                          if p.is_file() and p.suffix in {".json", ".yaml", ".yml"}]
        existing = QApplication.instance()
        self.app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
        self._quiet_dialogs()
        self.window = self._window()
        self.step = 0
        self.last = "start"

    # -- set-up -----------------------------------------------------------------------------------------------
    def _window(self) -> Any:
        from PySide6.QtCore import QtMsgType, qInstallMessageHandler

        from gui import errors
        from gui.look.theme import ThemeManager, ThemeMode
        from gui.shell.main_window import MainWindow
        from gui.state.scenario import Scenario
        from gui.text import i18n
        from gui.text.fonts import register_fonts

        register_fonts()
        i18n.set_language(self.app, "en")
        self.theme = ThemeManager(self.app, ThemeMode.LIGHT)
        errors.install()
        errors.add_listener(self._on_error)

        def on_message(kind: QtMsgType, _context: object, message: str) -> None:
            if kind not in (QtMsgType.QtDebugMsg, QtMsgType.QtInfoMsg) and not message.startswith(IGNORED_QT):
                self.failures.append(f"Qt {kind.name}: {message}")

        qInstallMessageHandler(on_message)
        window = MainWindow(Scenario(), self.theme)
        window.resize(1280, 800)
        window.show()
        window.activateWindow()
        return window

    def _quiet_dialogs(self) -> None:
        """Message boxes and file dialogs answer at once (a modal dialog would stop the run)."""
        from PySide6.QtWidgets import QFileDialog, QMessageBox

        def box(*_args: Any, **_kwargs: Any) -> QMessageBox.StandardButton:
            return QMessageBox.StandardButton.Ok

        for name in ("warning", "information", "critical", "question", "about"):
            setattr(QMessageBox, name, staticmethod(box))
        for name, answer in (("getOpenFileName", ("", "")), ("getOpenFileNames", ([], "")),
                             ("getSaveFileName", ("", "")), ("getExistingDirectory", "")):
            setattr(QFileDialog, name, staticmethod(lambda *_a, _answer=answer, **_k: _answer))

    def _on_error(self, kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        self.failures.append("".join(traceback.format_exception(kind, value, tb)))

    # -- the run ----------------------------------------------------------------------------------------------
    def run(self, actions: int) -> int:
        kinds: list[tuple[Callable[[], str], int]] = [
            (self.control, 50), (self.key, 12), (self.page, 10), (self.resize, 6), (self.menu_action, 5),
            (self.scenario_file, 5), (self.drop, 4), (self.type_text, 4), (self.presentation, 3), (self.language, 2),
            (self.theme_mode, 2), (self.scale, 1),
        ]
        choose = [k for k, _ in kinds]
        weights = [w for _, w in kinds]
        for self.step in range(1, actions + 1):
            action = self.rng.choices(choose, weights)[0]
            started = time.monotonic()
            faulthandler.dump_traceback_later(self.hang_s * load_factor(), exit=True)
            self.last = f"{action.__name__} (did not return)"  # named even when it raises
            try:
                self.last = action()
                self._settle()
            except Exception:  # an error straight out of an action is a failure like any other
                self.failures.append(traceback.format_exc())
            finally:
                faulthandler.cancel_dump_traceback_later()
            if self.trace:
                print(f"{self.step:5} {time.monotonic() - started:5.2f} s  {self.last}", flush=True)
            self._check()
            if self.failures:
                return self._fail()
        print(f"fuzz: seed {self.seed}, {actions} actions, no failure", flush=True)
        return 0

    def _settle(self) -> None:
        """What the app's event loop does between two user actions: deliver what was posted, then delete what was
        ``deleteLater``'d (outside ``exec()`` Qt never deletes them: a rebuilt window's old pages would pile up)."""
        from PySide6.QtCore import QCoreApplication, QEvent

        for _ in range(3):
            self.app.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)

    def _fail(self) -> int:
        print(f"FUZZ FAILURE: seed {self.seed}, action {self.step}: {self.last}", flush=True)
        for failure in self.failures[:5]:
            print(failure, flush=True)
        return 1

    # -- checks -----------------------------------------------------------------------------------------------
    def _check(self) -> None:
        from engine.training import estimate

        sc = self.window.scenario
        e = estimate(sc.model, sc.setup, sc.gpu)
        for name in ("peak_allocated_bytes", "reserved_bytes", "device_bytes", "host_bytes"):
            value = getattr(e, name)
            if not (math.isfinite(value) and value >= 0):
                self.failures.append(f"the estimate's {name} is {value!r}")
        pages = self.window.pages
        if pages.is_built("memory"):
            memory = pages.page("memory")
            if pages.current_page_id() == "memory":
                self._check_headline(memory.summary.big.text())
                self._check_spins(memory.controls, sc.setup)

    def _check_headline(self, text: str) -> None:
        match = re.match(r"^\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s", text)
        number = float(match.group(1).replace(",", "")) if match else math.nan
        if not (math.isfinite(number) and number >= 0):
            self.failures.append(f"the memory page's headline is {text!r}")

    def _check_spins(self, controls: Any, setup: Any) -> None:
        for binder in getattr(controls, "binders", (controls.binder,)):
            binder.flush()
        shown = {"seq_len": controls.seq_spin.value(), "batch": controls.batch_spin.value(),
                 "gpus": controls.gpus_spin.value(), "lora.rank": controls.rank.value(),
                 "grad_accum": controls.grad_accum.value()}
        wanted = {"seq_len": setup.seq_len, "batch": setup.batch, "gpus": setup.gpus, "lora.rank": setup.lora.rank,
                  "grad_accum": setup.grad_accum}
        if shown != wanted:
            self.failures.append(f"the memory page's spin boxes show {shown}, the scenario holds {wanted}")

    # -- actions ----------------------------------------------------------------------------------------------
    def _widgets(self) -> list[Any]:
        from PySide6.QtWidgets import QAbstractButton, QAbstractSlider, QAbstractSpinBox, QComboBox, QLineEdit

        kinds = (QAbstractSlider, QAbstractSpinBox, QComboBox, QAbstractButton, QLineEdit)
        found = self.window.findChildren(QAbstractButton) + self.window.findChildren(QAbstractSlider)
        found += self.window.findChildren(QAbstractSpinBox) + self.window.findChildren(QComboBox)
        found += self.window.findChildren(QLineEdit)
        return [w for w in found if isinstance(w, kinds) and w.isVisible() and w.isEnabled()]

    def _name(self, widget: Any) -> str:
        return f"{type(widget).__name__}({widget.objectName() or widget.accessibleName() or ''})"

    def control(self) -> str:
        from PySide6.QtWidgets import (
            QAbstractButton,
            QAbstractSlider,
            QAbstractSpinBox,
            QComboBox,
            QDoubleSpinBox,
            QSpinBox,
        )

        widgets = self._widgets()
        if not widgets:
            return "control: none visible"
        w = self.rng.choice(widgets)
        if isinstance(w, QAbstractSlider):
            position = self.rng.choice([w.minimum(), w.maximum(), self.rng.randint(w.minimum(), w.maximum()),
                                        *BEYOND])
            w.setValue(position)
            return f"{self._name(w)}.setValue({position})"
        if isinstance(w, QSpinBox | QDoubleSpinBox):
            drawn: float = self.rng.choice([w.minimum(), w.maximum(), w.minimum() - 1, w.maximum() + 1, *BEYOND,
                                            self.rng.uniform(w.minimum(), w.maximum())])
            drawn = max(min(drawn, 2**31 - 1), -(2**31))
            if isinstance(w, QSpinBox):
                w.setValue(int(drawn))
            else:
                w.setValue(drawn)
            return f"{self._name(w)}.setValue({drawn})"
        if isinstance(w, QAbstractSpinBox):
            w.stepBy(self.rng.choice((-100, -1, 1, 100)))
            return f"{self._name(w)}.stepBy"
        if isinstance(w, QComboBox):
            index = self.rng.randint(-1, w.count())
            w.setCurrentIndex(index)
            if self.rng.random() < 0.5:
                w.activated.emit(w.currentIndex())
            return f"{self._name(w)}.setCurrentIndex({index})"
        if isinstance(w, QAbstractButton):
            menu = getattr(w, "menu", lambda: None)()
            if menu is not None:  # a button with a menu would open it modally: trigger one of its actions
                actions = [a for a in menu.actions() if a.isEnabled() and not a.isSeparator()]
                if actions:
                    action = self.rng.choice(actions)
                    action.trigger()
                    return f"{self._name(w)} menu: {action.text()}"
                return f"{self._name(w)}: empty menu"
            w.click()
            return f"{self._name(w)}.click() {w.text()!r}"
        return f"{self._name(w)}: untouched"

    def type_text(self) -> str:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QComboBox, QLineEdit

        fields = [w for w in self._widgets() if isinstance(w, QLineEdit | QComboBox) and
                  (isinstance(w, QLineEdit) or w.isEditable())]
        if not fields:
            return "type: no text field"
        w = self.rng.choice(fields)
        text = self.rng.choice(TEXTS)
        target = w.lineEdit() if isinstance(w, QComboBox) else w
        if target is None:
            return f"type: {self._name(w)} has no line edit"
        target.setFocus()
        target.selectAll()
        if text.isascii() and text.isprintable() and len(text) <= 200:
            QTest.keyClicks(target, text)  # QTest types ASCII only (it asserts on other characters)
        else:
            target.insert(text)  # what typing or pasting the text does
        QTest.keyClick(target, Qt.Key.Key_Return)
        return f"type {text[:20]!r} into {self._name(w)}"

    def key(self) -> str:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QApplication

        name = self.rng.choice(KEYS)
        target = QApplication.focusWidget() or self.window
        QTest.keyClick(target, getattr(Qt.Key, name))
        return f"key {name} to {self._name(target)}"

    def page(self) -> str:
        from gui.pages import PAGE_IDS

        page_id = self.rng.choice(PAGE_IDS)
        self.window.pages.show_page(page_id)
        return f"page {page_id}"

    def resize(self) -> str:
        w, h = self.rng.choice([(200, 150), (3840, 2160), (1280, 720), (1920, 1080)]) if self.rng.random() < 0.5 \
            else (self.rng.randint(200, 3840), self.rng.randint(150, 2160))
        self.window.resize(w, h)
        return f"resize {w} x {h}"

    def menu_action(self) -> str:
        ids = sorted(i for i, a in self.window.actions_by_id.items()
                     if i not in SKIPPED_ACTIONS and not i.startswith("menu:") and a.isEnabled())
        action_id = self.rng.choice(ids)
        self.window.actions_by_id[action_id].trigger()
        return f"menu {action_id}"

    def scenario_file(self) -> str:
        files = self.window.files
        roll = self.rng.random()
        if roll < 0.15:
            files.reset()
            return "file: reset"
        if roll < 0.3:
            path = self.tmp / f"saved-{self.step}.vramlab.json"
            files.save_path(path)
            return f"file: save {path.name}"
        if roll < 0.45 and any(self.tmp.glob("*.vramlab.json")):
            path = self.rng.choice(sorted(self.tmp.glob("*.vramlab.json")))
        else:
            path = self.rng.choice(sorted((CORPUS / "scenarios").iterdir()))
        files.open_path(path)
        return f"file: open {path.name}"

    def drop(self) -> str:
        """One to three files dropped on the window: malformed ones of the corpus, the training configs of
        ``tests/fixtures``, what this run saved (each is sniffed and opened, or refused with one line)."""
        pool = self.droppable + sorted(self.tmp.glob("*.vramlab.json"))
        paths = self.rng.sample(pool, self.rng.randint(1, 3))
        self.window.drops.route(paths)
        return f"drop {', '.join(p.name for p in paths)}"

    def presentation(self) -> str:
        self.window.presentation.toggle()
        return f"presentation {'on' if self.window.presentation.active else 'off'}"

    def language(self) -> str:
        from gui.text.i18n import LANGUAGES

        code = self.rng.choice(LANGUAGES)
        self.window.set_language(code)
        return f"language {code}"

    def theme_mode(self) -> str:
        from gui.look.theme import ThemeMode

        mode = self.rng.choice(list(ThemeMode))
        self.theme.set_mode(mode)
        return f"theme {mode.value}"

    def scale(self) -> str:
        from gui.shell.menus import PRESENTATION_SCALES

        percent = self.rng.choice(PRESENTATION_SCALES)
        self.window.presentation.set_scale(percent)
        return f"presentation scale {percent}%"


def machine_factor() -> float:
    """How much slower than a typical laptop this machine runs Python: ``sum(range(10000))``'s best of 20 over
    100 us (ENVIRONMENT.md, "Timing on these machines"), at least 1."""
    best = math.inf
    for _ in range(20):
        start = time.perf_counter()
        sum(range(10_000))
        best = min(best, time.perf_counter() - start)
    return max(1.0, best / 100e-6)


def load_factor() -> float:
    """The load average per core when other work shares the cores (at least 1), read before each action."""
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def only_this_checkout() -> None:
    """Import the app from this checkout only. An editable install of another checkout (a shared virtual
    environment) maps a module this checkout lacks to that checkout's copy, half of a feature this one does not
    have (a Timeline opener without its page); without its finder a missing module is missing, as in a build."""
    sys.path.insert(0, str(REPO))
    sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable__")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--hang-s", type=float, default=None,
                        help="the watchdog: the longest one action may take (default 2 s x the machine factor)")
    parser.add_argument("--trace", action="store_true", help="print every action")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("VRAMLAB_SETTINGS_DIR", tempfile.mkdtemp(prefix="vramlab-fuzz-settings-"))
    only_this_checkout()
    from gui import settings

    settings.redirect_from_env()
    factor = machine_factor()
    hang_s = args.hang_s if args.hang_s is not None else 2.0 * factor
    print(f"fuzz: seed {args.seed}, {args.actions} actions, machine factor {factor:.1f}, watchdog {hang_s:.1f} s "
          f"(times the load per core, now {load_factor():.1f})", flush=True)
    start = time.monotonic()
    status = Driver(args.seed, hang_s, args.trace).run(args.actions)
    print(f"fuzz: {time.monotonic() - start:.1f} s", flush=True)
    sys.stdout.flush()
    os._exit(status)  # no teardown: the window's state after a failure is not to be trusted


if __name__ == "__main__":
    sys.exit(main())
