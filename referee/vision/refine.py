"""Moving a tile's rectangle along its length onto the tile: the divider across its middle and
the seams at its two ends are lines right across the tile, which pips are not."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np

from referee.vision.config import VisionConfig
from referee.vision.split import Box

__all__ = ["line_profile", "refine"]

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
    best, best_score = 0.0, -np.inf
    for shift in np.arange(-reach * length, reach * length + 0.5, 0.5):
        def at(x: float) -> float:
            i = round(x)
            return float(profile[i]) if 0 <= i < n else 0.0
        score = 0.3 * at(centre + shift) + at(centre + shift - length / 2) + at(centre + shift + length / 2)
        if score > best_score + 1e-6 or (abs(score - best_score) <= 1e-6 and abs(shift) < abs(best)):
            best, best_score = float(shift), score
    a = math.radians(box.angle)
    d = best / per
    return dataclasses.replace(box, cx=box.cx + math.cos(a) * d, cy=box.cy + math.sin(a) * d)
