"""Tiles found again from their dividers, where the table's model and the faces' blobs missed
them (see :mod:`referee.vision.bars`).

A divider bar that no tile read surely holds, nor a face-down tile, is where a tile may lie:
a rectangle in the set's proportions is put square across it, fitted to the face about it
(:func:`referee.vision.divider.on_divider`) and read like any other. What it reads joins the
frame's tiles where it lies apart from them, and takes the place of tiles read unsure that it
lies on when it reads surely itself (a box packed half a tile off along a line reads its two
neighbours' halves). Read surely, a face-down tile under it shorter than a tile is part of it
(its blank half taken for a back); on a whole back, or read unsure on any, it is a box on
backs' edges (a seam, a side wall or a shadow for a divider). A rectangle that does not come
out as long as the frame's tiles read surely (or, with fewer than three, as the others fitted
so), or whose face stands apart from nothing beside it, is no tile. Where the tiles read surely
show a length, the frame's backs and unsure boxes far shorter than it are pieces of faces and
shadows from a frame read at a length it got wrong: they go (``bar_small``)."""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Sequence

import cv2
import numpy as np

from referee.vision.bars import Bar, divider_bars
from referee.vision.config import VisionConfig
from referee.vision.divider import on_divider
from referee.vision.read import halves_apart, rectify
from referee.vision.reading import one_of_each, read_boxes
from referee.vision.refine import strip
from referee.vision.segment import HUE
from referee.vision.split import Box
from referee.vision.types import Detection, FaceDown, TileReading

__all__ = ["by_dividers", "merge"]


def _sides(corners: tuple[tuple[float, float], ...] | np.ndarray) -> tuple[float, float]:
    """The long and the short side of a quad."""
    a, b = math.dist(corners[0], corners[1]), math.dist(corners[1], corners[2])
    return max(a, b), min(a, b)


def _inside(corners: tuple[tuple[float, float], ...] | np.ndarray, x: float, y: float) -> bool:
    """Whether the point (x, y) lies in the quad ``corners`` (or on its outline)."""
    return cv2.pointPolygonTest(np.asarray(corners, np.float32).reshape(-1, 1, 2), (x, y), False) >= 0


def _covered(bar: Bar, found: Detection) -> bool:
    """Whether a bar is already accounted for: it lies on a face-down tile, on a tile read
    surely, or at the middle of a tile read unsure (its divider: the tile is where it should be)."""
    for back in found.face_down:
        if _inside(back.corners, bar.cx, bar.cy):
            return True
    for t in found.tiles:
        if not _inside(t.corners, bar.cx, bar.cy):
            continue
        if not t.uncertain or math.dist(t.center, (bar.cx, bar.cy)) < 0.25 * _sides(t.corners)[1]:
            return True
    return False


def _fits(image: np.ndarray, bars: list[Bar], found: Detection, length: float | None,
          config: VisionConfig) -> list[Box]:
    """A fitted rectangle across each bar not accounted for (the first ``bar_most`` of them: a
    wood table's grain may make hundreds), standing ``bar_apart`` from what lies beside it
    (:func:`_apart`), its halves of one colour within ``bar_halves`` (a tile is of one
    material: a box across the table's edge, its dark rim for a divider, is half floor), no two
    on one place; ``length``: the tile length the frame's tiles read surely show (None: too
    few of them to tell)."""
    boxes: list[Box] = []
    tried, most = 0, config.bar_most
    if length is not None:
        # The frame's tiles read surely give the size: the bars nearest a divider's length are
        # tried first, and a frame read so far needs fewer of them (the sample hand's wood grain
        # made thirty bars a frame, and fitting them all slowed the live referee past its pace).
        bars = sorted(bars, key=lambda b: abs(b.length - config.bar_share * length / config.aspect))
        most = min(most, config.bar_most_known)
    for bar in bars:
        width = bar.length / config.bar_share if length is None else length / config.aspect
        if not config.bar_least * width <= bar.length <= width or _covered(bar, found):
            continue
        if tried == most:
            break
        tried += 1
        box = Box(bar.cx, bar.cy, width * config.aspect, width, bar.angle + 90.0)
        fitted = on_divider(image, box, config, config.bar_reach, whole=True)
        if fitted is None or _apart(image, fitted) < config.bar_apart \
                or halves_apart(rectify(image, fitted.corners(), config.cell_px)) > config.bar_halves \
                or any(math.hypot(fitted.cx - b.cx, fitted.cy - b.cy) < 0.5 * b.width for b in boxes):
            continue
        boxes.append(fitted)
    if not boxes:
        return []
    # One set: its tiles are of one size (a bar on the table's pattern fits a face of its own size).
    typical = length if length is not None else statistics.median(b.length for b in boxes)
    return [b for b in boxes if abs(b.length / typical - 1) <= config.bar_size]


def _apart(image: np.ndarray, box: Box) -> float:
    """How far the face's colour stands from what lies beside it, on the side where it stands
    furthest: the median colour (Lab, hue weighted) of the middle of the rectangle against
    that of a band beyond each of its four sides. A tile stands apart from the table, its
    shadow or its side wall on one side at least; a patch of the table boxed on a streak of its
    grain stands apart from nothing."""
    per = 24.0 / box.width
    square = strip(image, box, 1.5 * box.length, 1.8 * box.width, per)
    lab = cv2.cvtColor(square, cv2.COLOR_BGR2Lab).astype(np.float32) * np.array([1.0, HUE, HUE], np.float32)
    m, n = lab.shape[:2]

    def at(u0: float, u1: float, v0: float, v1: float) -> np.ndarray:
        """The median colour over box units ``u`` along (-0.75..0.75), ``v`` across (-0.9..0.9)."""
        i0, i1 = round((v0 / 1.8 + 0.5) * m), round((v1 / 1.8 + 0.5) * m)
        j0, j1 = round((u0 / 1.5 + 0.5) * n), round((u1 / 1.5 + 0.5) * n)
        return np.asarray(np.median(lab[i0:max(i1, i0 + 1), j0:max(j1, j0 + 1)].reshape(-1, 3), axis=0))

    face = at(-0.4, 0.4, -0.4, 0.4)
    sides = [at(-0.4, 0.4, 0.6, 0.85), at(-0.4, 0.4, -0.85, -0.6),  # beyond the long sides
             at(0.58, 0.72, -0.4, 0.4), at(-0.72, -0.58, -0.4, 0.4)]  # beyond the ends
    return max(float(np.linalg.norm(side - face)) for side in sides)


def _over(tile: TileReading, other: TileReading | FaceDown, share: float) -> bool:
    """Whether two tiles lie on one place: they share ``share`` of the smaller's area."""
    a, b = (np.asarray(t.corners, np.float32) for t in (tile, other))
    common, _ = cv2.intersectConvexConvex(a, b)
    return float(common) >= share * min(abs(cv2.contourArea(a)), abs(cv2.contourArea(b)))


def _part_of(tile: TileReading, back: FaceDown, size: float) -> bool:
    """Whether a face-down tile is part of a tile: the tile holds its centre, and it is shorter
    than the tile by more than ``size`` (a share): a face's blank half packed as a back. A back
    as long as the tile is a tile of its own."""
    return _inside(tile.corners, *back.center) and _sides(back.corners)[0] < (1 - size) * _sides(tile.corners)[0]


def by_dividers(image: np.ndarray, found: Detection, config: VisionConfig,
                lightness: np.ndarray | None = None) -> Detection:
    """The frame's reading ``found`` with the tiles found again from divider bars added (see the
    module's note); ``found`` itself when there are none, the frame is occluded, or ``bar_most``
    is 0. ``lightness``: see :func:`referee.vision.bars.divider_bars`. The frame is not modified."""
    if config.bar_most <= 0 or found.occluded:
        return found
    # A tile or two read surely may be misread (a shadow and a tile taken for one): their
    # length is the set's only when bar_known of them agree on it. (Not the backs: packed at a
    # size the frame got wrong, a row of phantom backs agrees on it.)
    boxes = _fits(image, divider_bars(image, config, lightness), found, _sure_length(found.tiles, config), config)
    if not boxes:
        return found
    h, w = image.shape[:2]
    # Read beside the frame's other tiles: the pip contrast is the frame's, not one tile's.
    context = [t.corners for t in found.tiles] + [d.corners for d in found.face_down]
    again = read_boxes(image, boxes, 1.0, config, w, h, shaped=0, fit=False, context=context).tiles
    merged = merge(found, again, config)
    # The tiles found so may show the frame was read at a length it got wrong: its backs and
    # unsure boxes far shorter than the tiles read surely are pieces of faces and shadows. Left
    # out, they no longer keep those tiles out either (a tile on backs not part of it is left out).
    trimmed = _sized(found, _sure_length([*found.tiles, *again], config), config)
    return merged if trimmed is found else merge(trimmed, again, config)


def _sure_length(tiles: Sequence[TileReading], config: VisionConfig) -> float | None:
    """The length the tiles read surely agree on (their median), when there are bar_known of them."""
    sure = [_sides(t.corners)[0] for t in tiles if not t.uncertain]
    return statistics.median(sure) if len(sure) >= config.bar_known else None


def _sized(found: Detection, length: float | None, config: VisionConfig) -> Detection:
    """``found`` without its face-down tiles and unsure tiles shorter than ``length`` by more
    than ``bar_small`` (``found`` itself when there are none, or no length)."""
    if length is None or config.bar_small <= 0:
        return found
    least = (1 - config.bar_small) * length
    down = tuple(d for d in found.face_down if _sides(d.corners)[0] >= least)
    tiles = tuple(t for t in found.tiles if not t.uncertain or _sides(t.corners)[0] >= least)
    if len(down) == len(found.face_down) and len(tiles) == len(found.tiles):
        return found
    return dataclasses.replace(found, tiles=tiles, face_down=down)


def merge(found: Detection, again: Sequence[TileReading], config: VisionConfig) -> Detection:
    """``found`` with the tiles read on divider bars (``again``) put in (see the module's note):
    one lying apart from every tile found (sharing less than ``bar_over`` of the smaller's area)
    joins them; one read surely takes the place of the tiles under it when all of those were
    read unsure (those sharing ``bar_near`` of it: a box straddling it and its neighbour reaches
    a little way onto it), and of the face-down tiles under it that are part of it (:func:`_part_of`);
    one on a whole back, or read unsure on any back or tile, is left out.
    ``found`` itself when nothing changes."""
    tiles = list(found.tiles)
    for tile in again:
        backs = [d for d in found.face_down if _over(tile, d, config.bar_over)]
        if backs and (tile.uncertain or not all(_part_of(tile, d, config.bar_size) for d in backs)):
            continue  # a box on backs' edges (a seam, a side wall or a shadow for a divider)
        # Read surely on its divider, it clears the boxes read unsure that reach onto it
        # (straddling it and its neighbour); any tile read surely under it stands.
        reach = [config.bar_over if tile.uncertain or not t.uncertain else config.bar_near for t in tiles]
        under = [k for k, t in enumerate(tiles) if _over(tile, t, reach[k])]
        if not under:
            tiles.append(tile)
        elif not tile.uncertain and all(tiles[k].uncertain for k in under):
            tiles = [t for k, t in enumerate(tiles) if k not in under] + [tile]
    if len(tiles) == len(found.tiles) and all(a is b for a, b in zip(tiles, found.tiles, strict=True)):
        return found
    # A face-down tile under a tile found so, read surely (its blank half packed as a back), is
    # that tile.
    added = [t for t in tiles if t not in found.tiles]
    down = tuple(d for d in found.face_down if not any(_over(t, d, config.bar_over) for t in added))
    merged = one_of_each(tuple(tiles), config.one_set_place) if config.one_set else tuple(tiles)
    return dataclasses.replace(found, tiles=merged, face_down=down)
