"""Refresh and compile the translations: ``pyside6-lupdate`` over the sources, ``pyside6-lrelease`` to ``.qm``.

    python tools/translations.py update    # extract new texts into assets/translations/vramlab_*.ts
    python tools/translations.py release   # compile each .ts into the .qm that ships

Sources are every module under ``gui/`` and the engine modules whose texts the GUI shows
(``ENGINE_SOURCES``: they mark them with a plain ``QT_TRANSLATE_NOOP("engine", ...)``). ``tests/gui/text/test_i18n.py``
runs the same extraction into a temporary file and fails when the committed ``.ts`` or ``.qm`` is behind.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TRANSLATIONS = REPO / "assets" / "translations"
ENGINE_SOURCES = ("engine/attention_text.py", "engine/alignment/facts.py", "engine/alignment/roles.py",
                  "engine/alignment/rollout.py", "engine/terms.py",
                  # the config importer's report and refusals (gui.text.config_import_texts translates them)
                  *sorted(f"engine/config_import/{p.name}" for p in (REPO / "engine" / "config_import").glob("*.py")))


def tool(name: str) -> str:
    """A Qt tool from the running Python's environment (where PySide6 installs it), else from the PATH."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found (it comes with PySide6-Essentials)")
    return found


def sources() -> list[str]:
    """Every file lupdate reads, relative to the checkout, sorted."""
    return sorted(str(p.relative_to(REPO)) for p in (REPO / "gui").rglob("*.py")) + list(ENGINE_SOURCES)


def update(ts: Path, *extra: str) -> None:
    """Extract the texts into ``ts`` (new texts are added unfinished; vanished ones are marked obsolete). No
    source locations: an edit that moves a text does not change the ``.ts``."""
    command = [tool("pyside6-lupdate"), "-locations", "none", *sources(), *extra, "-ts", str(ts)]
    subprocess.run(command, cwd=REPO, check=True, capture_output=True, timeout=300)
    ts.write_text(_NOTE.sub("", ts.read_text(encoding="utf-8")), encoding="utf-8")


#: lupdate takes a ``#:`` comment above a text as a note to its translator; in this code base ``#:`` documents the
#: attribute below it (Sphinx's convention), so a note would describe some other line: such notes are dropped
_NOTE = re.compile(r"[ \t]*<extracomment>.*?</extracomment>\n", re.DOTALL)


def release(ts: Path, qm: Path) -> None:
    """Compile ``ts`` into ``qm``."""
    subprocess.run([tool("pyside6-lrelease"), str(ts), "-qm", str(qm)], cwd=REPO, check=True, capture_output=True,
                   timeout=300)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"update", "release"}:
        print(__doc__)
        return 2
    for ts in sorted(TRANSLATIONS.glob("vramlab_*.ts")) or [TRANSLATIONS / "vramlab_zh_TW.ts"]:
        if argv[0] == "update":
            update(ts, "-no-obsolete")
        else:
            release(ts, ts.with_suffix(".qm"))
        print(ts.relative_to(REPO))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
