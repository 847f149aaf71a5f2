"""``referee evaluate --by``: the totals by what the frames show (``referee.vision.groups``).
Scores here come from perfect and spoiled detections built from the truth files, so the grouping
is checked without the detector; one real subprocess runs the command on the sample stills."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import REPO, one_error_line, referee
from test_vision_evaluate import perfect as perfect_of

from referee.vision.evaluate import Case, Totals, find_cases, match, parse_truth
from referee.vision.groups import FACTORS, by_group, format_groups, groups_of
from referee.vision.types import Detection

STILLS = REPO / "sample_images" / "stills"
SEQUENCE = REPO / "sample_images" / "sequences" / "sequence-11-000"


def perfect(case: Case) -> Detection:
    data = json.loads(case.truth_path.read_text(encoding="utf-8"))
    return perfect_of(data)


def test_a_rendered_still_falls_in_the_groups_its_scene_names() -> None:
    for case in find_cases(STILLS):
        scene = case.scene
        assert scene is not None
        groups = groups_of(case.truth, scene, case.truth_path)
        assert set(groups) == set(FACTORS)
        assert (groups["kind"], groups["style"], groups["table"]) == (scene["kind"], scene["style"], scene["table"])
        assert groups["size"] == f"{case.truth.width}x{case.truth.height}"
        tilt = scene["camera"]["tilt_deg"]
        low, high = (0, 8) if tilt < 8 else (8, 15) if tilt < 15 else (15, None)
        assert groups["tilt"] == (f"{low}-{high} deg" if high else f"{low}+ deg")


def test_bands_hold_their_lower_bound() -> None:
    truth = parse_truth({"width": 1000, "height": 800, "tiles": []})
    here = Path("nowhere")

    def at(tilt: float, tile_px: float) -> tuple[str, str]:
        g = groups_of(truth, {"camera": {"tilt_deg": tilt, "px_per_mm": tile_px / 40}, "tile_mm": [40, 20, 7]}, here)
        return g["tilt"], g["tile"]

    assert at(0, 39.9) == ("0-8 deg", "0-40 px")
    assert at(7.99, 40) == ("0-8 deg", "40-80 px")
    assert at(8, 159.9) == ("8-15 deg", "80-160 px")
    assert at(20, 160) == ("15+ deg", "160+ px")


def test_a_labelled_photo_has_only_its_size_and_tile_length() -> None:
    # The real photos' labels carry no scene: the tile length comes from the labelled halves
    # (a tile is twice as long as its half centres are apart).
    truth = parse_truth({"width": 640, "height": 480, "tiles": [
        {"pips": [1, 2], "halves": [[100, 100], [150, 100]]},
        {"pips": [3, 4], "halves": [[300, 100], [300, 160]]},
        {"pips": [5, 6], "halves": [[400, 300], [440, 300]]}]})
    groups = groups_of(truth, None, Path("photo.json"))
    assert groups == {"kind": "-", "style": "-", "table": "-", "size": "640x480", "tilt": "-", "tile": "80-160 px"}


def test_a_frame_of_a_rendered_hand_is_of_kind_sequence() -> None:
    case = find_cases(SEQUENCE)[0]
    assert (SEQUENCE / "sequence.json").is_file()
    assert groups_of(case.truth, case.scene, case.truth_path)["kind"] == "sequence"


@pytest.mark.parametrize("factor", FACTORS)
def test_the_groups_add_up_to_the_totals(factor: str) -> None:
    cases = find_cases(STILLS)
    scores = []
    for n, case in enumerate(cases):
        detection = perfect(case)
        if n % 2:  # every other frame loses its first tile: misses, in some groups only
            detection = Detection(detection.width, detection.height, detection.occluded, detection.tiles[1:],
                                  detection.face_down)
        scores.append(match(detection, case.truth, case.relative))
    framed = [(groups_of(c.truth, c.scene, c.truth_path), s) for c, s in zip(cases, scores, strict=True)]
    groups = by_group(framed, factor)
    whole = Totals.of(scores)
    assert sum(t.images for t in groups.values()) == whole.images
    for name in ("tiles", "matched", "missed", "right", "wrong", "uncertain", "occluded_truth"):
        assert sum(getattr(t, name) for t in groups.values()) == getattr(whole, name), name
    assert sorted(ms for t in groups.values() for ms in t.ms) == sorted(whole.ms)
    lines = format_groups(factor, groups)
    assert lines[0].split()[0] == factor and len(lines) == 1 + len(groups)


def test_groups_come_in_numeric_order_then_by_name() -> None:
    one = match(Detection(100, 100, False), parse_truth({"width": 100, "height": 100, "tiles": []}))
    names = ["8-15 deg", "-", "15+ deg", "0-8 deg", "1920x1080", "1280x720"]
    framed = [({"tilt": name}, one) for name in names]
    assert list(by_group(framed, "tilt")) == ["0-8 deg", "8-15 deg", "15+ deg", "1280x720", "1920x1080", "-"]


def test_an_unknown_factor_is_refused() -> None:
    with pytest.raises(ValueError, match="'colour'"):
        by_group([], "colour")


def test_the_command_prints_a_table_per_factor() -> None:
    result = referee("evaluate", STILLS, "--quiet", "--by", "style", "--by", "tile", "--by", "style")
    assert result.returncode == 0, result.stderr
    total = int(re.search(r"tiles: (\d+) in truth", result.stdout).group(1))  # type: ignore[union-attr]
    tables = result.stdout.split("\n\n")[1:]
    assert [t.split()[0] for t in tables] == ["style", "tile"]  # a factor asked for twice is shown once
    styles = {row.split()[0]: int(row.split()[2]) for row in tables[0].strip().splitlines()[1:]}
    assert set(styles) <= {"ivory", "black", "coloured"} and sum(styles.values()) == total


def test_a_bad_factor_is_one_line_before_any_detection(tmp_path: Path) -> None:
    line = one_error_line(referee("evaluate", tmp_path / "nowhere", "--by", "colour"))
    assert "--by colour" in line and "style" in line
