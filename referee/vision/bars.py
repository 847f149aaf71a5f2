"""Divider bars found over the whole frame, with no table model and no face colour.

Every face has a divider: a straight bar across its middle, darker than the face (ivory tiles)
or lighter (black tiles), far longer than it is thick, and as long as most of the face is
wide. Such a bar stands out against the pixels round it whatever the table and the light do,
so it says where a tile lies even where the table's model went astray (a white table lit warm
at one end and cool at the other) or the tiles touch in a line that parts into no tile-shaped
blob. :func:`divider_bars` finds the bars; :mod:`referee.vision.rescue` reads tiles on them."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from referee.vision.config import VisionConfig

__all__ = ["Bar", "divider_bars"]


@dataclasses.dataclass(frozen=True)
class Bar:
    """A straight bar in frame pixels: its centre, length, thickness and the direction it runs
    (degrees), and whether it is darker than round it (``dark``) or lighter."""

    cx: float
    cy: float
    length: float
    thickness: float
    angle: float
    dark: bool = True

    def __repr__(self) -> str:
        return (f"Bar({self.cx:.1f}, {self.cy:.1f}, {self.length:.1f}, {self.thickness:.1f}, "
                f"{self.angle:.1f}, dark={self.dark})")


def divider_bars(image: np.ndarray, config: VisionConfig, lightness: np.ndarray | None = None) -> list[Bar]:
    """The bars of a BGR frame that may be dividers (see the module's note), longest first: blobs
    standing ``bar_ink`` lightness levels darker (or lighter) than the mean over a window of
    ``bar_window`` of the frame's longer side round them, at least ``bar_aspect`` times as long
    as they are thick, filling ``bar_fill`` of their rectangle, and ``bar_least_px`` long at
    least. The frame is searched shrunk to at most ``work_side`` pixels, or on ``lightness``
    when given (its Lab lightness, 0..255, at any scale: the detector has it at hand); the bars
    are in the frame's own pixels. The frame is not modified; a frame with none gives an empty
    list."""
    h, w = image.shape[:2]
    if lightness is None:
        scale = min(1.0, config.work_side / max(h, w))
        work = image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        lightness = cv2.cvtColor(work, cv2.COLOR_BGR2Lab)[..., 0]
    else:
        scale = lightness.shape[1] / w
    lightness = lightness.astype(np.float32)
    k = max(3, round(config.bar_window * max(lightness.shape[:2]))) | 1
    off = lightness - cv2.blur(lightness, (k, k))
    found: list[Bar] = []
    for dark, mask in ((True, off < -config.bar_ink), (False, off > config.bar_ink)):
        found.extend(_bars_in(mask.view(np.uint8), dark, config, scale))
    found.sort(key=lambda b: -b.length)
    return found


def _bars_in(mask: np.ndarray, dark: bool, config: VisionConfig, scale: float) -> list[Bar]:
    """The blobs of a 0/1 mask (work pixels at ``scale``) shaped like a bar, in frame pixels."""
    _, comp, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out: list[Bar] = []
    least = config.bar_least_px * scale
    # Most blobs (specks of grain and noise) are too small to be bars: passed over at once.
    big = (np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) >= least) \
        & (stats[:, cv2.CC_STAT_AREA] >= least)
    big[0] = False
    for i in np.flatnonzero(big):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        ys, xs = np.nonzero(comp[y:y + bh, x:x + bw] == i)
        pts = np.stack([xs + x, ys + y], axis=1).astype(np.float32)
        (cx, cy), (a, b), angle = cv2.minAreaRect(pts)
        long, thick = max(a, b), max(min(a, b), 1.0)
        if long < least or long < config.bar_aspect * thick or area < config.bar_fill * long * thick:
            continue
        out.append(Bar(float(cx) / scale, float(cy) / scale, float(long) / scale, float(thick) / scale,
                       float(angle) if a >= b else float(angle) + 90.0, dark))
    return out
