"""gui.app: the command line, in process for argument errors and as a real subprocess for everything else."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from gui.app import build_parser, main
from gui.pages import PAGE_IDS

REPO = Path(__file__).resolve().parents[2]


def run_app(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``python -m gui ARGS`` from the repository root, offscreen, with the test's settings folder."""
    full_env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "gui", *args],
        cwd=REPO,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def distinct_colours(image: QImage, step: int = 7) -> int:
    return len({image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)})


def test_screenshot_writes_one_non_blank_png_per_page(tmp_path: Path) -> None:
    out = tmp_path / "shots"
    result = run_app("--screenshot", str(out))
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{p}.png" for p in PAGE_IDS)
    for page_id in PAGE_IDS:
        image = QImage(str(out / f"{page_id}.png"))
        assert (image.width(), image.height()) == (1280, 800)
        assert distinct_colours(image) > 8, f"{page_id}.png looks blank"


def test_screenshots_differ_between_themes(tmp_path: Path) -> None:
    for theme in ("light", "dark"):
        assert run_app("--screenshot", str(tmp_path / theme), "--theme", theme).returncode == 0
    light, dark = (QImage(str(tmp_path / t / "memory.png")) for t in ("light", "dark"))
    assert light.pixelColor(640, 700).lightness() > 200
    assert dark.pixelColor(640, 700).lightness() < 60


def test_smoke_test_exits_zero() -> None:
    result = run_app("--smoke-test")
    assert result.returncode == 0, result.stderr


def test_startup_probe_prints_elapsed_time_and_quits() -> None:
    result = run_app(env={"VRAMLAB_STARTUP_PROBE": "1"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("startup_s=")
    figures = {k: float(v) for k, _, v in (line.partition("=") for line in result.stdout.split())}
    assert 0 < figures["startup_s"] <= figures["settled_s"] < 30


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--page", "nope"], "invalid choice: 'nope'"),
        (["--lang", "xx"], "invalid choice: 'xx'"),
        (["--bogus"], "unrecognized arguments"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert message in err


def test_bad_page_in_a_real_process_has_no_traceback() -> None:
    result = run_app("--page", "nope")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_unwritable_screenshot_folder_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = run_app("--screenshot", str(blocker / "shots"))
    assert result.returncode == 2
    assert result.stderr.startswith("vramlab: error: cannot write screenshots to")
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("vramlab ")


def test_parser_offers_every_page() -> None:
    page = next(a for a in build_parser()._actions if a.dest == "page")
    assert tuple(page.choices or ()) == PAGE_IDS


def test_no_display_is_one_line_error(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert main([]) == 2
    assert "no display" in capsys.readouterr().err


def test_chinese_screenshots(tmp_path: Path) -> None:
    for lang in ("en", "zh_TW"):
        result = run_app("--lang", lang, "--screenshot", str(tmp_path / lang), "--page", "memory")
        assert result.returncode == 0, result.stderr
    english, chinese = (QImage(str(tmp_path / lang / "memory.png")) for lang in ("en", "zh_TW"))
    assert english.size() == chinese.size()
    assert english != chinese


def test_a_scenario_given_on_the_command_line_is_opened(tmp_path: Path) -> None:
    from engine.catalog import get_gpu, get_model
    from engine.specs import TrainingSetup
    from gui.files import scenario_file
    from gui.state.scenario_data import ScenarioData

    path = tmp_path / "big.vramlab.json"
    data = ScenarioData(model=get_model("llama-2-70b"), setup=TrainingSetup(gpus=8), gpu=get_gpu("h100-80gb"))
    scenario_file.save(path, data)
    for name, args in (("default", ()), ("opened", (str(path),))):
        result = run_app(*args, "--screenshot", str(tmp_path / name))
        assert result.returncode == 0, result.stderr
    assert QImage(str(tmp_path / "default" / "memory.png")) != QImage(str(tmp_path / "opened" / "memory.png"))


def test_a_bad_scenario_on_the_command_line_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "future.vramlab.json"
    path.write_text('{"format": "vramlab-scenario", "version": 7}', encoding="utf-8")
    result = run_app(str(path), "--smoke-test")
    assert result.returncode == 2
    assert result.stderr.startswith("vramlab: error: ")
    assert "newer VRAM Lab" in result.stderr
    assert result.stderr.count("\n") == 1
