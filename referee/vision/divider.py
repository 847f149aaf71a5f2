"""A lone tile found again from its divider.

A tile seen from a camera off to one side shows its side wall, and casts a shadow; both are of
the face's colour or near it, so the rectangle fitted to a tile's blob is too big and off to
that side, and its halves take the wrong pips. The divider, the line across the middle of every
face, says where the face's middle is and which way the tile lies, whatever the outline holds.
Centred on it and turned square to it, the rectangle's sides are then fitted in pairs about the
middle: a face is as long either side of its divider, so the sharp edge on the far side tells
where the soft edge (side wall, shadow) on the near side is."""

from __future__ import annotations

import dataclasses
import math
from typing import Literal, NamedTuple

import cv2
import numpy as np

from referee.vision.config import VisionConfig
from referee.vision.medians import channel_medians, channel_medians_of
from referee.vision.refine import strip
from referee.vision.split import Box

__all__ = ["Stretch", "on_divider"]

#: Which side of a rectangle out of the set's proportions is looked for as far as the other side
#: reaches in those proportions: "length", "width", or neither ("").
Stretch = Literal["", "length", "width"]

_RES = 48.0  # strip pixels per box width when looking for the divider
_FIT_RES = 24.0  # ... and when fitting the sides
_TURNS = 9  # turns tried, evenly over +-divider_turn degrees
_HUE = 1.5  # chroma weighs this much more than lightness in the ink


def _inks(lab8: np.ndarray) -> np.ndarray:
    """How far each pixel of each strip (Lab, uint8; a stack (n, m, k, 3) of strips of one size)
    is from its strip's commonest colour (its face)."""
    n = len(lab8)
    d = lab8.astype(np.float32) - channel_medians_of(lab8.reshape(n, -1, 3))[:, None, None, :]
    return np.sqrt(d[..., 0] ** 2 + _HUE**2 * (d[..., 1] ** 2 + d[..., 2] ** 2))


def _longest_run(on: np.ndarray) -> tuple[int, int]:
    """The first and one-past-last index of the longest run of True in ``on`` (0, 0 if none)."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], on.astype(np.int8), [0]))))
    starts, ends = edges[0::2], edges[1::2]
    if len(starts) == 0:
        return 0, 0
    k = int(np.argmax(ends - starts))
    return int(starts[k]), int(ends[k])


class Found(NamedTuple):
    """A divider found in a box: shifts along and across (frame pixels) and the turn (degrees)
    that put the box on it, how far it stands above the columns beside it, and how many of the
    box's long sides it runs to (cut short there)."""

    along: float
    across: float
    turn: float
    score: float
    cut: int


def _find(image: np.ndarray, box: Box, config: VisionConfig, reach: float) -> Found | None:
    """The divider within ``reach`` of the box's length from its middle; None when no line
    across the box spans ``divider_span`` of its width, or stands out by less than
    ``divider_clear`` of the darkest ink (pips) above the face.
    A line is where the median over the box's width stands above the columns either side: pips,
    round, cover less of any column than the divider does of its own."""
    res = _RES / box.width
    turns = [float(t) for t in np.linspace(-config.divider_turn, config.divider_turn, _TURNS)]
    # The strips at every turn, worked out together (the same values as one at a time).
    squares = np.stack([strip(image, box, box.length, box.width, res, turn) for turn in turns])
    m, n = squares.shape[1:3]
    inks = _inks(cv2.cvtColor(squares.reshape(-1, n, 3), cv2.COLOR_BGR2Lab).reshape(squares.shape))
    profiles = np.median(inks[:, int(0.2 * m):int(0.8 * m)], axis=1)
    lo, hi = int(n / 2 - reach * n), int(n / 2 + reach * n) + 1
    w = max(2, round(0.06 * n))  # a divider is a few hundredths of a tile long: this is beside it
    best: tuple[float, int, int] | None = None
    for i, profile in enumerate(profiles):
        k = lo + int(np.argmax(profile[lo:hi]))
        score = float(profile[k]) - max(float(profile[max(0, k - w)]), float(profile[min(n - 1, k + w)]))
        if best is None or score > best[0]:
            best = (score, i, k)
    assert best is not None
    score, i, k = best
    turn, ink, base = turns[i], inks[i], float(np.median(profiles[i]))
    m, n = ink.shape
    column = ink[:, max(0, k - 1):k + 2].max(axis=1)
    if score <= config.divider_clear * (float(np.percentile(ink, 98)) - base):
        return None  # no line stands out as the pips do
    r0, r1 = _longest_run(column > 0.5 * (float(column.max()) + base))
    if (r1 - r0) / res < config.divider_span * box.width:
        return None
    return Found((k + 0.5 - n / 2) / res, ((r0 + r1) / 2 - m / 2) / res, turn, score, int(r0 == 0) + int(r1 == m))


def _slid(box: Box, across: float) -> Box:
    """``box`` moved ``across`` frame pixels square to its length."""
    a = math.radians(box.angle)
    return dataclasses.replace(box, cx=box.cx - math.sin(a) * across, cy=box.cy + math.cos(a) * across)


def _half_size(profile: np.ndarray, sizes: tuple[float, float], config: VisionConfig) -> float | None:
    """Half the face's size (profile pixels) in a profile of distance from the face colour
    centred on the face's middle: where the climbs on both sides together are steepest, the face
    between ``divider_least`` of the smaller and ``divider_most`` of the larger of ``sizes``
    (profile pixels: the rectangle's side, and the other side in the set's proportions)."""
    p = cv2.GaussianBlur(profile.astype(np.float32).reshape(1, -1), (0, 0), 1.0).ravel()
    g = np.gradient(p)
    c = len(p) / 2
    best, best_half = -np.inf, None
    for half in np.arange(config.divider_least * min(sizes) / 2, config.divider_most * max(sizes) / 2, 0.5):
        i, j = round(c - half), round(c + half)
        if i < 1 or j > len(p) - 2:
            break
        climb = float(g[j] - g[i])
        if climb > best:
            best, best_half = climb, float(half)
    return best_half if best > 0 else None


def on_divider(image: np.ndarray, box: Box, config: VisionConfig, reach: float | None = None,
               stretch: Stretch = "", whole: bool = False) -> Box | None:
    """The rectangle of the lone tile in ``box`` (frame pixels) centred on its divider, turned
    square to it and with its sides fitted about it (see the module's note); None when no
    divider shows within ``reach`` (default ``divider_reach``) of the middle, or the fitted
    sides are not in a tile's proportions. When the rectangle shows no divider, or one cut
    short by its long side (the rectangle sits partly off the face, on its side wall), the
    rectangle slid ``divider_slide`` of its width to either side is tried too, the clearest
    divider first (slid, the divider must end inside the rectangle on one side at least: the
    edge of a tile or of its wall crosses a slid rectangle from side to side). ``stretch``: see
    :func:`_fit`. ``whole``: only a line that ends inside the rectangle at both long sides
    counts (the seam between tiles end to end runs right across), and no slid rectangle."""
    reach = config.divider_reach if reach is None else reach
    here = _find(image, box, config, reach)
    if whole:  # only a line ending inside the rectangle at both sides: a seam crosses it
        return _fit(image, box, here, config, stretch) if here is not None and not here.cut else None
    if config.divider_slide <= 0 or (here is not None and not here.cut):
        return _fit(image, box, here, config, stretch)
    tries = [(here, box)] if here is not None else []
    for side in (-1, 1):
        slid = _slid(box, side * config.divider_slide * box.width)
        if (found := _find(image, slid, config, reach)) is not None and found.cut < 2:
            tries.append((found, slid))
    for found, slid in sorted(tries, key=lambda f: -f[0].score):
        fitted = _fit(image, slid, found, config, stretch)
        if fitted is not None:
            return fitted
    return None


def _fit(image: np.ndarray, box: Box, found: Found | None, config: VisionConfig,
         stretch: Stretch = "") -> Box | None:
    """``box`` centred on the divider ``found`` there (see :func:`_find`), turned square to it,
    its sides fitted about it; None without a divider or when the sides are not in a tile's
    proportions. Each side is looked for near the box's own; the one named by ``stretch``
    ("length" or "width") anywhere from there to the other side in the set's proportions (a
    rectangle packed round a tile and part of the next one, or round a tile and its shadow, is
    too long or too wide)."""
    if found is None:
        return None
    shift, across, turn = found.along, found.across, found.turn
    a = math.radians(box.angle)
    moved = _slid(box, across)
    centred = dataclasses.replace(moved, cx=moved.cx + math.cos(a) * shift, cy=moved.cy + math.sin(a) * shift,
                                  angle=box.angle + turn)
    res = _FIT_RES / box.width
    margin = 1 + 2 * (config.divider_most - 1 + 0.1)
    if stretch == "length":
        margin *= max(1.0, box.width * config.aspect / box.length)
    elif stretch == "width":
        margin *= max(1.0, box.length / config.aspect / box.width)
    sizes = []
    for length_wise in (True, False):
        square = strip(image, centred, box.length * (margin if length_wise else 1),
                       box.width * (1 if length_wise else margin), res)
        lab8 = cv2.cvtColor(square, cv2.COLOR_BGR2Lab)
        lab = lab8.astype(np.float32)
        m, n = lab.shape[:2]
        face = channel_medians(lab8[int(0.35 * m):int(0.65 * m) + 1, int(0.3 * n):int(0.7 * n) + 1].reshape(-1, 3))
        d = lab - face
        distance = np.sqrt(d[..., 0] ** 2 + 4.0 * (d[..., 1] ** 2 + d[..., 2] ** 2))
        # A low percentile across the other way: pips and the divider do not make an edge.
        profile = (np.percentile(distance[int(0.3 * m):int(0.7 * m) + 1], 30, axis=0) if length_wise
                   else np.percentile(distance[:, int(0.25 * n):int(0.75 * n) + 1], 30, axis=1))
        side, other = ((box.length, box.width * config.aspect) if length_wise
                       else (box.width, box.length / config.aspect))
        sides = (side, other) if stretch == ("length" if length_wise else "width") else (side, side)
        half = _half_size(profile, (sides[0] * res, sides[1] * res), config)
        if half is None:
            return None
        sizes.append(2 * half / res)
    length, width = sizes
    if not 1 / (1 + config.divider_aspect) < length / width / config.aspect < 1 + config.divider_aspect:
        return None
    return dataclasses.replace(centred, length=length, width=width)
