"""One lesson, as the Lessons panel shows it: its title, page and text, a Start button, the goal's live verdict,
the hints revealed so far (one more on request), and, once the goal is met, the explanation with its sources.

The view shows what it is given (a ``Lesson`` from ``engine.lessons``, in one language, and a ``Check``); it
checks nothing itself. The verdict's colour follows the theme (``gui.look.palette``: light, dark, presentation).
"""

from __future__ import annotations

from html import escape as _escape
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from gui.look.follows_palette import FollowsPalette
from gui.look.palette import colors_for
from gui.pages import page_title

if TYPE_CHECKING:
    from engine.lessons import Check, Lesson

TITLE_SCALE = 1.3


def escape(text: str) -> str:
    """Text for a rich-text label: ``&``, ``<`` and ``>`` escaped (quotes are plain text there)."""
    return _escape(text, quote=False)


def label(parent: QWidget, name: str, rich: bool = False) -> QLabel:
    """A word-wrapped label whose text the mouse can select (to copy a command from a fact)."""
    widget = QLabel(parent)
    widget.setObjectName(name)
    widget.setWordWrap(True)
    widget.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    widget.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    widget.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    return widget


def button(text: str, parent: QWidget, name: str) -> QPushButton:
    """A push button that Enter presses as well as Space (``autoDefault``, which buttons outside dialogs lack)."""
    widget = QPushButton(text, parent)
    widget.setObjectName(name)
    widget.setAutoDefault(True)
    return widget


class LessonView(FollowsPalette, QWidget):
    """The lesson in view.

    Signals:
        start_requested(): the learner pressed Start.
        hint_requested(): the learner asked for the next hint.
    """

    start_requested = Signal()
    hint_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lessonView")
        self.lesson: Lesson | None = None
        self.lang = "en"
        self._check: Check | None = None
        self._started = self._passed_ever = False
        self.title, self.where = label(self, "lessonTitle"), label(self, "lessonPage")
        self.text = label(self, "lessonText")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * TITLE_SCALE)
        font.setBold(True)
        self.title.setFont(font)
        self.where.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.start = button(self.tr("Start this lesson"), self, "lessonStart")
        self.start.setToolTip(self.tr("Sets up the exercise (model, GPU, settings) and opens the lesson's page"))
        self.start.clicked.connect(self.start_requested)
        self.status = label(self, "lessonStatus", rich=True)
        self.hint_labels: list[QLabel] = []
        self.hint_button = button("", self, "lessonHint")
        self.hint_button.clicked.connect(self.hint_requested)
        self.explanation = QFrame(self)
        self.explanation.setObjectName("lessonExplanation")
        self.explanation.setFrameShape(QFrame.Shape.StyledPanel)
        self.explanation_text = label(self.explanation, "lessonExplanationText", rich=True)
        inner = QVBoxLayout(self.explanation)
        inner.addWidget(self.explanation_text)
        self._layout()
        self.follow_palette()

    def _layout(self) -> None:
        self._box = QVBoxLayout(self)
        self._box.setContentsMargins(0, 0, 0, 0)
        for widget in (self.title, self.where, self.text, self.start, self.status):
            self._box.addWidget(widget)
        self._hints_at = self._box.count()
        self._box.addWidget(self.hint_button)
        self._box.addWidget(self.explanation)
        self._box.addStretch(1)

    # -- what it shows ------------------------------------------------------------------------------------------
    def show_lesson(self, lesson: Lesson, lang: str, hints: int, started: bool, passed_ever: bool) -> None:
        """Show ``lesson`` in ``lang`` with its first ``hints`` hints; ``started``: its goal is being checked."""
        self.lesson, self.lang = lesson, lang
        self.title.setText(lesson.title.get(lang))
        self.where.setText(self.tr("On the {page} page").format(page=page_title(lesson.page.value)))
        self.text.setText(lesson.text.get(lang))
        self.start.setText(self.tr("Start again") if started else self.tr("Start this lesson"))
        self._started, self._passed_ever, self._check = started, passed_ever, None
        self.explanation_text.clear()
        self.show_hints(hints)
        self._show_status()

    def show_hints(self, count: int) -> None:
        """Show the first ``count`` hints, and what the hint button would reveal next."""
        assert self.lesson is not None
        hints = self.lesson.hints
        while len(self.hint_labels) > count:
            gone = self.hint_labels.pop()
            gone.hide()  # now: deleteLater waits for the event loop
            self._box.removeWidget(gone)
            gone.deleteLater()
        while len(self.hint_labels) < min(count, len(hints)):
            n = len(self.hint_labels)
            hint = label(self, f"lessonHint{n + 1}")
            self._box.insertWidget(self._hints_at + n, hint)
            self.hint_labels.append(hint)
        for n, hint in enumerate(self.hint_labels):
            hint.setText(self.tr("Hint {n}: {text}").format(n=n + 1, text=hints[n].get(self.lang)))
        more = count < len(hints)
        self.hint_button.setEnabled(more)
        self.hint_button.setText(self.tr("Show a hint ({n} of {total})").format(n=count + 1, total=len(hints))
                                 if more else self.tr("Every hint is shown"))

    def verdict(self) -> bool | None:
        """The verdict on screen: met (``True``), not met, or none yet (``None``)."""
        return None if self._check is None else self._check.passed

    def show_check(self, check: Check, passed_ever: bool) -> None:
        """The goal's verdict now; the explanation shows once the goal has been met."""
        self._check, self._passed_ever = check, passed_ever
        self._show_status()

    def _show_status(self) -> None:
        assert self.lesson is not None
        c = colors_for(self)
        if not self._started or self._check is None:
            page = page_title(self.lesson.page.value)
            text = escape(self.tr("Press Start: it sets up the exercise and opens the {page} page. The goal is then "
                                  "checked as you change the setup.").format(page=page))
        else:
            ok = self._check.passed
            verdict = self.tr("✓ Goal met.") if ok else self.tr("✗ Not yet.")
            text = (f'<span style="color:{c.fits if ok else c.over}"><b>{escape(verdict)}</b></span> '
                    f"{escape(self._check.why.get(self.lang))}")
        if text != self.status.text():
            self.status.setText(text)
        shown = self._passed_ever or (self._check is not None and self._check.passed)
        if shown and not self.explanation_text.text():
            self.explanation_text.setText(self._explanation_html(c.muted))
        self.explanation.setVisible(shown)

    def _explanation_html(self, muted: str) -> str:
        assert self.lesson is not None
        ex, source = self.lesson.explanation, self.tr("Source: {source}")
        why, facts_heading = escape(self.tr("Why it works")), escape(self.tr("Facts and sources"))
        facts = "".join(f'<p style="margin-left:1em; text-indent:-1em">•&nbsp;{escape(f.text.get(self.lang))}<br>'
                        f'<span style="color:{muted}">{escape(source.format(source=f.source))}</span></p>'
                        for f in ex.facts)  # a hanging bullet: a list's indent is too wide for a drawer
        return (f"<p><b>{why}</b></p><p>{escape(ex.text.get(self.lang))}</p>"
                f"<p><b>{facts_heading}</b></p>{facts}")

    def palette_changed(self) -> None:
        if self.lesson is not None:
            self.explanation_text.clear()  # its sources' colour follows the theme
            self._show_status()
