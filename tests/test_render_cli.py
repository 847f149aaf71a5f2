"""``referee render`` run as a real subprocess: stills, a sequence, repeatability, user errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import helpers
import pytest
from helpers import ok, one_error_line

from referee.rules.check import check_record
from referee.rules.record import parse_record

SMALL = ["--size", "640x360"]
TRUTH_KEYS = {"width", "height", "occluded", "tiles", "face_down", "layout", "scene"}


def referee(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return helpers.referee("render", *args, timeout=300)


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def lines(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """Seed 3 twice and seed 4 once, two line frames each."""
    base = tmp_path_factory.mktemp("render")
    out = []
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        folder = base / name
        ok(referee("--kind", "line", "--count", 2, "--seed", seed, "--out", folder, *SMALL, "--quiet"))
        out.append(folder)
    return out[0], out[1], out[2]


def test_stills_are_jpg_and_json_pairs_of_the_stated_size(lines: tuple[Path, Path, Path]) -> None:
    folder = lines[0]
    names = sorted(p.name for p in folder.iterdir())
    assert len(names) == 4
    stems = sorted({Path(n).stem for n in names})
    assert len(stems) == 2
    assert names == sorted([f"{s}.jpg" for s in stems] + [f"{s}.json" for s in stems])
    for stem in stems:
        image = cv2.imread(str(folder / f"{stem}.jpg"), cv2.IMREAD_UNCHANGED)
        assert image is not None and image.shape == (360, 640, 3)
        truth: dict[str, Any] = json.loads((folder / f"{stem}.json").read_text(encoding="utf-8"))
        assert set(truth) >= TRUTH_KEYS
        assert (truth["width"], truth["height"]) == (640, 360)
        assert isinstance(truth["occluded"], bool)
        assert truth["tiles"], "a line of play has tiles"
        for tile in truth["tiles"]:
            assert set(tile) >= {"pips", "halves", "corners", "center"}
            assert len(tile["pips"]) == 2 and len(tile["halves"]) == 2 and len(tile["corners"]) == 4
            assert all(0 <= x <= 639 and 0 <= y <= 359 for x, y in tile["corners"])
        for tile in truth["face_down"]:
            assert set(tile) >= {"center", "corners"} and len(tile["corners"]) == 4
        layout = truth["layout"]
        assert set(layout) >= {"line", "spinner", "branches", "open_ends", "count"}
        assert truth["scene"]["kind"] == "line"
        assert truth["scene"]["camera"]["size"] == [640, 360]
        # Every tile of the line of play is on the picture, face up.
        laid = layout["line"] + layout["branches"]["up"] + layout["branches"]["down"]
        shown = sorted(tuple(sorted(t["pips"])) for t in truth["tiles"])
        assert sorted(tuple(sorted(int(v) for v in s.split("-"))) for s in laid) == shown


def test_the_same_seed_gives_the_same_files_and_another_seed_others(lines: tuple[Path, Path, Path]) -> None:
    a, b, c = (files(folder) for folder in lines)
    assert a == b
    assert len(c) == len(a)
    for name_a, name_c in zip(sorted(a), sorted(c), strict=True):
        assert a[name_a] != c[name_c]


def test_a_sequence_folder_holds_the_record_frames_and_events(tmp_path: Path) -> None:
    ok(referee("--kind", "sequence", "--count", 1, "--seed", 2, "--out", tmp_path, *SMALL, "--quiet"))
    folders = [p for p in tmp_path.iterdir()]
    assert len(folders) == 1 and folders[0].is_dir()
    folder = folders[0]
    sequence = json.loads((folder / "sequence.json").read_text(encoding="utf-8"))
    assert {"variant", "players", "rules", "hands", "frames", "events"} <= set(sequence)
    report = check_record(parse_record(sequence))
    assert report.all_legal
    # The file is a game record as it stands: referee check reads it.
    checked = subprocess.run([sys.executable, "-m", "referee.cli", "check", str(folder / "sequence.json"), "--json"],
                             capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["hands"][0]["result"] in ("domino", "blocked", "target")
    assert sequence["frames"], "a hand has frames"
    for number, frame in enumerate(sequence["frames"]):
        assert frame["frame"] == number
        image = cv2.imread(str(folder / frame["file"]))
        assert image is not None and image.shape == (360, 640, 3)
        truth = json.loads((folder / frame["file"]).with_suffix(".json").read_text(encoding="utf-8"))
        assert set(truth) >= TRUTH_KEYS
        assert truth["occluded"] == frame["occluded"]
    listed = {frame["file"] for frame in sequence["frames"]}
    on_disk = {p.name for p in folder.glob("*.jpg")}
    assert listed == on_disk
    events = sequence["events"]
    assert events[-1]["event"] == "hand_end"
    assert all(0 <= e["frame"] < len(sequence["frames"]) for e in events)
    assert events[-1]["winner"] == report.hands[0].winner and events[-1]["points"] == report.hands[0].points


@pytest.mark.parametrize("args", [
    ["--kind", "bogus"],
    ["--kind", "line", "--size", "10x10"],
    ["--kind", "line", "--size", "abc"],
    ["--kind", "line", "--tilt", "45"],
    ["--kind", "line", "--count", "0"],
    ["--kind", "line", "--players", "7"],
    ["--kind", "sequence", "--players", "7"],
])
def test_bad_arguments_exit_2_with_one_line(args: list[str], tmp_path: Path) -> None:
    line = one_error_line(referee(*args, "--out", tmp_path / "out"))
    assert line.startswith("referee render:")
    assert not (tmp_path / "out").exists()


def test_it_never_writes_over_an_existing_file(tmp_path: Path) -> None:
    ok(referee("--kind", "line", "--count", 1, "--seed", 3, "--out", tmp_path / "probe", *SMALL, "--quiet"))
    first = sorted((tmp_path / "probe").iterdir())[0].name  # the first file the command writes
    folder = tmp_path / "busy"
    folder.mkdir()
    (folder / first).write_bytes(b"mine")
    line = one_error_line(referee("--kind", "line", "--count", 2, "--seed", 3, "--out", folder, *SMALL, "--quiet"))
    assert "exists" in line
    assert [p.name for p in folder.iterdir()] == [first]
    assert (folder / first).read_bytes() == b"mine"


def test_an_existing_sequence_folder_is_left_alone(tmp_path: Path) -> None:
    ok(referee("--kind", "sequence", "--count", 1, "--seed", 2, "--out", tmp_path / "probe", *SMALL, "--quiet"))
    name = next((tmp_path / "probe").iterdir()).name
    (tmp_path / "busy" / name).mkdir(parents=True)
    (tmp_path / "busy" / name / "note.txt").write_text("mine", encoding="utf-8")
    one_error_line(referee("--kind", "sequence", "--count", 1, "--seed", 2, "--out", tmp_path / "busy", *SMALL))
    assert [p.name for p in (tmp_path / "busy" / name).iterdir()] == ["note.txt"]
