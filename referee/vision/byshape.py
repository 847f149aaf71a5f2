"""Tiles whose faces the set's colour missed, found by their shape: in a coloured set the
faces' tint differs from tile to tile, and on a pale table some faces lie nearer the table's
colour than the set's. They still differ from the table, each a solid blob of what differs
from it: face, side wall and shadow together. The blobs holding one tile found alone say
what such a blob looks like in this frame (its size, and where the face lies in it: the
shadow falls the same way across the frame); a blob holding no tile found that looks the same
is looked at as one. It counts only where it reads as a face."""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.config import VisionConfig
from referee.vision.segment import outline
from referee.vision.split import Box, _box_of

__all__ = ["by_shape"]


def by_shape(loose: np.ndarray, boxes: list[Box], length: float, config: VisionConfig) -> list[Box]:
    """Rectangles of tiles in ``loose`` (what differs from the table at all, 0/1, not
    modified) holding none of ``boxes`` (the tiles found, ``length`` long): blobs filling
    at least ``shape_fill`` of their rectangle, their sides within ``shape_size`` (either way)
    of those of the blobs holding one lone tile found (at least ``shape_samples`` of them)."""
    if config.shape_size <= 0 or length <= 0 or sum(not b.packed for b in boxes) < config.shape_samples:
        return []  # too few lone tiles to learn a tile's blob from
    blobs = loose.copy()
    contours, hierarchy = cv2.findContours(blobs, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return []
    # Pips and the divider are holes: filled, as in the face mask; specks of the table's
    # grain are opened away.
    cv2.drawContours(blobs, [c for c, h in zip(contours, hierarchy[0], strict=True) if h[3] >= 0], -1, 1, cv2.FILLED)
    k = max(3, round(config.open_share * length)) | 1
    blobs = cv2.morphologyEx(blobs, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    count, comp, stats, _ = cv2.connectedComponentsWithStats(blobs, connectivity=4)
    h, w = comp.shape
    holding = np.zeros(count, np.intp)
    home: dict[int, Box] = {}
    for box in boxes:
        x, y = round(box.cx), round(box.cy)
        if 0 <= x < w and 0 <= y < h and (i := int(comp[y, x])):
            holding[i] += 1
            home[i] = box
    # What a blob of one lone tile looks like here: its rectangle's sides, and the face's
    # sides and centre (from the blob's) within it.
    samples = []
    for i, box in home.items():
        if holding[i] != 1 or box.packed:
            continue
        rect = _rect(comp, stats, i)
        samples.append((rect.length, rect.width, box.length, box.width, box.cx - rect.cx, box.cy - rect.cy))
    if len(samples) < config.shape_samples:
        return []
    long, short, face_long, face_short, dx, dy = (float(v) for v in np.median(np.array(samples), axis=0))
    lo, hi = 1 / (1 + config.shape_size), 1 + config.shape_size
    out: list[Box] = []
    for i in range(1, count):
        n = int(stats[i, cv2.CC_STAT_AREA])
        if holding[i] or not lo * lo * long * short <= n <= hi * hi * long * short:
            continue
        rect = _rect(comp, stats, i)
        if lo < rect.length / long < hi and lo < rect.width / short < hi \
                and n >= config.shape_fill * rect.length * rect.width:
            out.append(Box(rect.cx + dx, rect.cy + dy, face_long, face_short, rect.angle))
    return out


def _rect(comp: np.ndarray, stats: np.ndarray, i: int) -> Box:
    """The rectangle of blob ``i`` of a labelling (``comp``, ``stats``), in its frame."""
    x, y, bw, bh = (int(v) for v in stats[i, :4])
    box = _box_of(cv2.minAreaRect(outline((comp[y:y + bh, x:x + bw] == i).astype(np.uint8))))
    return Box(box.cx + x, box.cy + y, box.length, box.width, box.angle)
