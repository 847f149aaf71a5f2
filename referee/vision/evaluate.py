"""Scoring detections against truth: what ``referee evaluate`` measures.

A detected face-up tile matches a truth tile when its centre lies within ``REACH`` (0.3) tile
lengths of the truth tile's centre (a tile's length is twice the distance between its half
centres); pairs are taken one to one, nearest first. A matched tile's halves are paired with the
truth halves the way that puts them nearer, and each half is right when its pip count is equal.

Every matched tile lands in exactly one of three columns: ``right`` (both halves right, not
flagged uncertain), ``wrong`` (not flagged uncertain, some half wrong: the silent errors that
matter most) and ``uncertain`` (flagged, whatever it says: reported, never trusted). Per-half
pip accuracy counts every matched tile, uncertain ones too. A frame whose truth is occluded is
not scored for tiles or face-down tiles (the referee ignores it); only whether the occlusion was
recognised counts.

Truth is the renderer's truth JSON or the label format of ``../shared/real_photos/`` (no
``occluded``, no ``corners``).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from referee.vision.images import read_image
from referee.vision.types import Detection, Point, TileReading

#: A detection is within reach of a truth tile at this share of the truth tile's length.
REACH = 0.3
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
COLUMNS = ("path", "tiles", "found", "matched", "false", "missed", "right", "wrong", "uncertain",
           "halves_right", "halves_total", "face_down_truth", "face_down_found", "occluded_truth",
           "occluded_found", "ms")


class TruthError(ValueError):
    """A malformed truth file; the message names the file and what is wrong."""


# -- truth -------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class TruthTile:
    pips: tuple[int, int]
    halves: tuple[Point, Point]
    center: Point

    @property
    def length(self) -> float:
        return 2.0 * _dist(self.halves[0], self.halves[1])


@dataclasses.dataclass(frozen=True)
class Truth:
    width: int
    height: int
    occluded: bool
    tiles: tuple[TruthTile, ...]
    face_down: int


def is_truth(data: Any) -> bool:
    """Whether a JSON document is a frame's truth (has width, height and tiles), not e.g. a
    sequence's ``sequence.json``."""
    return isinstance(data, Mapping) and all(k in data for k in ("width", "height", "tiles"))


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _point(value: Any, where: str) -> Point:
    if not (isinstance(value, list) and len(value) == 2 and all(_number(v) for v in value)):
        raise TruthError(f"{where}: expected a point [x, y], got {value!r}")
    return (float(value[0]), float(value[1]))


def parse_truth(data: Any, where: str = "truth") -> Truth:
    """A truth document checked field by field; a TruthError names ``where`` and the field."""
    if not is_truth(data):
        raise TruthError(f"{where}: not a truth document (needs width, height and tiles)")
    for key in ("width", "height"):
        if not (isinstance(data[key], int) and not isinstance(data[key], bool) and data[key] > 0):
            raise TruthError(f"{where}: {key}: expected a positive whole number, got {data[key]!r}")
    occluded = data.get("occluded", False)
    if not isinstance(occluded, bool):
        raise TruthError(f"{where}: occluded: expected true or false, got {occluded!r}")
    face_down = data.get("face_down", [])
    if not isinstance(face_down, list):
        raise TruthError(f"{where}: face_down: expected a list")
    if not isinstance(data["tiles"], list):
        raise TruthError(f"{where}: tiles: expected a list")
    tiles = []
    for n, tile in enumerate(data["tiles"]):
        at = f"{where}: tiles[{n}]"
        if not isinstance(tile, Mapping):
            raise TruthError(f"{at}: expected an object")
        pips = tile.get("pips")
        if not (isinstance(pips, list) and len(pips) == 2
                and all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in pips)):
            raise TruthError(f"{at}.pips: expected two whole numbers, got {pips!r}")
        halves = tile.get("halves")
        if not (isinstance(halves, list) and len(halves) == 2):
            raise TruthError(f"{at}.halves: expected two points, got {halves!r}")
        h0, h1 = _point(halves[0], f"{at}.halves[0]"), _point(halves[1], f"{at}.halves[1]")
        if _dist(h0, h1) == 0:
            raise TruthError(f"{at}.halves: the two half centres are the same point")
        centre = (_point(tile["center"], f"{at}.center") if "center" in tile
                  else ((h0[0] + h1[0]) / 2, (h0[1] + h1[1]) / 2))
        tiles.append(TruthTile((pips[0], pips[1]), (h0, h1), centre))
    return Truth(data["width"], data["height"], occluded, tuple(tiles), len(face_down))


# -- one frame ---------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class ImageScore:
    """One frame's counts, the columns of the CSV (``tiles`` is the truth's face-up tiles)."""

    path: str
    tiles: int
    found: int
    matched: int
    false: int
    missed: int
    right: int
    wrong: int
    uncertain: int
    halves_right: int
    halves_total: int
    face_down_truth: int
    face_down_found: int
    occluded_truth: bool
    occluded_found: bool
    ms: float

    @property
    def scored(self) -> bool:
        """Whether tiles were scored (the truth is not occluded)."""
        return not self.occluded_truth

    def row(self) -> list[str | int | float]:
        return [int(v) if isinstance(v, bool) else round(v, 2) if isinstance(v, float) else v
                for v in dataclasses.astuple(self)]


def _dist(a: Point, b: Point) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def halves_right(tile: TileReading, truth: TruthTile) -> int:
    """How many of the tile's halves (0, 1 or 2) show the truth's pips, each detected half
    paired with a truth half the way that puts the pairs nearer."""
    (a0, a1), (b0, b1) = tile.halves, truth.halves
    want = truth.pips
    if _dist(a0, b0) + _dist(a1, b1) > _dist(a0, b1) + _dist(a1, b0):
        want = (want[1], want[0])
    return int(tile.pips[0] == want[0]) + int(tile.pips[1] == want[1])


def pairs(detection: Detection, truth: Truth) -> list[tuple[int, int]]:
    """(detected index, truth index) of matched tiles: within reach, one to one, nearest first."""
    near = []
    for j, t in enumerate(truth.tiles):
        reach = REACH * t.length
        for i, d in enumerate(detection.tiles):
            gap = _dist(d.center, t.center)
            if gap <= reach:
                near.append((gap, i, j))
    return one_to_one(near)


def one_to_one(near: list[tuple[float, int, int]]) -> list[tuple[int, int]]:
    """Greedy one-to-one pairing of (gap, i, j) candidates, nearest first."""
    used_i: set[int] = set()
    used_j: set[int] = set()
    out = []
    for _, i, j in sorted(near):
        if i not in used_i and j not in used_j:
            used_i.add(i)
            used_j.add(j)
            out.append((i, j))
    return out


def match(detection: Detection, truth: Mapping[str, Any] | Truth, path: str = "", ms: float = 0.0) -> ImageScore:
    """Score one frame's detection against its truth (a truth document or a parsed Truth)."""
    t = truth if isinstance(truth, Truth) else parse_truth(truth)
    if t.occluded:
        return ImageScore(path, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, True, detection.occluded, ms)
    matched = pairs(detection, t)
    right = wrong = uncertain = halves = 0
    for i, j in matched:
        tile = detection.tiles[i]
        good = halves_right(tile, t.tiles[j])
        halves += good
        if tile.uncertain:
            uncertain += 1
        elif good == 2:
            right += 1
        else:
            wrong += 1
    found, m = len(detection.tiles), len(matched)
    return ImageScore(path, len(t.tiles), found, m, found - m, len(t.tiles) - m, right, wrong, uncertain,
                      halves, 2 * m, t.face_down, len(detection.face_down), False, detection.occluded, ms)


# -- many frames -------------------------------------------------------------------------------
def _share(part: int | float, whole: int | float) -> float | None:
    return part / whole if whole else None


@dataclasses.dataclass(frozen=True)
class Totals:
    """The sums over frames, with the rates ``referee evaluate`` reports (None: nothing to
    measure, e.g. precision when nothing was found)."""

    images: int
    scored: int
    tiles: int
    found: int
    matched: int
    false: int
    missed: int
    right: int
    wrong: int
    uncertain: int
    halves_right: int
    halves_total: int
    face_down_truth: int
    face_down_found: int
    face_down_off: int
    occluded_truth: int
    occluded_recognised: int
    occluded_false: int
    ms: tuple[float, ...]

    @classmethod
    def of(cls, scores: Iterable[ImageScore]) -> Totals:
        scores = list(scores)
        scored = [s for s in scores if s.scored]

        counts = {name: sum(int(getattr(s, name)) for s in scores) for name in COLUMNS[1:13]}
        return cls(images=len(scores), scored=len(scored), **counts,
                   face_down_off=sum(abs(s.face_down_found - s.face_down_truth) for s in scored),
                   occluded_truth=sum(s.occluded_truth for s in scores),
                   occluded_recognised=sum(s.occluded_truth and s.occluded_found for s in scores),
                   occluded_false=sum(s.occluded_found and not s.occluded_truth for s in scores),
                   ms=tuple(s.ms for s in scores))

    @property
    def recall(self) -> float | None:
        return _share(self.matched, self.tiles)

    @property
    def precision(self) -> float | None:
        return _share(self.matched, self.found)

    @property
    def right_share(self) -> float | None:
        """Share of found (matched) tiles with both halves right and not flagged uncertain."""
        return _share(self.right, self.matched)

    @property
    def pip_accuracy(self) -> float | None:
        """Share of the halves of matched tiles with the right pip count."""
        return _share(self.halves_right, self.halves_total)

    @property
    def face_down_error(self) -> float | None:
        """Mean absolute error of the face-down count per scored frame."""
        return _share(self.face_down_off, self.scored)

    @property
    def occluded_share(self) -> float | None:
        return _share(self.occluded_recognised, self.occluded_truth)

    @property
    def median_ms(self) -> float | None:
        return statistics.median(self.ms) if self.ms else None

    @property
    def mean_ms(self) -> float | None:
        return statistics.fmean(self.ms) if self.ms else None


# -- a directory -------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Case:
    """An image with a truth file of the same stem; ``relative`` is its path under the directory."""

    image: Path
    relative: str
    truth_path: Path
    truth: Truth
    scene: Mapping[str, Any] | None = None  # the renderer's scene, None for labelled photos


def find_cases(directory: str | Path) -> list[Case]:
    """Every image (.jpg, .jpeg, .png) under ``directory`` with a same-stem truth JSON, in sorted
    path order. JSON files that are not frame truth (``sequence.json``) are passed over; a truth
    file that is not valid JSON, or is truth with a bad field, raises TruthError naming it."""
    root = Path(directory)
    cases = []
    for image in root.rglob("*"):
        if image.suffix.lower() not in IMAGE_SUFFIXES or not image.is_file():
            continue
        truth_path = image.with_suffix(".json")
        if not truth_path.is_file():
            continue
        try:
            data = json.loads(truth_path.read_text(encoding="utf-8"))
        except OSError as error:
            raise TruthError(f"cannot read {truth_path}: {error.strerror or error}") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise TruthError(f"{truth_path}: not valid JSON ({error})") from None
        if is_truth(data):
            scene = data.get("scene")
            cases.append(Case(image, image.relative_to(root).as_posix(), truth_path,
                              parse_truth(data, str(truth_path)), scene if isinstance(scene, Mapping) else None))
    return sorted(cases, key=lambda c: c.relative)


def evaluate_cases(cases: Iterable[Case], detect_fn: Callable[[np.ndarray], Detection]) -> Iterator[ImageScore]:
    """Detect and score each case in turn; only the ``detect_fn`` call is timed. An unreadable
    image raises ImageError, an image whose size is not the truth's raises TruthError."""
    for case in cases:
        image = read_image(case.image)
        h, w = image.shape[:2]
        if (w, h) != (case.truth.width, case.truth.height):
            raise TruthError(f"{case.truth_path}: says {case.truth.width}x{case.truth.height} but "
                             f"{case.image.name} is {w}x{h}")
        start = time.perf_counter()
        detection = detect_fn(image)
        ms = (time.perf_counter() - start) * 1000.0
        yield match(detection, case.truth, case.relative, ms)


def evaluate_dir(directory: str | Path, detect_fn: Callable[[np.ndarray], Detection]) -> Iterator[ImageScore]:
    """Scores for every truth-bearing image under ``directory``, in sorted path order. Every
    truth file is read and checked before the first detection runs."""
    return evaluate_cases(find_cases(directory), detect_fn)


# -- reports -----------------------------------------------------------------------------------
def write_csv(scores: Iterable[ImageScore], out: TextIO) -> list[ImageScore]:
    """A header, then one row per frame as the scores arrive (flushed, so an interrupted run
    keeps its rows); returns the scores."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    kept = []
    for score in scores:
        writer.writerow(score.row())
        out.flush()
        kept.append(score)
    return kept


_HEAD = ("tiles", "found", "match", "false", "miss", "right", "wrong", "unsure", "halves", "face down", "occl", "ms")
_WIDTHS = (5, 5, 5, 5, 4, 5, 5, 6, 9, 9, 6, 7)


def format_header(path_width: int) -> str:
    return " ".join([f"{'image':<{path_width}}", *(f"{h:>{w}}" for h, w in zip(_HEAD, _WIDTHS, strict=True))])


def format_score(score: ImageScore, path_width: int) -> str:
    """One frame on one line; ``occl`` says ok (recognised), MISSED or FALSE (seen, not there)."""
    occl = ("ok" if score.occluded_found else "MISSED") if score.occluded_truth else \
        ("FALSE" if score.occluded_found else "")
    if score.scored:
        cells: list[str] = [str(v) for v in (score.tiles, score.found, score.matched, score.false, score.missed,
                                             score.right, score.wrong, score.uncertain)]
        cells += [f"{score.halves_right}/{score.halves_total}", f"{score.face_down_found}/{score.face_down_truth}"]
    else:
        cells = ["-"] * 10
    cells += [occl, f"{score.ms:.1f}"]
    return " ".join([f"{score.path:<{path_width}}", *(f"{c:>{w}}" for c, w in zip(cells, _WIDTHS, strict=True))])


def percent(value: float | None) -> str:
    """A share as a percentage rounded down to a tenth (99.96% shows as 99.9%, never 100.0%)."""
    return "n/a" if value is None else f"{math.floor(value * 1000 + 1e-9) / 10:.1f}%"


def format_totals(t: Totals) -> list[str]:
    fd = "n/a" if t.face_down_error is None else f"{t.face_down_error:.2f}"
    ms = "n/a" if t.median_ms is None or t.mean_ms is None else \
        f"median {t.median_ms:.1f} ms, mean {t.mean_ms:.1f} ms"
    return [
        f"images: {t.images}; {t.scored} scored for tiles, {t.occluded_truth} occluded in truth (only the "
        "occlusion scored)",
        f"tiles: {t.tiles} in truth, {t.found} found, {t.matched} matched, {t.false} false, {t.missed} missed",
        f"recall {percent(t.recall)}, precision {percent(t.precision)}",
        f"both halves right: {percent(t.right_share)} of found tiles ({t.right} of {t.matched}); "
        f"wrong (silent) {t.wrong}, uncertain {t.uncertain}",
        f"pips per half: {percent(t.pip_accuracy)} ({t.halves_right} of {t.halves_total})",
        f"face down: mean count error {fd} per frame ({t.face_down_found} found, {t.face_down_truth} in truth)",
        f"occluded frames recognised: {percent(t.occluded_share)} ({t.occluded_recognised} of {t.occluded_truth}); "
        f"false alarms {t.occluded_false}",
        f"time per frame: {ms}",
    ]
