"""Faces the colour of the table, seen by the ring round them.

An ivory face on a pale table, or a pale coloured set on white laminate, may hardly differ from
the table: the face mask then holds a few specks of it, and the opening that cleans the mask
takes them away. What does differ is the face's outline: the tile's sides, its bevel and the
shadow it casts make a ring of foreground round it. A region that such a ring closes off from
the rest of the table, of a tile's size and shape, holding some of the face mask, is a face.
The table the line of play closes round as it turns back on itself is bigger, or holds no face.
"""

from __future__ import annotations

import cv2
import numpy as np

from referee.vision.config import VisionConfig

__all__ = ["ringed_faces"]


def ringed_faces(mask: np.ndarray, loose: np.ndarray, length: float, config: VisionConfig) -> np.ndarray:
    """The faces (0/1) that rings of foreground (``loose`` that is not ``mask``, the face mask)
    close off from the table: each region those rings part the frame into, away from the
    frame's edge, of ``ring_area`` tile areas (``length`` is the tile length in these pixels),
    filling at least ``ring_fill`` of its least rectangle, that rectangle ``ring_aspect`` times
    as long as wide, and holding at least ``ring_face`` of face mask. None of the inputs is
    modified; ``ring_face`` 0 turns this off (nothing found)."""
    out = np.zeros(mask.shape, np.uint8)
    if config.ring_face <= 0:
        return out
    walls = (loose > 0) & (mask == 0)
    _, comp, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        (~walls).view(np.uint8), 4, cv2.CV_32S, cv2.CCL_BBDT)
    tile = length * length / config.aspect
    low, high = config.ring_area
    h, w = mask.shape
    x, y = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
    bw, bh, area = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT], stats[:, cv2.CC_STAT_AREA]
    sized = (area >= low * tile) & (area <= high * tile) & (x > 0) & (y > 0) & (x + bw < w) & (y + bh < h)
    for i in np.flatnonzero(sized):
        x0, y0, x1, y1 = int(x[i]), int(y[i]), int(x[i] + bw[i]), int(y[i] + bh[i])
        part = comp[y0:y1, x0:x1] == i
        _, (a, b), _ = cv2.minAreaRect(cv2.findNonZero(part.view(np.uint8)))
        if min(a, b) <= 0 or area[i] < config.ring_fill * a * b:
            continue
        least, most = config.ring_aspect
        if not least <= max(a, b) / min(a, b) <= most:
            continue
        if np.count_nonzero(mask[y0:y1, x0:x1][part]) < config.ring_face * area[i]:
            continue
        out[y0:y1, x0:x1][part] = 1
    return out
