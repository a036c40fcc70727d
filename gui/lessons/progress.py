"""The learner's progress through the lessons, kept in the settings (``gui.settings``, group ``lessons``): the
lessons passed, the lesson in view, the lesson started, and how many hints each lesson has revealed.

A ``LessonProgress`` reads the settings once and writes every change through at once, so that a rebuilt window
(a language switch, presentation mode) or the next start of the app finds the same progress; ``reset`` forgets it
all. Ids are kept as one space-separated string (an INI list of one item would read back as a plain string); an
id that names no lesson any more (a lesson renamed or removed) is dropped when read.

Usage::

    progress = LessonProgress([lesson.id for lesson in lessons()])
    progress.start("fit-7b-24gb")
    progress.reveal_hint("fit-7b-24gb", total=3)      # 1
    progress.mark_passed("fit-7b-24gb")               # True: newly passed
"""

from __future__ import annotations

from collections.abc import Sequence

from gui.settings import LESSONS_GROUP, settings

CURRENT, STARTED, PASSED, HINTS = (f"{LESSONS_GROUP}/{k}" for k in ("current", "started", "passed", "hints"))


class LessonProgress:
    """Progress over the lessons ``known`` (ids in course order), read from and written to the settings."""

    def __init__(self, known: Sequence[str]) -> None:
        if not known:
            raise ValueError("no lessons")
        self.known = tuple(known)
        store = settings()
        self._passed = {i for i in str(store.value(PASSED, "")).split() if i in self.known}
        current = store.value(CURRENT)
        self._current = current if isinstance(current, str) and current in self.known else self.known[0]
        started = store.value(STARTED)
        self._started = started if isinstance(started, str) and started in self.known else None
        self._hints = {i: _count(store.value(f"{HINTS}/{i}")) for i in self.known}

    @property
    def current(self) -> str:
        """The lesson in view (the first one until the learner picks another)."""
        return self._current

    @property
    def started(self) -> str | None:
        """The lesson whose start was applied last (its goal is the one checked), if any."""
        return self._started

    @property
    def passed(self) -> frozenset[str]:
        return frozenset(self._passed)

    def hints(self, lesson_id: str) -> int:
        """How many of the lesson's hints are revealed."""
        return self._hints.get(lesson_id, 0)

    def set_current(self, lesson_id: str) -> None:
        self._check(lesson_id)
        self._current = lesson_id
        settings().setValue(CURRENT, lesson_id)

    def start(self, lesson_id: str) -> None:
        """The lesson is started (its start applied): its goal is checked from now on."""
        self._check(lesson_id)
        self._started = lesson_id
        settings().setValue(STARTED, lesson_id)

    def mark_passed(self, lesson_id: str) -> bool:
        """Record a passed goal; ``True`` when it had not passed before."""
        self._check(lesson_id)
        if lesson_id in self._passed:
            return False
        self._passed.add(lesson_id)
        settings().setValue(PASSED, " ".join(i for i in self.known if i in self._passed))
        return True

    def reveal_hint(self, lesson_id: str, total: int) -> int:
        """Reveal the lesson's next hint (at most ``total``); returns how many are revealed now."""
        self._check(lesson_id)
        shown = min(self.hints(lesson_id) + 1, total)
        self._hints[lesson_id] = shown
        settings().setValue(f"{HINTS}/{lesson_id}", shown)
        return shown

    def reset(self) -> None:
        """Forget everything: no lesson passed or started, no hint revealed, the first lesson in view."""
        settings().remove(LESSONS_GROUP)
        self._passed.clear()
        self._hints = dict.fromkeys(self.known, 0)
        self._current, self._started = self.known[0], None

    def _check(self, lesson_id: str) -> None:
        if lesson_id not in self.known:
            raise KeyError(lesson_id)


def _count(value: object) -> int:
    try:
        return max(0, int(str(value)))
    except ValueError:
        return 0
