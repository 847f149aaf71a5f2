"""Scoring detections against truth (``referee.vision.evaluate``), drawing them
(``referee.vision.annotate``), and ``referee detect`` / ``referee evaluate`` run as a real
subprocess. Detections here are built from the truth files and then spoiled on purpose, so the
scoring is checked without the detector; the tests that need the detector say so."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from helpers import REAL, REPO, need_real_photos, one_error_line, referee

from referee.vision.annotate import annotate
from referee.vision.evaluate import (
    COLUMNS,
    ImageScore,
    Totals,
    TruthError,
    evaluate_dir,
    find_cases,
    format_header,
    format_score,
    format_totals,
    match,
    parse_truth,
    percent,
    write_csv,
)
from referee.vision.types import Detection, FaceDown, TileReading, point, quad

STILLS = REPO / "sample_images" / "stills"
SAMPLES = REPO / "sample_images"


def truth_of(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((STILLS / f"{name}.json").read_text(encoding="utf-8"))
    return data


def perfect(truth: dict[str, Any]) -> Detection:
    """What a perfect detector would say about a frame."""
    tiles = tuple(TileReading((t["pips"][0], t["pips"][1]), (point(t["halves"][0]), point(t["halves"][1])),
                              quad(t["corners"]) if "corners" in t else ((0.0, 0.0),) * 4,  # type: ignore[arg-type]
                              point(t["center"]), 0.99) for t in truth["tiles"])
    down = tuple(FaceDown(point(f["center"]), quad(f["corners"])) for f in truth.get("face_down", []))
    occluded = bool(truth.get("occluded", False))
    return Detection(truth["width"], truth["height"], occluded, () if occluded else tiles, () if occluded else down)


def with_tiles(detection: Detection, tiles: list[TileReading]) -> Detection:
    return dataclasses.replace(detection, tiles=tuple(tiles))


def first_non_double(detection: Detection) -> int:
    return next(i for i, t in enumerate(detection.tiles) if t.pips[0] != t.pips[1])


# -- the matcher -------------------------------------------------------------------------------
def truth_files() -> list[Path]:
    return sorted(p for p in SAMPLES.rglob("*.json") if p.name != "sequence.json")


@pytest.mark.parametrize("path", truth_files(), ids=lambda p: p.relative_to(SAMPLES).as_posix())
def test_a_perfect_detection_scores_everything_right(path: Path) -> None:
    truth = json.loads(path.read_text(encoding="utf-8"))
    score = match(perfect(truth), truth)
    if truth["occluded"]:
        assert score.occluded_truth and score.occluded_found and not score.scored
        assert (score.tiles, score.found, score.matched, score.face_down_truth) == (0, 0, 0, 0)
        return
    n = len(truth["tiles"])
    assert (score.tiles, score.found, score.matched, score.right) == (n, n, n, n)
    assert (score.false, score.missed, score.wrong, score.uncertain) == (0, 0, 0, 0)
    assert (score.halves_right, score.halves_total) == (2 * n, 2 * n)
    assert score.face_down_found == score.face_down_truth == len(truth["face_down"])
    assert not score.occluded_found
    totals = Totals.of([score])
    if n:
        assert totals.recall == totals.precision == totals.right_share == totals.pip_accuracy == 1.0
    assert totals.face_down_error == 0.0


def test_swapped_pips_are_wrong_but_swapped_halves_with_them_are_right() -> None:
    truth = truth_of("line-201-0000")
    good = perfect(truth)
    tiles = list(good.tiles)
    i = first_non_double(good)
    t = tiles[i]
    tiles[i] = dataclasses.replace(t, pips=(t.pips[1], t.pips[0]))
    score = match(with_tiles(good, tiles), truth)
    assert (score.matched, score.right, score.wrong, score.uncertain) == (13, 12, 1, 0)
    assert score.halves_right == 24 and score.halves_total == 26
    # The same tile read the other way round (pips and their half centres both swapped) is right.
    tiles[i] = dataclasses.replace(t, pips=(t.pips[1], t.pips[0]), halves=(t.halves[1], t.halves[0]))
    assert match(with_tiles(good, tiles), truth).right == 13


def test_one_half_wrong_is_a_wrong_tile_with_one_good_half() -> None:
    truth = truth_of("line-201-0000")
    good = perfect(truth)
    tiles = list(good.tiles)
    t = tiles[0]
    tiles[0] = dataclasses.replace(t, pips=(t.pips[0], (t.pips[1] + 1) % 7))
    score = match(with_tiles(good, tiles), truth)
    assert (score.right, score.wrong, score.halves_right) == (12, 1, 25)


def test_a_missed_tile_and_a_false_tile() -> None:
    truth = truth_of("scattered-102-0000")
    good = perfect(truth)
    n = len(good.tiles)
    missed = match(with_tiles(good, list(good.tiles[1:])), truth)
    assert (missed.tiles, missed.found, missed.matched, missed.missed, missed.false) == (n, n - 1, n - 1, 1, 0)
    assert missed.right == n - 1
    ghost = TileReading((3, 4), ((5.0, 5.0), (25.0, 5.0)), ((0.0, 0.0), (30.0, 0.0), (30.0, 10.0), (0.0, 10.0)),
                        (15.0, 5.0), 0.9)
    extra = match(with_tiles(good, [*good.tiles, ghost]), truth)
    assert (extra.found, extra.matched, extra.false, extra.missed, extra.right) == (n + 1, n, 1, 0, n)
    totals = Totals.of([missed, extra])
    assert totals.recall == pytest.approx((2 * n - 1) / (2 * n))
    assert totals.precision == pytest.approx((2 * n - 1) / (2 * n))


def test_uncertain_tiles_are_counted_apart_whether_right_or_wrong() -> None:
    truth = truth_of("line-201-0000")
    good = perfect(truth)
    tiles = list(good.tiles)
    i = first_non_double(good)
    tiles[0] = dataclasses.replace(tiles[0], uncertain=True)  # read right, flagged
    tiles[i] = dataclasses.replace(tiles[i], pips=(tiles[i].pips[1], tiles[i].pips[0]), uncertain=True)  # misread
    score = match(with_tiles(good, tiles), truth)
    assert (score.matched, score.right, score.wrong, score.uncertain) == (13, 11, 0, 2)
    assert score.halves_right == 24  # pip accuracy counts every matched tile


def test_reach_is_three_tenths_of_the_truth_tile_length() -> None:
    truth = truth_of("scattered-103-0000")
    t = truth["tiles"][0]
    (x0, y0), (x1, y1) = t["halves"]
    length = 2 * float(np.hypot(x1 - x0, y1 - y0))
    base = perfect({**truth, "tiles": [t]})
    tile = base.tiles[0]

    def moved(share: float) -> ImageScore:
        dx = share * length
        shifted = dataclasses.replace(tile, center=(tile.center[0] + dx, tile.center[1]),
                                      halves=tuple((h[0] + dx, h[1]) for h in tile.halves))  # type: ignore[arg-type]
        return match(with_tiles(base, [shifted]), {**truth, "tiles": [t]})
    assert moved(0.25).matched == 1
    assert moved(0.35).matched == 0 and moved(0.35).false == 1 and moved(0.35).missed == 1


def test_two_detections_on_one_tile_match_the_nearer_one_only() -> None:
    truth = truth_of("scattered-103-0000")
    base = perfect(truth)
    t = base.tiles[0]
    near = dataclasses.replace(t, center=(t.center[0] + 1, t.center[1]))
    far = dataclasses.replace(t, center=(t.center[0] + 6, t.center[1]), pips=(9, 9))
    score = match(with_tiles(base, [far, near, *base.tiles[1:]]), truth)
    assert (score.matched, score.false, score.right, score.wrong) == (len(base.tiles), 1, len(base.tiles), 0)


def test_occluded_frames_score_only_the_occlusion() -> None:
    truth = truth_of("line-203-0000")
    assert truth["occluded"] and truth["tiles"]
    seen = perfect(truth)
    missed = dataclasses.replace(perfect({**truth, "occluded": False}), occluded=False)
    s_seen, s_missed = match(seen, truth), match(missed, truth)
    assert s_seen.occluded_found and not s_missed.occluded_found
    assert (s_missed.found, s_missed.matched, s_missed.false) == (0, 0, 0)  # its tiles are not scored
    clear = truth_of("line-201-0000")
    alarm = match(Detection(1920, 1080, True), clear)
    assert alarm.occluded_found and alarm.missed == len(clear["tiles"]) and alarm.scored
    totals = Totals.of([s_seen, s_missed, alarm])
    assert (totals.occluded_truth, totals.occluded_recognised, totals.occluded_false) == (2, 1, 1)
    assert totals.occluded_share == 0.5
    assert totals.scored == 1


def test_real_photo_labels_without_occluded_or_corners() -> None:
    truth = {"width": 776, "height": 758, "face_down": [],
             "tiles": [{"pips": [5, 1], "halves": [[213.0, 114.0], [287.0, 121.0]], "center": [250.0, 117.5]},
                       {"pips": [4, 6], "halves": [[469.0, 113.0], [540.0, 125.0]]}]}
    parsed = parse_truth(truth)
    assert not parsed.occluded and parsed.tiles[1].center == (504.5, 119.0)
    score = match(perfect({**truth, "tiles": [{**t, "center": t.get("center", [504.5, 119.0])}
                                              for t in truth["tiles"]]}), truth)
    assert (score.matched, score.right, score.false) == (2, 2, 0)


def test_the_real_photo_labels_parse_and_score_perfectly_against_themselves() -> None:
    need_real_photos()
    cases = find_cases(REAL)
    assert len(cases) >= 8 and sum(len(c.truth.tiles) for c in cases) >= 54
    for case in cases:
        truth = json.loads(case.truth_path.read_text(encoding="utf-8"))
        score = match(perfect(truth), truth)
        assert score.right == score.tiles == len(truth["tiles"]) and score.false == 0


@pytest.mark.parametrize(("change", "field"), [
    ({"width": 0}, "width"), ({"tiles": {}}, "tiles"), ({"occluded": "no"}, "occluded"),
    ({"tiles": [{"pips": [1], "halves": [[0, 0], [1, 1]]}]}, "tiles[0].pips"),
    ({"tiles": [{"pips": [1, 2], "halves": [[0, 0], [0, "x"]]}]}, "tiles[0].halves[1]"),
    ({"tiles": [{"pips": [1, 2], "halves": [[3, 3], [3, 3]]}]}, "tiles[0].halves"),
])
def test_a_malformed_truth_names_the_field(change: dict[str, Any], field: str) -> None:
    with pytest.raises(TruthError, match="^" + re.escape(f"x.json: {field}:")):
        parse_truth({"width": 10, "height": 10, "tiles": [], **change}, "x.json")


# -- a directory, the CSV and the report -------------------------------------------------------
def small_set(folder: Path) -> list[dict[str, Any]]:
    """Two small frames with truth in a tree, a sequence.json and a stray JSON beside them."""
    truths = []
    for name, (x, pips) in {"b/two.png": (60.0, [2, 3]), "a/one.jpg": (30.0, [6, 1])}.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(path), np.full((90, 120, 3), 128, np.uint8))
        truth = {"width": 120, "height": 90, "occluded": False, "face_down": [],
                 "tiles": [{"pips": pips, "halves": [[x - 10, 40.0], [x + 10, 40.0]], "center": [x, 40.0]}]}
        path.with_suffix(".json").write_text(json.dumps(truth), encoding="utf-8")
        truths.append(truth)
    (folder / "a" / "sequence.json").write_text(json.dumps({"frames": []}), encoding="utf-8")
    (folder / "b" / "notes.json").write_text("[1, 2]", encoding="utf-8")
    return truths


def test_a_directory_is_scored_in_sorted_order_and_written_as_csv(tmp_path: Path) -> None:
    truths = small_set(tmp_path)
    answers = iter([perfect(truths[1]), Detection(120, 90, False)])  # a/one.jpg found, b/two.png missed
    scores = list(evaluate_dir(tmp_path, lambda image: next(answers)))
    assert [s.path for s in scores] == ["a/one.jpg", "b/two.png"]
    assert (scores[0].right, scores[1].missed) == (1, 1)
    assert all(s.ms >= 0 for s in scores)
    out = io.StringIO()
    write_csv(scores, out)
    rows = list(csv.reader(io.StringIO(out.getvalue())))
    assert rows[0] == list(COLUMNS)
    assert len(rows) == 1 + len(scores)
    table = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert table[0]["path"] == "a/one.jpg" and table[0]["right"] == "1" and table[1]["missed"] == "1"
    assert table[1]["occluded_truth"] == "0"
    lines = [format_header(10), *(format_score(s, 10) for s in scores), *format_totals(Totals.of(scores))]
    text = "\n".join(lines)
    assert "recall 50.0%, precision 100.0%" in text and "both halves right: 100.0%" in text


def test_a_truth_file_that_is_not_json_is_named(tmp_path: Path) -> None:
    small_set(tmp_path)
    (tmp_path / "b" / "two.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(TruthError, match=r"two\.json: not valid JSON"):
        find_cases(tmp_path)


def test_percentages_round_down_so_only_perfect_shows_100() -> None:
    assert percent(0.9996) == "99.9%" and percent(1.0) == "100.0%" and percent(0.5) == "50.0%"
    assert percent(None) == "n/a"
    assert Totals.of([]).recall is None and Totals.of([]).median_ms is None


# -- annotate ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["line-201-0000", "line-203-0000"])
def test_annotate_draws_on_a_copy_of_the_same_shape(name: str) -> None:
    image = cv2.imread(str(STILLS / f"{name}.jpg"))
    before = image.copy()
    detection = perfect(truth_of(name))
    if detection.tiles:
        tiles = list(detection.tiles)
        tiles[0] = dataclasses.replace(tiles[0], uncertain=True, corners=((0.0, 0.0),) * 4)
        detection = with_tiles(detection, tiles)
    drawn = annotate(image, detection)
    assert drawn.shape == image.shape and drawn.dtype == np.uint8
    assert np.array_equal(image, before)
    assert not np.array_equal(drawn, image)


def test_annotate_takes_a_grey_frame_and_large_sizes() -> None:
    grey = np.zeros((3024, 4032), np.uint8)
    drawn = annotate(grey, Detection(4032, 3024, True))
    assert drawn.shape == (3024, 4032, 3) and not grey.any()


# -- the commands ------------------------------------------------------------------------------


def test_detect_a_missing_image(tmp_path: Path) -> None:
    line = one_error_line(referee("detect", STILLS / "line-201-0000.jpg", tmp_path / "nope.jpg"))
    assert line.startswith("referee detect: ") and "nope.jpg" in line


def test_detect_an_unreadable_image(tmp_path: Path) -> None:
    fake = tmp_path / "x.jpg"
    fake.write_text("not a picture", encoding="utf-8")
    line = one_error_line(referee("detect", fake))
    assert "x.jpg" in line and "cannot read image" in line


def test_detect_a_bad_config_and_a_bad_annotate_name(tmp_path: Path) -> None:
    config = tmp_path / "vision.json"
    config.write_text(json.dumps({"pip_shares": 0.4}), encoding="utf-8")
    line = one_error_line(referee("detect", STILLS / "line-201-0000.jpg", "--config", config))
    assert "vision.json" in line and "pip_shares" in line
    line = one_error_line(referee("detect", STILLS / "line-201-0000.jpg", "--annotate", tmp_path / "out.xyz"))
    assert "out.xyz" in line


def test_bad_calibration_profiles(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json", encoding="utf-8")
    for profile in (tmp_path / "missing.json", garbage):
        line = one_error_line(referee("detect", STILLS / "line-201-0000.jpg", "--calibration", profile))
        assert profile.name in line
        line = one_error_line(referee("evaluate", STILLS, "--calibration", profile))
        assert profile.name in line


def test_evaluate_a_missing_dir_an_empty_dir_and_bad_truth(tmp_path: Path) -> None:
    line = one_error_line(referee("evaluate", tmp_path / "nowhere"))
    assert "nowhere" in line and "does not exist" in line
    (tmp_path / "frame.jpg").write_bytes(b"")
    line = one_error_line(referee("evaluate", tmp_path / "frame.jpg"))
    assert "frame.jpg" in line and "not a directory" in line
    (tmp_path / "frame.jpg").unlink()
    line = one_error_line(referee("evaluate", tmp_path))
    assert "no images with truth" in line
    small_set(tmp_path)
    (tmp_path / "a" / "one.json").write_text(json.dumps({"width": 120, "height": 90, "tiles": [{"pips": [1]}]}),
                                             encoding="utf-8")
    line = one_error_line(referee("evaluate", tmp_path, "--csv", tmp_path / "out.csv"))
    assert "one.json" in line and "tiles[0].pips" in line
    assert not (tmp_path / "out.csv").exists()  # no half-written result left to block the next run


def test_detect_json_prints_one_document() -> None:
    result = referee("detect", "--json", STILLS / "line-201-0000.jpg")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    doc = json.loads(lines[0])
    assert {"width", "height", "occluded", "tiles", "face_down"} <= set(doc) and "image" not in doc
    assert (doc["width"], doc["height"]) == (1920, 1080)


def test_detect_several_images_one_line_each_and_annotations(tmp_path: Path) -> None:
    images = [STILLS / "line-201-0000.jpg", STILLS / "scattered-103-0000.jpg"]
    result = referee("detect", "--json", *images, "--annotate", tmp_path / "seen.png")
    assert result.returncode == 0, result.stderr
    docs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [d["image"] for d in docs] == [str(p) for p in images]
    for image in images:
        drawn = cv2.imread(str(tmp_path / f"seen-{image.stem}.png"))
        assert drawn is not None and drawn.shape == cv2.imread(str(image)).shape
    text = referee("detect", images[0])
    assert text.returncode == 0 and text.stdout.startswith(f"{images[0]}: ") and "face down" in text.stdout


def test_evaluate_prints_lines_and_totals_and_writes_the_csv(tmp_path: Path) -> None:
    out = tmp_path / "scores.csv"
    result = referee("evaluate", STILLS, "--csv", out)
    assert result.returncode == 0, result.stderr
    assert "recall" in result.stdout and "time per frame: median" in result.stdout
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["path"] for r in rows] == sorted(p.name for p in STILLS.glob("*.jpg"))
    # An earlier evaluation is never overwritten: one clear line, exit 2, the file as it was.
    before = out.read_bytes()
    again = referee("evaluate", STILLS, "--csv", out)
    assert again.returncode == 2 and "exists" in one_error_line(again) and str(out) in one_error_line(again)
    assert out.read_bytes() == before
    quiet = referee("evaluate", STILLS, "--quiet")
    assert quiet.returncode == 0 and "line-201-0000.jpg" not in quiet.stdout and "recall" in quiet.stdout
