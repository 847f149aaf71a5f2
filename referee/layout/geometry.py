"""Where tiles touch: each face-up tile as a rectangle of two square halves, and the contacts
between an end of one tile and the edge of another.

A tile's end touches another tile in one of three places:

- ``END``: the other tile's short end (two tiles end to end, or a spinner's arm leaving its
  short end);
- ``SIDE``: the long side of one of the other tile's halves (the corner of a snake: the tile
  after the turn lies across the line, its touching half just past the end);
- ``MIDDLE``: the middle of the other tile's long side, across its divider (the way a line
  meets a double lying crosswise; against any other tile it is a misplaced tile).

Distances are in units of the tile's width, so the same tolerances hold at any camera height.
"""

from __future__ import annotations

import dataclasses
import enum
import math

from referee.vision.types import Point, TileReading

Vec = tuple[float, float]


class Part(enum.StrEnum):
    """Where on a tile another tile's end touches."""

    END = "end"
    SIDE = "side"
    MIDDLE = "middle"

    def __repr__(self) -> str:
        return f"Part.{self.name}"


@dataclasses.dataclass(frozen=True)
class Piece:
    """A face-up tile as a rectangle: ``centre``, unit ``axis`` from half 0 to half 1, its
    ``length`` and ``width`` in pixels, and what was read on it."""

    index: int
    pips: tuple[int, int]
    centre: Point
    axis: Vec
    length: float
    width: float
    uncertain: bool = False

    @property
    def is_double(self) -> bool:
        return self.pips[0] == self.pips[1]

    @property
    def name(self) -> str:
        return f"{self.pips[0]}-{self.pips[1]}"

    def end_point(self, half: int) -> Point:
        """The middle of the short edge at ``half``."""
        sign = -1.0 if half == 0 else 1.0
        cx, cy = self.centre
        return (cx + sign * self.axis[0] * self.length / 2, cy + sign * self.axis[1] * self.length / 2)

    def alignment(self, other: Piece) -> float:
        """How nearly ``other`` lies the same way: the |cosine| of the angle between the axes
        (1 along, 0 square across)."""
        return abs(self.axis[0] * other.axis[0] + self.axis[1] * other.axis[1])

    def local(self, p: Point) -> Vec:
        """``p`` as (along, across) from the centre, in pixels."""
        dx, dy = p[0] - self.centre[0], p[1] - self.centre[1]
        ax, ay = self.axis
        return (dx * ax + dy * ay, -dx * ay + dy * ax)

    def side_point(self, side: int) -> Point:
        """The middle of the long side ``side`` (+1 or -1, the sign of ``local``'s across)."""
        cx, cy = self.centre
        nx, ny = -self.axis[1], self.axis[0]
        return (cx + side * nx * self.width / 2, cy + side * ny * self.width / 2)

    def outside(self, p: Point) -> float:
        """How far ``p`` lies outside the rectangle (0 inside)."""
        s, t = self.local(p)
        ds = max(abs(s) - self.length / 2, 0.0)
        dt = max(abs(t) - self.width / 2, 0.0)
        return math.hypot(ds, dt)


@dataclasses.dataclass(frozen=True)
class Contact:
    """The end at ``half`` of tile ``tile`` (or, for a double, the middle of its long side
    ``side``, +1 or -1, with ``half`` -1) touches tile ``other`` at ``part``: for ``END`` and
    ``SIDE``, ``other_half`` is the half touched; for ``MIDDLE`` it is -1."""

    tile: int
    half: int
    other: int
    part: Part
    other_half: int
    gap: float  # in tile widths
    side: int = 0


def piece(index: int, reading: TileReading) -> Piece:
    """The rectangle of one reading: its axis from half 0 to half 1; its length and width from
    the corners (or, without corners, from the distance between the half centres)."""
    (x0, y0), (x1, y1) = reading.halves
    dx, dy = x1 - x0, y1 - y0
    spacing = math.hypot(dx, dy)
    axis = (dx / spacing, dy / spacing) if spacing > 1e-9 else (1.0, 0.0)
    c = reading.corners
    sides = [math.dist(c[i], c[(i + 1) % 4]) for i in range(4)]
    if min(sides) > 1e-6:
        length, width = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
        if width > length:
            length, width = width, length
    else:
        length, width = 2 * spacing, spacing
    return Piece(index, reading.pips, reading.center, axis, length, width, reading.uncertain)


def contacts(pieces: list[Piece], reach: float = 0.5, middle: float = 0.25, facing: float = 0.2) -> list[Contact]:
    """Every contact of a tile's end (and of a double's long sides, which a line crosses) with
    another tile. ``reach`` is the largest gap, ``middle`` how near the divider a touch on a long
    side counts as the middle rather than one half, and ``facing`` how much of the touching edge
    the other tile must lie in front of (all in tile widths): tiles lying side by side, their
    ends flush, are half a width from each other's end but do not face it."""
    found: list[Contact] = []
    for a in pieces:
        probes = [(half, 0, a.end_point(half)) for half in (0, 1)]
        if a.is_double:
            probes += [(-1, side, a.side_point(side)) for side in (-1, 1)]
        for half, side, p in probes:
            best: Contact | None = None
            for b in pieces:
                if b is a:
                    continue
                unit = min(a.width, b.width)
                gap = b.outside(p) / unit
                if gap > reach or (best is not None and gap >= best.gap):
                    continue
                s, t = b.local(p)
                along_edge = a.axis if half < 0 else (-a.axis[1], a.axis[0])
                edge = (a.length if half < 0 else a.width) / 2
                if abs(_to_nearest(b, s, t, along_edge)) > edge - facing * unit:
                    continue  # b lies beside the edge, not in front of it
                # A tile's end deep inside another's rectangle is an overlap, not a contact.
                if b.length / 2 - abs(s) > 0.45 * unit and b.width / 2 - abs(t) > 0.45 * unit:
                    continue
                best = _classify(a, half, b, s, t, gap, middle, side)
            if best is not None:
                found.append(best)
    return found


def _to_nearest(b: Piece, s: float, t: float, direction: Vec) -> float:
    """How far along ``direction`` (a unit vector) the point of ``b`` nearest a point lies from
    it, the point given in ``b``'s frame (``s`` along, ``t`` across: :meth:`Piece.local`)."""
    ds = min(max(s, -b.length / 2), b.length / 2) - s
    dt = min(max(t, -b.width / 2), b.width / 2) - t
    ax, ay = b.axis
    dx, dy = ds * ax - dt * ay, ds * ay + dt * ax
    return dx * direction[0] + dy * direction[1]


def _classify(a: Piece, half: int, b: Piece, s: float, t: float, gap: float, middle: float,
              side: int) -> Contact:
    """Which edge of ``b`` the probe point (``s``, ``t`` in ``b``'s frame) is nearest to."""
    to_end = abs(abs(s) - b.length / 2)
    to_side = abs(abs(t) - b.width / 2)
    if to_end <= to_side:
        return Contact(a.index, half, b.index, Part.END, 0 if s < 0 else 1, gap, side)
    if abs(s) < middle * b.width:
        return Contact(a.index, half, b.index, Part.MIDDLE, -1, gap, side)
    return Contact(a.index, half, b.index, Part.SIDE, 0 if s < 0 else 1, gap, side)


def side_of(p: Piece, q: Point) -> int:
    """Which long side of ``p`` the point ``q`` lies on: +1 or -1."""
    return 1 if p.local(q)[1] >= 0 else -1


def end_of(p: Piece, q: Point) -> int:
    """Which half's short end of ``p`` the point ``q`` lies towards: 0 or 1."""
    return 0 if p.local(q)[0] < 0 else 1
