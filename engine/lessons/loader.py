"""The bundled lessons: one JSON file per lesson in ``engine/lessons/data/``, read as package data.

Lessons ship inside the ``engine`` package (like ``engine/catalog``) because the engine, which checks them, never
imports ``gui`` and so cannot use ``gui.resources``; ``importlib.resources`` finds the folder in a checkout, an
installed wheel (``setup.py``'s ``package_data``) and the frozen bundle (``packaging/bundle_files.py`` ships every
data file under ``engine/`` at its relative path). A file's name is its lesson's id.
"""

from __future__ import annotations

from difflib import get_close_matches
from functools import cache
from importlib import resources

from pydantic import ValidationError

from engine.errors import one_line
from engine.lessons.lesson import Lesson
from engine.safe_io import loads_json

DATA = "data"


class LessonError(LookupError):
    """A lesson id that names no lesson, or a lesson file that does not validate (the message names the file)."""


def parse_lesson(text: str, name: str) -> Lesson:
    """Validate one lesson file's text; ``LessonError`` names the file, the field and the problem on one line."""
    data = loads_json(text, name)
    try:
        lesson = Lesson.model_validate(data)
    except ValidationError as err:
        raise LessonError(f"{name}: {one_line(err, fallback='lesson')}") from None
    if name.endswith(".json") and name.rsplit("/", 1)[-1] != f"{lesson.id}.json":
        raise LessonError(f"{name}: id: {lesson.id!r} must match the file name ({lesson.id}.json)")
    return lesson


@cache
def lessons() -> tuple[Lesson, ...]:
    """Every bundled lesson, in course order (``order``, then id)."""
    folder = resources.files("engine.lessons").joinpath(DATA)
    found = [parse_lesson(f.read_text(encoding="utf-8"), f"{DATA}/{f.name}")
             for f in folder.iterdir() if f.name.endswith(".json")]
    ids = [x.id for x in found]
    if len(set(ids)) != len(ids):
        raise LessonError(f"duplicate lesson ids in {DATA}/")
    return tuple(sorted(found, key=lambda x: (x.order, x.id)))


def get_lesson(lesson_id: str) -> Lesson:
    """One lesson by id; ``LessonError`` names the closest ids when there is none."""
    for lesson in lessons():
        if lesson.id == lesson_id:
            return lesson
    close = get_close_matches(lesson_id, [x.id for x in lessons()], n=3, cutoff=0.4)
    hint = f"; closest: {', '.join(close)}" if close else f"; known: {', '.join(x.id for x in lessons())}"
    raise LessonError(f"unknown lesson {lesson_id!r}{hint}")
