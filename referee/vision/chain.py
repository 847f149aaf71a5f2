"""Lining up the packed tiles of a straight run together: tiles end to end repeat at one period
(a tile's length, give or take the gaps and the frame's scale), so the seams and dividers along
the run vote jointly for where the run starts and ends, where one
tile's own lines are easily mistaken for its neighbour's."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np

from referee.vision.config import VisionConfig
from referee.vision.refine import line_profile, strip
from referee.vision.split import Box

__all__ = ["align_runs", "at_ends", "runs_of"]


def _crossed(boxes: list[Box], a: Box, b: Box, width: float) -> bool:
    """Whether a box at right angles to ``a`` and ``b`` (a double crosswise) lies between them:
    then they are not end to end, and their spacing is not one tile's."""
    r = math.radians(a.angle)
    ux, uy = math.cos(r), math.sin(r)
    reach = (b.cx - a.cx) * ux + (b.cy - a.cy) * uy
    for c in boxes:
        turn = (c.angle - a.angle) % 180.0
        if min(turn, 180.0 - turn) < 80.0:
            continue
        along = (c.cx - a.cx) * ux + (c.cy - a.cy) * uy
        across = -(c.cx - a.cx) * uy + (c.cy - a.cy) * ux
        if abs(across) < width and 0 < along / reach < 1:
            return True
    return False


def _runs(boxes: list[Box], length: float, width: float) -> list[list[int]]:
    """Indices of packed boxes in straight runs: parallel, on one line, each next to the last."""
    parent = list(range(len(boxes)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            b = boxes[j]
            turn = (a.angle - b.angle) % 180.0
            if min(turn, 180.0 - turn) > 10.0:
                continue
            r = math.radians(a.angle)
            dx, dy = b.cx - a.cx, b.cy - a.cy
            along = dx * math.cos(r) + dy * math.sin(r)
            across = -dx * math.sin(r) + dy * math.cos(r)
            if abs(across) < 0.35 * width and 0.6 * length < abs(along) < 1.45 * length \
                    and not _crossed(boxes, a, b, width):
                parent[find(j)] = find(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(boxes)):
        groups.setdefault(find(i), []).append(i)
    return [g for g in groups.values() if len(g) >= 2]


def _square(a: float, b: float) -> bool:
    """Whether two boxes (their angles, degrees) lie square to each other, as a double laid
    across a line lies to the line's tiles: more than 60 degrees apart."""
    turn = (a - b) % 180.0
    return min(turn, 180.0 - turn) > 60.0


def _free(boxes: list[Box], run: list[int], ux: float, uy: float, cx: float, cy: float,
          width: float) -> tuple[float, float, bool, bool]:
    """How far the run's line is free either side (along it, from ``cx, cy``): up to the
    nearest other box lying across its band, such as a double crosswise that ends it; and
    whether that box, on either side, lies square to the run (as such a double does)."""
    lo, hi = -math.inf, math.inf
    lo_square = hi_square = False
    inside = set(run)
    ts = [(boxes[i].cx - cx) * ux + (boxes[i].cy - cy) * uy for i in run]
    first, last = min(ts), max(ts)
    for j, c in enumerate(boxes):
        if j in inside:
            continue
        pts = c.corners() - (cx, cy)
        along = pts @ (ux, uy)
        across = pts @ (-uy, ux)
        if across.max() < -0.25 * width or across.min() > 0.25 * width:  # off its middle half
            continue
        square = _square(c.angle, math.degrees(math.atan2(uy, ux)))
        if along.min() >= last and float(along.min()) < hi:
            hi, hi_square = float(along.min()), square
        elif along.max() <= first and float(along.max()) > lo:
            lo, lo_square = float(along.max()), square
    return lo, hi, lo_square, hi_square


def _spread(u: np.ndarray, taper: float) -> np.ndarray:
    """Where the share ``u`` of a run's tiles ends, as a share of its span, when its period
    changes evenly from (1 + taper) times the mean at its start to (1 - taper) at its end: a
    camera looking at the table from a side sees the far tiles of a long run smaller."""
    return u + taper * u * (1 - u)


def _beside(image: np.ndarray, whole: Box, along: float, per: float) -> np.ndarray:
    """Along a run's strip (``along`` frame pixels at ``per`` strip pixels each, as
    :func:`line_profile` samples it), how far the frame just beside the run's sides, from 0.6
    to 0.95 of its width out, differs from the table there: the more so of the two sides, the
    median over each side's rows. A double across the run or a tile turning a corner shows
    there; the table does not."""
    square = strip(image, whole, along, 2.0 * whole.width, per)
    m = square.shape[0]
    lab = cv2.cvtColor(square, cv2.COLOR_BGR2Lab).astype(np.float32)
    out = np.zeros(square.shape[1], np.float32)
    for rows in (lab[round(0.025 * m):round(0.2 * m)], lab[round(0.8 * m):round(0.975 * m)]):
        table = np.median(rows.reshape(-1, 3), axis=0)
        out = np.maximum(out, np.median(np.linalg.norm(rows - table, axis=2), axis=0))
    return out


def _face_ends(profile: np.ndarray, lo0: float, hi0: float, most: float,
               beside: np.ndarray | None = None) -> tuple[float, float]:
    """How far out, up to ``most``, the face runs on past ``lo0`` and ``hi0`` (strip pixels):
    while the ink stays nearer the face's between them than the table's beyond the run, and
    nothing lies just beside the run (``beside``: see :func:`_beside`) either, as a double
    across it or a tile at a turn does. An end the face does not give way before ``most`` is
    left where it was."""
    n = len(profile)
    a, b = max(0, round(lo0)), min(n, round(hi0))
    if b - a < 2:
        return lo0, hi0
    inside = float(np.median(profile[a:b]))
    # The table's ink against the face: at the strip's far ends, past where the run may reach
    # (the more of the two: the other may hold a neighbour's face; glare is too narrow to count).
    k = max(2, round(0.4 * most))
    outside = max(float(np.median(profile[:k])), float(np.median(profile[-k:])))
    edge = inside + 0.5 * (outside - inside)

    def face(i: int) -> bool:
        return bool(profile[i] < edge and (beside is None or beside[i] < edge))

    lo, hi = a, b - 1
    while lo > 0 and lo0 - (lo - 1) <= most and face(lo - 1):
        lo -= 1
    while hi < n - 1 and (hi + 1) - hi0 <= most and face(hi + 1):
        hi += 1
    # Face all the way out means no end was seen (a table as light as the faces): none is taken.
    ended_lo = lo > 0 and lo0 - (lo - 1) <= most
    ended_hi = hi < n - 1 and (hi + 1) - hi0 <= most
    return float(lo) if ended_lo else lo0, float(hi) if ended_hi else hi0


def _fit(profile: np.ndarray, length: float, lo0: float, hi0: float, count: int,
         config: VisionConfig, lo_min: float, hi_max: float,
         taper: float = 0.0, beside: np.ndarray | None = None,
         abuts: tuple[bool, bool] = (False, False)) -> tuple[float, float, int, float] | None:
    """The run's two ends (strip pixels), its count of tiles and the taper of its period (up
    to ``taper`` either way: see :func:`_spread`) whose seams and dividers best fall on lines
    across the run, the ends where the face gives way outwards (within ``run_reach`` of the
    packed ends ``lo0`` and ``hi0``, or out to where the face runs on: :func:`_face_ends`),
    never beyond ``lo_min`` and ``hi_max`` (where another box lies across the run's line). Where
    that box lies square to the run (``abuts``, at the low end and the high end: a double laid
    crosswise) and the packed end lies within ``run_abut`` of a tile length of it, the run ends
    at it."""
    n = len(profile)
    step = max(1, round(0.05 * length))  # about a tenth of the tile's width

    def at(x: np.ndarray, values: np.ndarray = profile) -> np.ndarray:
        return values[np.clip(np.rint(x).astype(int), 0, n - 1)]

    # A line across the run: above both its sides; its strength taken at the best within a
    # step, since tiles in a line lie a little unevenly.
    xs = np.arange(n, dtype=np.float64)
    raw = np.maximum(at(xs) - 0.5 * (at(xs - step) + at(xs + step)), 0.0)
    lines = np.max(np.stack([np.roll(raw, s) for s in range(-step, step + 1)]), axis=0)

    reach = config.run_reach * length
    lo_out, hi_out = _face_ends(profile, lo0, hi0, config.run_face * length, beside)
    offsets = np.arange(-reach, reach + 0.5, 1.0)
    out_lo = np.arange(-math.ceil(lo0 - reach - (lo_out - step)), 0, 1.0)
    out_hi = np.arange(1.0, math.ceil(hi_out + step - (hi0 + offsets[-1])) + 1)
    los = np.concatenate([lo0 - reach + out_lo, lo0 + offsets])
    his = np.concatenate([hi0 + offsets, hi0 + offsets[-1] + out_hi])
    # An end may reach a step into a neighbour's box (boxes are rough), no further; a packed
    # end inside a box lying across the run (its double) is looked for from that box's edge.
    los, his = los[los >= lo_min - step], his[his <= hi_max + step]
    if not len(los):
        los = np.arange(lo_min - step, lo_min - step + reach + 0.5, 1.0)
    if not len(his):
        his = np.arange(hi_max + step - reach, hi_max + step + 0.5, 1.0)
    # A run against a double laid crosswise ends at the double: the face runs on into it there,
    # and the double's box says where the run stops.
    abut = config.run_abut * length
    if abuts[0] and 0 <= lo0 - lo_min <= abut:
        los = np.arange(lo_min - step, lo_min + step + 0.5, 1.0)
    if abuts[1] and 0 <= hi_max - hi0 <= abut:
        his = np.arange(hi_max - step, hi_max + step + 0.5, 1.0)
    end_lo = at(los) - at(los + step)
    end_hi = at(his) - at(his - step)
    lo, hi = np.meshgrid(los, his, indexing="ij")
    best: tuple[float, float, float, int, float] | None = None
    tapers = np.linspace(-taper, taper, 5) if taper > 0 else np.zeros(1)
    # The packer may have put one tile too many or too few in the same span (when the frame's
    # tile length is off where the run lies): the count whose period lines up the seams wins.
    for tiles in range(max(2, count - config.run_recount), count + config.run_recount + 1):
        period = (hi - lo) / tiles
        ok = np.abs(period / length - 1) <= config.run_stretch
        if not ok.any():
            continue
        # Seams between tiles count fully, dividers half (a divider may be faint).
        k = np.arange(1, 2 * tiles)
        weight = np.where(k % 2 == 0, 1.0, 0.5)
        for tried in tapers:
            # Even a tapered period stays within run_stretch of the tile's length at both ends.
            fits = ok & (np.abs(period * (1 + abs(tried)) / length - 1) <= config.run_stretch) \
                & (np.abs(period * (1 - abs(tried)) / length - 1) <= config.run_stretch)
            if not fits.any():
                continue
            share = _spread(k / (2.0 * tiles), float(tried))
            x = lo[..., None] + share[None, None, :] * (hi - lo)[..., None]
            line = (at(x, lines) * weight).sum(axis=2) / weight.sum()
            score = np.where(fits, end_lo[:, None] + end_hi[None, :] + config.run_lines * line, -np.inf)
            i = int(np.argmax(score))
            # A straight period wins ties: the taper must earn its place.
            if best is None or score.flat[i] > best[0] + (1e-6 if tried else 0.0):
                best = (float(score.flat[i]), float(lo.flat[i]), float(hi.flat[i]), tiles, float(tried))
    return None if best is None else best[1:]


def runs_of(boxes: list[Box]) -> list[list[int]]:
    """The straight runs of packed boxes, end to end: each run's box indices."""
    packed = [i for i, b in enumerate(boxes) if b.packed]
    if len(packed) < 2:
        return []
    length = float(np.median([boxes[i].length for i in packed]))
    width = float(np.median([boxes[i].width for i in packed]))
    return [[packed[i] for i in run] for run in _runs([boxes[i] for i in packed], length, width)]


def align_runs(image: np.ndarray, boxes: list[Box],
               config: VisionConfig) -> tuple[list[Box], set[int], list[tuple[list[int], list[Box]]]]:
    """Packed boxes with each straight run of them re-spaced along its line from the run's
    seams; returns the boxes, which of them were aligned so, and for each run that ends against
    a box square to it (a double laid crosswise), the run fitted to end at that box instead:
    its boxes' indices and the boxes so fitted (the same count of tiles; ``run_abut``). Which of
    the two lies on the tiles is for the reading to tell (a black set's divider, brighter than
    its seams, pulls a run half a tile along; a misplaced double pulls it as far the other way)."""
    packed = [i for i, b in enumerate(boxes) if b.packed]
    if len(packed) < 2:
        return boxes, set(), []
    length = float(np.median([boxes[i].length for i in packed]))
    width = float(np.median([boxes[i].width for i in packed]))
    out = [b for b in boxes if not b.packed]
    aligned: set[int] = set()
    done: set[int] = set()
    abutting: list[tuple[list[int], list[Box]]] = []
    for run in _runs([boxes[i] for i in packed], length, width):
        members = [boxes[packed[i]] for i in run]
        run_all = [packed[i] for i in run]
        a = members[0].angle
        r = math.radians(a)
        ux, uy = math.cos(r), math.sin(r)
        cx = float(np.mean([b.cx for b in members]))
        cy = float(np.mean([b.cy for b in members]))
        ts = [(b.cx - cx) * ux + (b.cy - cy) * uy for b in members]
        sides = [-(b.cx - cx) * uy + (b.cy - cy) * ux for b in members]
        t0, t1 = min(ts) - length / 2, max(ts) + length / 2
        mid = (t0 + t1) / 2
        span = t1 - t0
        whole = Box(cx + ux * mid, cy + uy * mid, span, width, a, True)
        reach = (config.run_reach * length + length / 2) / span
        profile, per = line_profile(image, whole, reach)
        centre = len(profile) / 2
        free_lo, free_hi, lo_square, hi_square = _free(boxes, run_all, ux, uy, cx, cy, width)
        # Seen from a side, the scale changes along the run by about its share of the frame
        # times the tangent of the camera's tilt, over the lens's focal length in frames.
        taper = config.run_taper * span / max(image.shape[:2])
        beside = _beside(image, whole, (1 + 2 * reach) * span, per) if config.run_face > 0 else None
        args = (profile, length * per, centre - span * per / 2, centre + span * per / 2, len(members), config,
                centre + (free_lo - mid) * per, centre + (free_hi - mid) * per, taper, beside)
        fit = _fit(*args)
        if fit is None:
            continue
        fits = [fit]
        if config.run_abut > 0 and (lo_square or hi_square):
            ends = _fit(*args, (lo_square, hi_square))
            step = max(1.0, 0.05 * length * per)
            if ends is not None and ends[2] == fit[2] and max(abs(ends[0] - fit[0]), abs(ends[1] - fit[1])) > step:
                fits.append(ends)
        done.update(packed[i] for i in run)
        indices = list(range(len(out), len(out) + fit[2]))
        for n, (lo, hi, tiles, tapered) in enumerate(fits):
            span_px = (hi - lo) / per
            start = (lo - centre) / per + mid
            made = []
            for k in range(tiles):
                a0, a1 = _spread(np.array([k / tiles, (k + 1) / tiles]), tapered)
                t = start + (a0 + a1) / 2 * span_px
                period = (a1 - a0) * span_px
                # Across the line, each tile stays where its nearest packed tile was (a line of
                # play wanders a little). Each box is as long as its tile's period: the packing's
                # length, read off the width of the face mask, falls short where the mask
                # leaves out the faces' rims (ivory faces on a pale table), and boxes an eighth
                # short of their tiles read their pips unsure.
                side = sides[int(np.argmin([abs(t - u) for u in ts]))]
                made.append(dataclasses.replace(members[0], cx=cx + ux * t - uy * side, cy=cy + uy * t + ux * side,
                                                length=period, locked=False))
            if n == 0:  # the run's own fit; another is the one ending at its doubles
                aligned.update(indices)
                out.extend(made)
            else:
                abutting.append((indices, made))
    out.extend(boxes[i] for i in packed if i not in done)
    return out, aligned, abutting


def at_ends(boxes: list[Box], faces: set[int]) -> set[int]:
    """Which boxes lie against a short end of one of the ``faces`` boxes: in line with it, end
    to end (centres a tile's length apart), or across it as a double is laid (three quarters of
    its length apart, at right angles). Tiles lie so in a line of play; backs in a pile lie
    side by side, and their ends meet no face's end."""
    out = set()
    for i, b in enumerate(boxes):
        if i in faces:
            continue
        for j in faces:
            f = boxes[j]
            r = math.radians(f.angle)
            ux, uy = math.cos(r), math.sin(r)
            along = abs((b.cx - f.cx) * ux + (b.cy - f.cy) * uy) / f.length
            across = abs(-(b.cx - f.cx) * uy + (b.cy - f.cy) * ux) / f.width
            square = _square(b.angle, f.angle)
            if across < 0.35 and (0.65 < along < 0.85 if square else 0.9 < along < 1.15):
                out.add(i)
                break
    return out


def alone(boxes: list[Box], which: set[int], others: set[int], reach: float) -> set[int]:
    """Which of the ``which`` boxes have no box of ``others`` (but themselves) with its centre
    within ``reach`` of their length."""
    return {i for i in which
            if not any(j != i and math.hypot(boxes[j].cx - boxes[i].cx, boxes[j].cy - boxes[i].cy)
                       < reach * boxes[i].length for j in others)}
