"""Reading the boxes of one frame (:func:`read_boxes`): each rectified and read, a tile read
unsure looked at again (on its divider, its pips, its sharp outline, moved about), runs of
touching tiles read both ways, the face-down tiles apart from the faces, one tile to a place."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Sequence

import cv2
import numpy as np

from referee.vision.chain import alone, at_ends, runs_of
from referee.vision.config import VisionConfig
from referee.vision.divider import Stretch, on_divider
from referee.vision.pipfit import on_pips
from referee.vision.read import (
    Evidence,
    Reading,
    decide,
    doubted_blank,
    faces_contrast,
    gather,
    gather_many,
    halves_apart,
    pip_contrast,
    pip_width,
    rectify,
    relook,
)
from referee.vision.refine import on_edges, snap
from referee.vision.seams import seamless
from referee.vision.split import Box
from referee.vision.types import Detection, FaceDown, Quad, TileReading, point, quad

__all__ = ["one_of_each", "read_boxes"]


def _on_divider(image: np.ndarray, box: Box, contrast: float, config: VisionConfig, reach: float,
                support: int | None = None, doubles: bool = True,
                blank: bool = True, whole: bool = False) -> tuple[Reading, Box] | None:
    """A tile read unsure, read again on the rectangle found from its divider (its divider
    within ``reach`` of the middle): the reading and the rectangle, None when neither of these
    holds there. A sure reading (not a double unless ``doubles``, nor the double blank unless
    ``blank``) stands when the second look around the rectangle (:func:`relook`, with
    ``support``) agrees; an unsure one (an end on a shadow's edge) gives way to that second
    look, on its own bar. A packed tile is read at the fitted size, then at the frame's. The
    sides are fitted near the rectangle's own first; then, on a rectangle out of the set's
    proportions by more than ``divider_aspect``, its length, then its width, reaching to the
    other side in those proportions."""
    if config.divider_span <= 0:
        return None
    off = not 1 / (1 + config.divider_aspect) < box.length / box.width / config.aspect < 1 + config.divider_aspect
    stretches: tuple[Stretch, ...] = ("", "length", "width") if off else ("",)
    for stretch in stretches:
        fitted = on_divider(image, box, config, reach, stretch, whole)
        if fitted is None:
            continue
        if (found := _read_fitted(image, box, fitted, contrast, config, support, doubles, blank)) is not None:
            return found
    return None


def _read_fitted(image: np.ndarray, box: Box, fitted: Box, contrast: float, config: VisionConfig,
                 support: int | None, doubles: bool, blank: bool,
                 first: Reading | None = None) -> tuple[Reading, Box] | None:
    """The reading on ``fitted`` (see :func:`_on_divider`), None when it does not stand: nor
    when it shows a blank half where the ``first`` reading, on the box, saw pips or doubted its
    blank (:func:`referee.vision.read.doubted_blank`)."""
    # A packed tile's face fitted among touching tiles and side walls may come out small.
    sizes = [fitted, dataclasses.replace(fitted, length=box.length, width=box.width),
             dataclasses.replace(fitted, length=box.length, width=box.length / config.aspect)] \
        if box.packed else [fitted]
    def doubted(pips: tuple[int, int]) -> bool:
        return first is not None and doubted_blank(pips, first, config.min_confidence)

    for found in sizes:
        there = decide(gather(rectify(image, found.corners(), config.cell_px), config), contrast, config)
        if there.pips is None:
            continue
        sure = there.confidence >= config.min_confidence
        # A sure reading stands only where the looks around it agree: one the first reading
        # doubted cannot stand, and is not looked around.
        if sure and ((not doubles and there.pips[0] == there.pips[1]) or (not blank and there.pips == (0, 0))
                     or doubted(there.pips)):
            continue
        around = relook(image, found, Reading(None, 0.0), contrast, config, support, doubles, blank)
        if around.pips is not None and doubted(around.pips):
            continue
        if not sure and around.pips is not None:
            return around, found
        if sure and around.pips == there.pips:
            halves = (min(there.halves[0], around.halves[0]), min(there.halves[1], around.halves[1]))
            return Reading(there.pips, min(there.confidence, around.confidence), halves), found
    return None


def _second_look(image: np.ndarray, box: Box, first: Reading, contrast: float, config: VisionConfig,
                 in_run: bool) -> tuple[Reading, Box]:
    """A tile read unsure, looked at again: on the rectangle found from its divider, else on
    the one its pips centre on (:func:`on_pips`), else on its face's sharp outline
    (:func:`on_edges`: giving no blank half the ``first`` reading doubted), else with its
    rectangle moved about (:func:`relook`). A packed tile needs more agreeing
    readings, its divider nearer its middle (a seam lies half a tile away), and gives no
    double blank (a moved rectangle takes a seam or an edge for its divider), nor a double in a
    straight run (moved along a line of touching tiles, a rectangle straddles a seam, and in a
    legal line the halves either side of a seam match; a double across the line may be one)."""
    if not box.packed:
        support, reach, doubles, blank = config.relook_support, config.divider_reach, True, True
    else:
        support, reach, doubles, blank = config.relook_packed_support, config.divider_packed_reach, not in_run, False
    if support <= 0:
        return first, box
    if reach > 0:
        again = _on_divider(image, box, contrast, config, reach, support, doubles, blank)
        if again is None and box.packed and config.divider_reach > reach:
            # A packed rectangle may sit further off its face (packed against a neighbour's
            # side wall): its divider is looked for as far as a lone tile's, where no seam can
            # pass for it (a line ending inside the rectangle at both sides).
            again = _on_divider(image, box, contrast, config, config.divider_reach, support, doubles, blank,
                                whole=True)
        if again is not None:
            return again
    # Then on its pips, wherever its edges put it; then on its face's sharp outline. The pips
    # and the divider place a box by what is on the face; the outline, by its edges alone: a
    # box fitted so to a small tile beside its faint pips read a sure blank there (a 33-pixel
    # coloured 5-6 read 5-0), so it gives no blank half the first reading doubted.
    fits = ((functools.partial(on_pips, image, box, contrast, config), None),
            (functools.partial(on_edges, image, box, config), first))
    for fit, doubted in fits:
        placed = fit()
        if placed is not None and (found := _read_fitted(image, box, placed, contrast, config, support, doubles,
                                                         blank, doubted)) is not None:
            return found
    reading = relook(image, box, first, contrast, config, support, doubles, blank)
    if reading.confidence < config.min_confidence and config.wide_support > 0 and box.length < config.wide_below_px:
        reading = relook(image, box, first, contrast, config, config.wide_support, doubles, blank, wide=True)
    return reading, box


def _on(table: np.ndarray, at: np.ndarray) -> bool:
    """Whether the point ``at`` (x, y) lies inside the outline ``table``."""
    x, y = round(float(at[0])), round(float(at[1]))
    return 0 <= y < table.shape[0] and 0 <= x < table.shape[1] and bool(table[y, x])


def _legible(lengths: list[float], min_cell_px: float) -> list[bool]:
    """Whether each tile (its box's length, full-resolution pixels) is large enough to read: its
    halves at least ``min_cell_px`` long. A box drawn longer than the frame's tiles does not make
    its pips any larger: each is judged by the shorter of its box and the frame's usual tile."""
    if not lengths:
        return []
    usual = float(np.median(lengths))
    return [min(length, usual) / 2 >= min_cell_px for length in lengths]


def _sure_singles(readings: list[Reading], config: VisionConfig) -> int:
    """How many of ``readings`` are sure and no double (a box over a seam of a line reads one)."""
    return sum(1 for r in readings if r.pips is not None and r.pips[0] != r.pips[1]
               and r.confidence >= config.min_confidence)


def _full(image: np.ndarray, box: Box, scale: float, config: VisionConfig) -> Box:
    """A box at the work ``scale``, at full resolution and fitted to its face: a packed
    rectangle keeps the frame's tile length (its neighbours' faces run on past its ends), but
    for one locked in place (a double across a line, its ends free): it is fitted along to its
    face as a lone tile is."""
    full = box.scaled(1 / scale)
    return snap(image, full, config.snap_reach, keep_length=box.packed and not box.locked)


def _fitted(image: np.ndarray, boxes: list[Box], scale: float, config: VisionConfig) -> list[list[Box]]:
    """One try for a run (:func:`_take_better`): its ``boxes`` at full resolution, each fitted
    to its face (:func:`_full`)."""
    return [[_full(image, box, scale, config) for box in boxes]]


def _rephase(image: np.ndarray, run: list[int], fulls: list[Box], items: list[tuple[np.ndarray, Evidence, bool]],
             readings: list[Reading], contrast: float, config: VisionConfig) -> None:
    """A straight run of packed boxes read mostly unsure may be packed half a tile off its
    tiles (each box over a seam: a black tile's divider shows as well as its seams, and the
    run's ends were taken a half tile off): the run is read again with every box moved half a
    box along, either way (:func:`_take_better`)."""
    def moved() -> list[list[Box]]:
        out = []
        for sign in (-0.5, 0.5):
            boxes = []
            for k in run:
                b = fulls[k]
                a = math.radians(b.angle)
                boxes.append(dataclasses.replace(b, cx=b.cx + math.cos(a) * sign * b.length,
                                                 cy=b.cy + math.sin(a) * sign * b.length))
            out.append(boxes)
        return out

    _take_better(image, run, moved, fulls, items, readings, contrast, config)


def _take_better(image: np.ndarray, run: list[int], tries: Callable[[], list[list[Box]]], fulls: list[Box],
                 items: list[tuple[np.ndarray, Evidence, bool]], readings: list[Reading], contrast: float,
                 config: VisionConfig) -> None:
    """A straight run of packed boxes read mostly unsure (fewer than half of them surely as a
    tile that is no double) is read again on each of the ``tries()`` (other boxes for the run,
    full resolution: made only for such a run), and the try that reads at least
    ``run_rephase`` more tiles surely, and most of them (none of them a double: a box over a
    seam of a line of play reads one), replaces it, in ``fulls``, ``items`` and ``readings``.
    ``run_rephase`` 0 turns this off."""
    if config.run_rephase <= 0:
        return
    now = _sure_singles([readings[k] for k in run], config)
    if 2 * now >= len(run):
        return
    c = config.cell_px
    tried = []
    for moved in tries():
        corners = [m.corners() for m in moved]
        evidence = gather_many([rectify(image, q, c) for q in corners], config)
        again = [decide(e, contrast, config) for e in evidence]
        sure = sum(r.confidence for r in again if r.confidence >= config.min_confidence)
        tried.append((_sure_singles(again, config), sure, moved, corners, evidence, again))
    # The better try: more tiles read surely, then more surely (moved half a tile the wrong way,
    # the boxes lie a whole tile off, on the neighbours, and one off the run's end reads nothing).
    score, _, moved, corners, evidence, again = max(tried, key=lambda t: (t[0], t[1]))
    if score < now + config.run_rephase or 2 * score <= len(run):
        return
    for j, k in enumerate(run):
        fulls[k] = moved[j]
        items[k] = (corners[j], evidence[j], items[k][2])
        readings[k] = again[j]


def read_boxes(image: np.ndarray, boxes: list[Box], scale: float, config: VisionConfig, w: int, h: int,
               table: np.ndarray | None = None, crossed: frozenset[int] = frozenset(),
               shaped: int | None = None, along: frozenset[int] = frozenset(),
               abutting: Sequence[tuple[list[int], list[Box]]] = (),
               spinners: frozenset[int] = frozenset(), fit: bool = True,
               context: Sequence[Quad] = ()) -> Detection:
    """Read every box (work pixels at ``scale``) from the full-resolution frame. A face-down
    tile whose centre lies outside the table's outline (``table``, at the work scale) is the
    floor's pattern packed into rectangles, not a tile: it is dropped. The ``crossed`` boxes
    may straddle a double across their run (:func:`_across_a_double`): they are uncertain. The
    ``along`` boxes lie along a line of faces (:func:`_runs_on`): a double read on them is, as on
    a box in a run, unless a line passes across the box (``spinners``:
    :func:`_crossed_by_a_line`).
    The boxes from index ``shaped`` on were found by their shape alone: one that reads as no
    face is dropped (a patch of the table shaped like a tile is no back). A run in
    ``abutting`` (its boxes' indices, and its boxes fitted to end at a double laid across its
    line: :func:`referee.vision.chain.align_runs`) is read both ways, and the way that reads
    ``run_rephase`` more of its tiles surely, and most of them, stands. Each box is first fitted
    to the face it lies on (:func:`_full`), unless ``fit`` is False: fitted already. The
    ``context`` quads (full-resolution corners: the frame's other tiles, read already) join the
    boxes only to tell the frame's pip contrast (one tile's pips and divider, read alone, may
    stand no higher than its own noise)."""
    c = config.cell_px
    fulls = [_full(image, box, scale, config) if fit else box.scaled(1 / scale) for box in boxes]
    every = [full.corners() for full in fulls]
    rectified = [rectify(image, corners, c) for corners in every]
    others = [rectify(image, np.asarray(q, np.float64), c) for q in context]
    evidence = gather_many(rectified, config)
    contrast, few_faces = _contrast(evidence + gather_many(others, config), config)
    readings = [decide(e, contrast, config) for e in evidence]
    if config.glare_disc > 0 and config.pip_width == 0 and contrast is not None:
        # The pips' width measured on the tiles read surely sizes the disc that takes glare out
        # of every face's evidence (and out of every second look's): the faces are read again so.
        # A double blank has no pip to measure (a worn back read as one has specks).
        sure = [k for k, r in enumerate(readings)
                if r.pips not in (None, (0, 0)) and r.confidence >= config.min_confidence]
        if (width := pip_width([rectified[k] for k in sure], [evidence[k] for k in sure], config)) is not None:
            config = dataclasses.replace(config, pip_width=width)
            evidence = gather_many(rectified, config)
            contrast, few_faces = _contrast(evidence + gather_many(others, config), config)
            readings = [decide(e, contrast, config) for e in evidence]
    readable = _legible([f.length for f in fulls], config.min_cell_px)
    items: list[tuple[np.ndarray, Evidence, bool]] = list(zip(every, evidence, readable, strict=True))
    # In a line of play touching ends match: a box that straddles the seam between two tiles
    # reads as a double, sure of itself. A double lies across the line, so a double read on a
    # rectangle along a run of tiles end to end is uncertain.
    runs = runs_of(boxes)
    along_run = ({i for run in runs for i in run} | along) - spinners
    if contrast is not None:
        for run, other in abutting:
            _take_better(image, run, functools.partial(_fitted, image, other, scale, config),
                         fulls, items, readings, contrast, config)
        for run in runs:
            _rephase(image, run, fulls, items, readings, contrast, config)
    # Among backs, a face with no pips (the double blank) is told from a back only where it lies:
    # against the end of a face read surely, as in a line of play. There it is a face, read but
    # not surely.
    sure_faces = {k for k, r in enumerate(readings)
                  if r.pips not in (None, (0, 0)) and r.confidence >= config.min_confidence}
    # Two backs side by side read as a double blank, their seam for its divider: where backs
    # lie, a double blank packed among touching tiles, off the end of every face read surely,
    # is reported uncertain.
    backs = any(r.pips is None for r in readings)
    blank_faces = at_ends(boxes, sure_faces) if few_faces or backs else set()
    # ... and against a face's end, with nothing without pips near it, no box across two backs:
    # it stands as read (rendered hand 9308-001: an illegal 0-0 laid across a 5 went uncalled).
    pipless = {k for k, r in enumerate(readings) if r.pips in (None, (0, 0))}
    lone_blanks = alone(boxes, blank_faces, pipless, config.lone_blank) if config.lone_blank > 0 else set()
    # Backs packed together show the seams between them; a shadow strip packed into backs does not.
    packed_backs = {k for k, r in enumerate(readings) if r.pips is None and boxes[k].packed}
    no_seam = seamless(image, fulls, packed_backs, config.back_seam, config.back_seam_turn) \
        if config.back_seam > 0 and len(packed_backs) > 1 else set()
    tiles: list[TileReading] = []
    down: list[FaceDown] = []
    for k, ((corners, _, legible), full) in enumerate(zip(items, fulls, strict=True)):
        reading = readings[k]
        if reading.pips is not None and reading.confidence < config.min_confidence and legible \
                and contrast is not None:
            reading, full = _second_look(image, full, reading, contrast, config, k in along_run)
            corners = full.corners()
        straddle = (k in along_run and reading.pips is not None and reading.pips[0] == reading.pips[1]) \
            or k in crossed
        centre = corners.mean(axis=0)
        if reading.pips == (0, 0) and (k in blank_faces - lone_blanks if few_faces
                                       else backs and boxes[k].packed and k not in blank_faces):
            reading = Reading((0, 0), 0.0)
        if reading.pips == (0, 0) and reading.confidence > 0 and config.blank_halves > 0 \
                and halves_apart(rectify(image, corners, c)) > config.blank_halves:
            # Read on a box half off a back (its side wall for a divider): one half is table.
            reading = Reading((0, 0), 0.0)
        if reading.pips is None or (few_faces and reading.pips == (0, 0) and k not in blank_faces):
            if (shaped is not None and k >= shaped) or k in no_seam:
                continue
            if table is None or _on(table, centre * scale):
                down.append(FaceDown(point(centre), quad(corners)))
            continue
        src = np.array([[0, 0], [2 * c, 0], [2 * c, c], [0, c]], np.float32)
        back = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
        halves = cv2.perspectiveTransform(np.array([[[c / 2, c / 2], [1.5 * c, c / 2]]], np.float32), back)[0]
        # Alone, a half is worth nothing on a tile too small to read, or on a box that may
        # straddle a seam (either half may be its neighbour's).
        each = reading.halves if legible and not straddle else (0.0, 0.0)
        tiles.append(TileReading(reading.pips, (point(halves[0]), point(halves[1])), quad(corners), point(centre),
                                 round(reading.confidence, 3),
                                 reading.confidence < config.min_confidence or not legible or straddle,
                                 (round(each[0], 3), round(each[1], 3))))
    placed = _one_per_place(tiles)
    return Detection(w, h, False, one_of_each(placed, config.one_set_place) if config.one_set else placed,
                     tuple(down))


def _contrast(evidence: list[Evidence], config: VisionConfig) -> tuple[float | None, bool]:
    """The frame's pip contrast, and whether it comes from the few faces among backs: when the
    typical tile is a back, from the tiles showing pips; only those are read as faces then (a
    blank face among backs cannot be told from a back with a seam)."""
    faces = faces_contrast(evidence)
    contrast = pip_contrast(evidence, config.backs_below, faces)
    return (faces, True) if contrast is None else (contrast, False)


def _one_per_place(tiles: list[TileReading]) -> tuple[TileReading, ...]:
    """The tiles with no two at one place: boxes whose centres lie within half a tile's width
    of each other (a box found by its shape on a tile a run already holds, or a run's box slid
    onto its neighbour) are one tile. Read alike, the first stands for both; read differently,
    which reading is right cannot be told, and the first stands, uncertain."""
    out: list[TileReading] = []
    widths: list[float] = []
    for t in tiles:
        c = t.corners
        width = min(math.dist(c[0], c[1]), math.dist(c[1], c[2]))
        same = next((k for k, u in enumerate(out)
                     if math.dist(t.center, u.center) < 0.5 * min(width, widths[k])), None)
        if same is None:
            out.append(t)
            widths.append(width)
        elif sorted(out[same].pips) != sorted(t.pips) and not out[same].uncertain:
            out[same] = dataclasses.replace(out[same], uncertain=True, half_confidence=(0.0, 0.0))
    return tuple(out)


def one_of_each(tiles: tuple[TileReading, ...], near: float) -> tuple[TileReading, ...]:
    """The tiles with each tile of the set at most once read surely. Two read alike within
    ``near`` of a tile's length of each other are one tile seen twice (a box across the seam
    beside a double reads that double again): the surer stands alone. Read alike further
    apart, both surely, one of them is misread and which cannot be told: both are uncertain."""
    out: list[TileReading | None] = list(tiles)
    for i in range(len(tiles)):
        for j in range(i + 1, len(tiles)):
            a, u = out[i], out[j]
            if a is None or u is None or sorted(a.pips) != sorted(u.pips):
                continue
            c = a.corners
            length = max(math.dist(c[0], c[1]), math.dist(c[1], c[2]))
            if math.dist(a.center, u.center) < near * length:
                keep = a if (not a.uncertain, a.confidence) >= (not u.uncertain, u.confidence) else u
                out[i], out[j] = keep, None
            elif not a.uncertain and not u.uncertain:
                out[i] = dataclasses.replace(a, uncertain=True, half_confidence=(0.0, 0.0))
                out[j] = dataclasses.replace(u, uncertain=True, half_confidence=(0.0, 0.0))
    return tuple(t for t in out if t is not None)
