"""Moving a tile's rectangle along its length onto the tile: the divider across its middle and
the seams at its two ends are lines right across the tile, which pips are not."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np

from referee.vision.config import VisionConfig
from referee.vision.medians import channel_medians
from referee.vision.split import Box

__all__ = ["line_profile", "on_edges", "refine", "snap", "strip"]

_RES = 24  # strip pixels per tile width


def strip(image: np.ndarray, box: Box, along: float, across: float, res: float, turn: float = 0.0) -> np.ndarray:
    """The frame square-on over a rectangle centred on the box, ``along`` by ``across`` of the
    frame's pixels, turned by ``turn`` degrees from the box, at ``res`` strip pixels per frame
    pixel (x runs along the box)."""
    n, m = max(8, round(along * res)), max(8, round(across * res))
    a = math.radians(box.angle + turn)
    ux, uy, vx, vy = math.cos(a), math.sin(a), -math.sin(a), math.cos(a)
    hl, hw = along / 2, across / 2
    src = np.float32([[box.cx - ux * hl - vx * hw, box.cy - uy * hl - vy * hw],
                      [box.cx + ux * hl - vx * hw, box.cy + uy * hl - vy * hw],
                      [box.cx + ux * hl + vx * hw, box.cy + uy * hl + vy * hw]])
    dst = np.float32([[0, 0], [n, 0], [n, m]])
    return cv2.warpAffine(image, cv2.getAffineTransform(src, dst), (n, m), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def line_profile(image: np.ndarray, box: Box, reach: float) -> tuple[np.ndarray, float]:
    """Ink across the tile, column by column, over a strip ``reach`` tile lengths either side of
    the centre: a low percentile over the rows, so only lines right across count. Returns the
    profile and the strip's pixels per unit of box length."""
    per = _RES / box.width
    square = strip(image, box, (1 + 2 * reach) * box.length, box.width, per)
    m, n = square.shape[:2]
    lab8 = cv2.cvtColor(square, cv2.COLOR_BGR2Lab)
    core = lab8[int(0.2 * m):int(0.8 * m)].astype(np.float32)
    face = channel_medians(lab8[int(0.2 * m):int(0.8 * m), int(0.3 * n):int(0.7 * n)].reshape(-1, 3))
    ink = np.linalg.norm(core - face, axis=2)
    profile = np.percentile(ink, 30, axis=0).astype(np.float32)
    return cv2.GaussianBlur(profile.reshape(1, -1), (0, 0), 0.6).ravel(), per


def refine(image: np.ndarray, box: Box, config: VisionConfig, reach: float) -> Box:
    """The box moved (by up to ``reach`` of its length) to where its end seams and divider fall
    on lines across the tile. The ends weigh most: a divider may be faint, and a shift by half a
    tile would put the divider where a seam is. ``image`` is the frame the box refers to."""
    profile, per = line_profile(image, box, reach)
    n = len(profile)
    centre = n / 2
    length = box.length * per
    step = max(1, round(0.1 * _RES))  # a tenth of the tile's width, in strip pixels

    values = profile.astype(np.float64)

    def at(x: np.ndarray) -> np.ndarray:
        """The profile at each position (rounded half to even, as ``round``; clipped to the strip)."""
        return values[np.clip(np.rint(x).astype(np.intp), 0, n - 1)]

    shifts = np.arange(-reach * length, reach * length + 0.5, 0.5)
    lo, mid, hi = centre + shifts - length / 2, centre + shifts, centre + shifts + length / 2
    # An end is where the face gives way going outwards (to a seam or to the table); the divider
    # is a line: above its two sides.
    ends = (at(lo) - at(lo + step)) + (at(hi) - at(hi - step))
    line = at(mid) - 0.5 * (at(mid - step) + at(mid + step))
    best, best_score = 0.0, -np.inf
    for shift, score in zip(shifts.tolist(), (ends + 0.5 * line).tolist(), strict=True):
        if score > best_score + 1e-6 or (abs(score - best_score) <= 1e-6 and abs(shift) < abs(best)):
            best, best_score = float(shift), score
    a = math.radians(box.angle)
    d = best / per
    return dataclasses.replace(box, cx=box.cx + math.cos(a) * d, cy=box.cy + math.sin(a) * d)


def _edges(profile: np.ndarray, centre: int, inner: float, least: float) -> tuple[float, float] | None:
    """The face's two edges in a profile of distance from the face colour: where it climbs
    fastest going out from ``centre``, no nearer than ``inner``; None when no clear climb, or
    the edges are closer than ``least``."""
    p = cv2.GaussianBlur(profile.astype(np.float32).reshape(1, -1), (0, 0), 1.0).ravel()
    g = np.gradient(p)
    n = len(p)
    a, b = int(centre - inner), int(centre + inner) + 1
    if a < 2 or b > n - 3:
        return None
    lo = int(np.argmin(g[1:a])) + 1
    hi = b + int(np.argmax(g[b:n - 1]))
    # The climb from the face to what lies beyond it: the divider within is no measure (a deep
    # line across a pale face on a pale table made the faint ends look like no edges at all).
    rise = float(max(p[:a].max(), p[b:].max()) - p[a:b].min())
    if rise <= 0 or min(-g[lo], g[hi]) < 0.08 * rise or hi - lo < least:
        return None
    return lo + 0.5, hi + 0.5


def snap(image: np.ndarray, box: Box, reach: float, keep_length: bool = False) -> Box:
    """The box fitted to the tile's face: first across (its width), then along (its length,
    unless ``keep_length``), each from a fresh square-on view. See :func:`_snap`."""
    box = _snap(image, box, reach, across=True)
    return box if keep_length else _snap(image, box, reach, across=False)


def _snap(image: np.ndarray, box: Box, reach: float, across: bool) -> Box:
    """The box fitted to the tile's face: warp a margin of ``reach`` (a share of each side)
    around it square-on, mark what has the face's colour (pips closed over), and move each pair
    of sides to where the face ends. A side with no edge within reach stays where it was."""
    res = 24.0 / box.width
    square = strip(image, box, box.length * (1 + 2 * reach), box.width * (1 + 2 * reach), res)
    m, n = square.shape[:2]
    a = math.radians(box.angle)
    ux, uy, vx, vy = math.cos(a), math.sin(a), -math.sin(a), math.cos(a)
    lab8 = cv2.cvtColor(square, cv2.COLOR_BGR2Lab)
    lab = lab8.astype(np.float32)
    cy0, cx0 = m // 2, n // 2
    face = channel_medians(lab8[int(0.35 * m):int(0.65 * m) + 1, int(0.3 * n):int(0.7 * n) + 1].reshape(-1, 3))
    d = lab - face
    dist = np.sqrt(d[..., 0] ** 2 + 4.0 * (d[..., 1] ** 2 + d[..., 2] ** 2))
    # Profiles of the distance from the face colour, across and along the tile (a low
    # percentile, so pips and the divider do not count); the face ends where the profile climbs
    # fastest going outwards, whatever lies beyond (table, shadow, a neighbour's seam).
    if across:
        profile = np.percentile(dist[:, int(0.25 * n):int(0.75 * n) + 1], 30, axis=1)
        # A face narrower than 0.7 of the box is not the face: seen small, a double six's two
        # rows of pips blur into bands along it that climb like edges.
        side = _edges(profile, cy0, 0.2 * box.width * res, 0.7 * box.width * res)
        along = None
    else:
        profile = np.percentile(dist[int(0.3 * m):int(0.7 * m) + 1], 30, axis=0)
        along = _edges(profile, cx0, 0.3 * box.length * res, 0.7 * box.length * res)
        side = None
    cx, cy, length, width = box.cx, box.cy, box.length, box.width
    if along is not None:
        lo, hi = along
        shift = ((lo + hi) / 2 - n / 2) / res
        cx, cy = cx + ux * shift, cy + uy * shift
        length = (hi - lo) / res
    if side is not None:
        lo, hi = side
        shift = ((lo + hi) / 2 - m / 2) / res
        cx, cy = cx + vx * shift, cy + vy * shift
        width = (hi - lo) / res
    return dataclasses.replace(box, cx=cx, cy=cy, length=length, width=width)


def _sharp(square: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How sharply the colour changes along x and along y at each pixel of a square-on view
    (Sobel of the lightly smoothed Lab, hue weighted as in :func:`_snap`)."""
    lab = cv2.GaussianBlur(cv2.cvtColor(square, cv2.COLOR_BGR2Lab).astype(np.float32), (0, 0), 0.8)
    weight = np.array([1.0, 2.0, 2.0], np.float32)
    gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3) * weight
    gy = cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3) * weight
    return np.sqrt((gx * gx).sum(axis=2)), np.sqrt((gy * gy).sum(axis=2))


def _pair(profile: np.ndarray, least: float, most: float, centre: float, reach: float,
          stand: float) -> tuple[int, int] | None:
    """Two places in ``profile`` from ``least`` to ``most`` apart, their middle within ``reach``
    of ``centre``, where the weaker of the two is strongest; None when no two are, or the
    weaker is under ``stand`` times the profile's median between them (the outline of a face
    is sharper than the face within it; on a plain table, no edge stands out)."""
    n = len(profile)
    first, second = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    apart = second - first
    ok = (apart >= least) & (apart <= most) & (np.abs((first + second) / 2 - centre) <= reach)
    if not ok.any():
        return None
    score = np.where(ok, np.minimum(profile[first], profile[second]), -np.inf)
    a, b = np.unravel_index(int(np.argmax(score)), score.shape)
    if score[a, b] < stand * float(np.median(profile[a + 1:b])):
        return None
    return int(a), int(b)


def on_edges(image: np.ndarray, box: Box, config: VisionConfig) -> Box | None:
    """The box (full-resolution pixels) moved onto the sharp edges of its face's outline: first
    the two lines along the tile a width apart (over the middle half of its length), then the
    two across it a length apart (over the middle of the width found), each size within
    ``edge_size`` of the box's, ``edge_rounds`` times over, each from where the last found them.
    A shadow's edge is soft, the face's sharp: a box that took a tile's shadow for part of its
    face slides back onto the face. None when no such pair of lines lies within reach
    (``edge_across`` of the width, ``edge_along`` of the length), or the weaker of a pair is
    under ``edge_stand`` times as sharp as what lies between them is in the median."""
    if config.edge_rounds <= 0:
        return None
    res = _RES / box.width
    now = box
    for _ in range(config.edge_rounds):
        square = strip(image, now, now.length * (1 + 2 * config.edge_along),
                       now.width * (1 + 2 * config.edge_across), res)
        m, n = square.shape[:2]
        along, across = _sharp(square)
        length, width = box.length * res, box.width * res  # the sizes sought are the box's own
        lo, hi = 1 - config.edge_size, 1 + config.edge_size
        middle = across[:, int(n / 2 - 0.25 * length):int(n / 2 + 0.25 * length) + 1]
        sides = _pair(np.percentile(middle, 25, axis=1), lo * width, hi * width, m / 2, config.edge_across * width,
                      config.edge_stand)
        if sides is None:
            return None
        top, bottom = sides
        inner = along[int(top + 0.1 * (bottom - top)):int(bottom - 0.1 * (bottom - top)) + 1]
        ends = _pair(np.percentile(inner, 20, axis=0), lo * length, hi * length, n / 2, config.edge_along * length,
                     config.edge_stand)
        if ends is None:
            return None
        left, right = ends
        a = math.radians(now.angle)
        du, dv = ((left + right) / 2 - n / 2) / res, ((top + bottom) / 2 - m / 2) / res
        now = dataclasses.replace(now, cx=now.cx + math.cos(a) * du - math.sin(a) * dv,
                                  cy=now.cy + math.sin(a) * du + math.cos(a) * dv,
                                  length=(right - left) / res, width=(bottom - top) / res)
    return now
