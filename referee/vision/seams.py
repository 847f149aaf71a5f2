"""Backs packed side by side or end to end must show the seam between them: two tiles pushed
together meet at a groove their rounded edges make (or a gap of table). A shadow strip cast along
a line of tiles, or a patch of cloth, is packed into tile-sized rectangles too, and reads as no
face, but nothing parts its rectangles."""

from __future__ import annotations

import math

import cv2
import numpy as np

from referee.vision.split import Box

__all__ = ["seam_contrast", "seamless"]


def _neighbours(a: Box, b: Box, most_turn: float) -> tuple[float, float, float] | None:
    """How ``a`` and ``b`` meet when they lie end to end or side by side (the same way, turned
    at most ``most_turn`` degrees to each other, a side apart): the length of the side they
    share, and the unit direction square to it, from ``a`` towards ``b``; else None."""
    turn = abs((a.angle - b.angle + 90.0) % 180.0 - 90.0)
    if turn > most_turn:
        return None
    r = math.radians(a.angle)
    ux, uy = math.cos(r), math.sin(r)
    dx, dy = b.cx - a.cx, b.cy - a.cy
    along = dx * ux + dy * uy
    across = -dx * uy + dy * ux
    if 0.8 * a.length < abs(along) < 1.2 * a.length and abs(across) < 0.3 * a.width:
        sign = 1.0 if along > 0 else -1.0
        return min(a.width, b.width), sign * ux, sign * uy
    if 0.8 * a.width < abs(across) < 1.2 * a.width and abs(along) < 0.3 * a.length:
        sign = 1.0 if across > 0 else -1.0
        return min(a.length, b.length) - abs(along), -sign * uy, sign * ux
    return None


def seam_contrast(image: np.ndarray, a: Box, b: Box, side: float, towards: tuple[float, float]) -> float:
    """How far the line where boxes ``a`` and ``b`` (of the frame ``image``, BGR or grey) meet
    stands out from either side of it, in robust deviations of the grey levels beside it: the
    largest step, lighter or darker, of the profile across the line (in the unit direction
    ``towards``, over the middle of the ``side`` they share) within an eighth of a tile width of
    it, from the level of the profile a fifth of a width and more away."""
    width = min(a.width, b.width)
    dx, dy = towards
    half_x = max(4, round(0.35 * width))
    half_y = max(2, round(0.3 * side))
    mx, my = (a.cx + b.cx) / 2, (a.cy + b.cy) / 2
    # The patch's x runs from a towards b, its y along the shared side.
    m = np.array([[dx, -dy, mx - dx * half_x + dy * half_y],
                  [dy, dx, my - dy * half_x - dx * half_y]], np.float64)
    patch = cv2.warpAffine(image, m, (2 * half_x + 1, 2 * half_y + 1),
                           flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    if patch.ndim == 3:  # the patch alone made grey, not the frame
        patch = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    profile = np.median(patch, axis=0)
    x = np.abs(np.arange(2 * half_x + 1) - half_x)
    near = x <= max(1.0, 0.125 * width)
    far = x >= 0.2 * width
    left, right = profile[:half_x][far[:half_x]], profile[half_x + 1:][far[half_x + 1:]]
    if len(left) == 0 or len(right) == 0:
        return 0.0
    level = (float(np.median(left)) + float(np.median(right))) / 2
    beside = patch[:, far]
    spread = 1.4826 * float(np.median(np.abs(beside - np.median(beside, axis=1, keepdims=True))))
    step = float(np.max(np.abs(profile[near] - level)))
    return step / max(spread, 1.0)


def seamless(image: np.ndarray, boxes: list[Box], backs: set[int], least: float, most_turn: float) -> set[int]:
    """The ``backs`` (indices into ``boxes``, full-resolution packed rectangles read as no face)
    that meet other backs and show a seam (``least`` deviations: :func:`seam_contrast`) to none
    of them: not tiles. Only backs turned at most ``most_turn`` degrees to each other meet: a
    strip packed into rectangles comes out straight, and two tiles lying at an angle to each
    other are two tiles, whatever the wedge of table between them shows."""
    seamed: set[int] = set()
    met: set[int] = set()
    order = sorted(backs)
    for n, i in enumerate(order):
        for j in order[n + 1:]:
            meeting = _neighbours(boxes[i], boxes[j], most_turn)
            if meeting is None:
                continue
            side, tx, ty = meeting
            met.update((i, j))
            if seam_contrast(image, boxes[i], boxes[j], side, (tx, ty)) >= least:
                seamed.update((i, j))
    return met - seamed
