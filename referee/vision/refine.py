"""Moving a tile's rectangle along its length onto the tile: the divider across its middle and
the seams at its two ends are lines right across the tile, which pips are not."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np

from referee.vision.config import VisionConfig
from referee.vision.split import Box

__all__ = ["line_profile", "refine", "snap"]

_RES = 24  # strip pixels per tile width


def line_profile(image: np.ndarray, box: Box, reach: float) -> tuple[np.ndarray, float]:
    """Ink across the tile, column by column, over a strip ``reach`` tile lengths either side of
    the centre: a low percentile over the rows, so only lines right across count. Returns the
    profile and the strip's pixels per unit of box length."""
    per = _RES / box.width
    n = round((1 + 2 * reach) * box.length * per)
    m = _RES
    a = math.radians(box.angle)
    ux, uy, vx, vy = math.cos(a), math.sin(a), -math.sin(a), math.cos(a)
    half_len = (0.5 + reach) * box.length
    src = np.float32([[box.cx - ux * half_len - vx * box.width / 2, box.cy - uy * half_len - vy * box.width / 2],
                      [box.cx + ux * half_len - vx * box.width / 2, box.cy + uy * half_len - vy * box.width / 2],
                      [box.cx + ux * half_len + vx * box.width / 2, box.cy + uy * half_len + vy * box.width / 2]])
    dst = np.float32([[0, 0], [n, 0], [n, m]])
    strip = cv2.warpAffine(image, cv2.getAffineTransform(src, dst), (n, m), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
    lab = cv2.cvtColor(strip, cv2.COLOR_BGR2Lab).astype(np.float32)
    core = lab[int(0.2 * m):int(0.8 * m)]
    face = np.median(core[:, int(0.3 * n):int(0.7 * n)].reshape(-1, 3), axis=0)
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

    def at(x: float) -> float:
        i = round(x)
        return float(profile[min(max(i, 0), n - 1)])

    best, best_score = 0.0, -np.inf
    for shift in np.arange(-reach * length, reach * length + 0.5, 0.5):
        lo, mid, hi = centre + shift - length / 2, centre + shift, centre + shift + length / 2
        # An end is where the face gives way going outwards (to a seam or to the table); the
        # divider is a line: above its two sides.
        ends = (at(lo) - at(lo + step)) + (at(hi) - at(hi - step))
        line = at(mid) - 0.5 * (at(mid - step) + at(mid + step))
        score = ends + 0.5 * line
        if score > best_score + 1e-6 or (abs(score - best_score) <= 1e-6 and abs(shift) < abs(best)):
            best, best_score = float(shift), score
    a = math.radians(box.angle)
    d = best / per
    return dataclasses.replace(box, cx=box.cx + math.cos(a) * d, cy=box.cy + math.sin(a) * d)


def _extent(frac: np.ndarray, centre: int, limit: int) -> tuple[int, int] | None:
    """First and last index around ``centre`` where ``frac`` stays above a half, going outwards
    no further than ``limit`` from either end; None when it never drops (no edge in reach)."""
    n = len(frac)
    lo = centre
    while lo > 0 and frac[lo - 1] > 0.5:
        lo -= 1
    hi = centre
    while hi < n - 1 and frac[hi + 1] > 0.5:
        hi += 1
    if lo == 0 or hi == n - 1 or lo > limit or hi < n - 1 - limit:
        return None
    return lo, hi


def snap(image: np.ndarray, box: Box, reach: float, keep_length: bool = False) -> Box:
    """The box fitted to the tile's face: warp a margin of ``reach`` (a share of each side)
    around it square-on, mark what has the face's colour (pips closed over), and move each pair
    of sides to where the face ends. A side with no edge within reach stays where it was."""
    res = 24.0 / box.width
    big_l, big_w = box.length * (1 + 2 * reach), box.width * (1 + 2 * reach)
    n, m = max(8, round(big_l * res)), max(8, round(big_w * res))
    a = math.radians(box.angle)
    ux, uy, vx, vy = math.cos(a), math.sin(a), -math.sin(a), math.cos(a)
    hl, hw = big_l / 2, big_w / 2
    src = np.float32([[box.cx - ux * hl - vx * hw, box.cy - uy * hl - vy * hw],
                      [box.cx + ux * hl - vx * hw, box.cy + uy * hl - vy * hw],
                      [box.cx + ux * hl + vx * hw, box.cy + uy * hl + vy * hw]])
    dst = np.float32([[0, 0], [n, 0], [n, m]])
    strip = cv2.warpAffine(image, cv2.getAffineTransform(src, dst), (n, m), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
    lab = cv2.cvtColor(strip, cv2.COLOR_BGR2Lab).astype(np.float32)
    cy0, cx0 = m // 2, n // 2
    core = lab[int(0.35 * m):int(0.65 * m) + 1, int(0.3 * n):int(0.7 * n) + 1].reshape(-1, 3)
    face = np.median(core, axis=0)
    d = lab - face
    dist = np.sqrt(d[..., 0] ** 2 + 4.0 * (d[..., 1] ** 2 + d[..., 2] ** 2))
    scaled = np.clip(dist, 0, 255).astype(np.uint8)
    cut, _ = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = (scaled <= max(cut, 10)).astype(np.uint8)
    k = max(3, round(0.3 * 24)) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    rows = mask[int(0.3 * m):int(0.7 * m) + 1].mean(axis=0)
    cols = mask[:, int(0.25 * n):int(0.75 * n) + 1].mean(axis=1)
    margin_l = round(2 * reach * box.length * res)
    margin_w = round(2 * reach * box.width * res)
    along = None if keep_length else _extent(rows, cx0, margin_l)
    across = _extent(cols, cy0, margin_w)
    cx, cy, length, width = box.cx, box.cy, box.length, box.width
    if along is not None:
        lo, hi = along
        shift = ((lo + hi + 1) / 2 - n / 2) / res
        cx, cy = cx + ux * shift, cy + uy * shift
        length = (hi + 1 - lo) / res
    if across is not None:
        lo, hi = across
        shift = ((lo + hi + 1) / 2 - m / 2) / res
        cx, cy = cx + vx * shift, cy + vy * shift
        width = (hi + 1 - lo) / res
    return dataclasses.replace(box, cx=cx, cy=cy, length=length, width=width)
