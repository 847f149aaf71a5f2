"""Placing a tile's rectangle on its pips. Every pip pattern of a domino half is symmetric about
the half's centre (the one, the diagonals, the corners, the rows of a six), so the pips of a
half centre on it, wherever the rectangle lies: the middle of the two halves' pips is the
tile's centre and the line through them its axis, whatever the face's edges (a side wall as dark
as the face, a shadow, a neighbour touching it) made of the rectangle."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from referee.vision.config import VisionConfig
from referee.vision.read import gather, gather_many, rectify, strong_peaks
from referee.vision.split import Box
from referee.vision.types import TileReading

__all__ = ["on_pips", "pip_lengths"]


def _centres(image: np.ndarray, box: Box, contrast: float, config: VisionConfig) -> list[np.ndarray | None] | None:
    """Where each half's pips centre, in the box's own axes (along, across; frame pixels from
    its centre), looked for in the box widened to ``pip_fit_room`` of its sides (a pip the box
    cuts off); None for a half showing none. None when fewer than ``pip_fit_least`` pips show
    in all: one or two (a speck, a back's grain, a neighbour's pip) place nothing."""
    room = dataclasses.replace(box, length=box.length * config.pip_fit_room, width=box.width * config.pip_fit_room)
    evidence = gather(rectify(image, room.corners(), config.cell_px), config)
    sides = strong_peaks(evidence, contrast, config)
    if sum(len(side) for side in sides) < config.pip_fit_least:
        return None
    out: list[np.ndarray | None] = []
    for side in sides:
        if not len(side):
            out.append(None)
            continue
        along = (side[:, 0] - 1.0) * room.length / 2
        across = (side[:, 1] - 0.5) * room.width
        out.append(np.array([float(along.mean()), float(across.mean())]))
    return out


def on_pips(image: np.ndarray, box: Box, contrast: float, config: VisionConfig) -> Box | None:
    """The box (full-resolution pixels) moved, and turned, to where its pips centre: the middle
    of its two halves' pips (a blank half: a quarter of a tile from the other's), found
    ``pip_fit_steps`` times over, each from the box the last found. None when the pips do not
    settle it: fewer than ``pip_fit_least`` pips, the halves' pips further apart or nearer than half a tile by more than
    ``pip_fit_spread`` of it (a neighbour's pip taken in, or a pip lost), a turn over
    ``pip_fit_turn`` degrees (over ``pip_fit_packed_turn`` in all for a packed box), or a move
    of more than ``pip_fit_reach`` of the tile's length."""
    if config.pip_fit_steps <= 0:
        return None
    now = box
    for _ in range(config.pip_fit_steps):
        centres = _centres(image, now, contrast, config)
        if centres is None:
            return None
        first, second = centres
        a = math.radians(now.angle)
        u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        if first is not None and second is not None:
            gap = float(second[0] - first[0])
            if abs(gap / (box.length / 2) - 1) > config.pip_fit_spread:
                return None
            turn = math.degrees(math.atan2(float(second[1] - first[1]), gap))
            if abs(turn) > config.pip_fit_turn:
                return None
            mid = (first + second) / 2
        elif first is not None:
            mid, turn = np.array([float(first[0]) + box.length / 4, float(first[1])]), 0.0
        else:  # _centres gives no centres at all when no pips show (pip_fit_least is at least 1)
            assert second is not None
            mid, turn = np.array([float(second[0]) - box.length / 4, float(second[1])]), 0.0
        centre = np.array([now.cx, now.cy]) + mid[0] * u + mid[1] * v
        now = dataclasses.replace(now, cx=float(centre[0]), cy=float(centre[1]), angle=now.angle + turn)
    if math.dist((now.cx, now.cy), (box.cx, box.cy)) > config.pip_fit_reach * box.length:
        return None
    # A packed rectangle lies along its blob's edges: its own tile's pips do not turn it far (a
    # neighbour's pip taken in does).
    if box.packed and abs(now.angle - box.angle) > config.pip_fit_packed_turn:
        return None
    return now


def pip_lengths(image: np.ndarray, tiles: Sequence[TileReading],
                config: VisionConfig) -> list[tuple[float, float, float]]:
    """The tile length each tile read surely with pips on both halves shows by its pips, where
    it lies (x, y, length; frame pixels): each half's pips centre on the half, so the halves'
    centres lie half a tile apart, whatever the tile's side walls and shadow add to its
    outline, or the frame's tile length to its rectangle. (A rectangle shorter than its tile
    finds the pips by its ends inwards, and shows the tile shorter still.)"""
    sure = [t for t in tiles if not t.uncertain and min(t.pips) > 0]
    corners = [np.array(t.corners, np.float64) for t in sure]
    found = gather_many([rectify(image, c, config.cell_px) for c in corners], config)
    out = []
    for tile, c, evidence in zip(sure, corners, found, strict=True):
        # Each half's pips against its own strongest (the contrast 0 leaves that cut alone).
        first, second = strong_peaks(evidence, 0.0, config)
        if not len(first) or not len(second):
            continue
        cells = float(second[:, 0].mean() - first[:, 0].mean())  # the halves' centres apart, in cells
        out.append((tile.center[0], tile.center[1], cells * math.dist(c[0], c[1])))
    return out
