"""Drawing what the vision saw over the frame, so a person sees at a glance what the referee saw:
tile outlines (green, orange when uncertain), the pip count on each half, face-down tiles in
blue, and a banner over an occluded frame. Sizes follow the image, so the drawing reads the same
at 1280x720 and at 4032x3024."""

from __future__ import annotations

import math

import cv2
import numpy as np

from referee.vision.types import Detection, Point, TileReading

# BGR colours.
CONFIDENT = (60, 200, 40)
UNCERTAIN = (0, 140, 255)
FACE_DOWN = (255, 120, 20)
OCCLUDED = (40, 40, 220)
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
FONT = cv2.FONT_HERSHEY_SIMPLEX


def _outline(tile: TileReading) -> np.ndarray:
    """The tile's corners; a tile read from JSON without corners gets a rectangle of twice its
    half-centre distance by that distance, around its halves."""
    corners = np.array(tile.corners, dtype=np.float64)
    if float(np.ptp(corners[:, 0])) + float(np.ptp(corners[:, 1])) > 0:
        return corners
    (x0, y0), (x1, y1) = tile.halves
    ax, ay = (x1 - x0), (y1 - y0)  # one half's length along the tile
    nx, ny = -ay / 2, ax / 2  # half the width across it
    cx, cy = tile.center
    return np.array([(cx - ax + nx, cy - ay + ny), (cx + ax + nx, cy + ay + ny),
                     (cx + ax - nx, cy + ay - ny), (cx - ax - nx, cy - ay - ny)])


def _poly(points: np.ndarray, scale: int = 4) -> np.ndarray:
    """Points in OpenCV's fixed point (``shift`` bits) for sub-pixel polylines."""
    return np.round(np.asarray(points) * (1 << scale)).astype(np.int32).reshape(-1, 1, 2)


def _text(image: np.ndarray, text: str, centre: Point, size: float, colour: tuple[int, int, int],
          thick: int) -> None:
    """Text centred on ``centre``, drawn over a dark outline so it reads on any tile."""
    (w, h), _ = cv2.getTextSize(text, FONT, size, thick)
    org = (round(centre[0] - w / 2), round(centre[1] + h / 2))
    cv2.putText(image, text, org, FONT, size, BLACK, thick + max(2, thick), cv2.LINE_AA)
    cv2.putText(image, text, org, FONT, size, colour, thick, cv2.LINE_AA)


def _banner(image: np.ndarray, text: str, colour: tuple[int, int, int], unit: float, top: int) -> int:
    """A filled strip with white text across the top-left; returns the y below it."""
    size = 0.9 * unit
    thick = max(1, round(2 * unit))
    (w, h), base = cv2.getTextSize(text, FONT, size, thick)
    pad = max(4, round(10 * unit))
    bottom = top + h + base + 2 * pad
    cv2.rectangle(image, (0, top), (min(image.shape[1] - 1, w + 2 * pad), bottom), colour, cv2.FILLED)
    cv2.putText(image, text, (pad, top + pad + h), FONT, size, WHITE, thick, cv2.LINE_AA)
    return bottom


def summary(detection: Detection) -> str:
    """What the frame holds in a few words."""
    if detection.occluded:
        return "a hand or arm over the table: frame ignored"
    unsure = len(detection.uncertain)
    text = f"{len(detection.tiles)} tiles"
    if unsure:
        text += f" ({unsure} uncertain)"
    return text + f", {len(detection.face_down)} face down"


def annotate(image: np.ndarray, detection: Detection) -> np.ndarray:
    """A new BGR image: ``image`` (BGR or grey, left untouched) with ``detection`` drawn over it."""
    out = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR) if image.ndim == 2 else image.copy()
    h, w = out.shape[:2]
    unit = max(h, w) / 1280.0  # 1 at 1280x720, about 3 at 4032x3024
    line = max(1, round(2 * unit))
    for down in detection.face_down:
        corners = np.array(down.corners, dtype=np.float64)
        if float(np.ptp(corners)) > 0:
            cv2.polylines(out, [_poly(corners)], True, FACE_DOWN, line, cv2.LINE_AA, shift=4)
        cv2.drawMarker(out, (round(down.center[0]), round(down.center[1])), FACE_DOWN, cv2.MARKER_TILTED_CROSS,
                       max(6, round(10 * unit)), line, cv2.LINE_AA)
    for tile in detection.tiles:
        colour = UNCERTAIN if tile.uncertain else CONFIDENT
        cv2.polylines(out, [_poly(_outline(tile))], True, colour, line, cv2.LINE_AA, shift=4)
        half = math.dist(tile.halves[0], tile.halves[1])  # one half's side in pixels
        # Text about half a half's side high (a scale-1 digit is about 22 px), never unreadably small.
        size = min(1.2 * unit, max(0.45 * unit, 0.6 * half / 22.0))
        thick = max(1, round(size * 2))
        for pips, centre in zip(tile.pips, tile.halves, strict=True):
            _text(out, f"{pips}?" if tile.uncertain else str(pips), centre, size, colour, thick)
    top = _banner(out, "OCCLUDED", OCCLUDED, 1.6 * unit, 0) if detection.occluded else 0
    _banner(out, summary(detection), (50, 50, 50), unit, top)
    return out
