"""The end-of-hand reveal: whose tiles are whose. Each player lays the tiles still held face up
in a row at their edge of the table; the rows are found as groups of nearby tiles and matched to
the seats by how many tiles each seat holds, then by the edge each row lies at. Where each seat
sits is told (``seats``: each seat's direction from the middle of the frame, in degrees, 0 to
the right, 90 down); by default seats go clockwise from the bottom edge of the frame: two players
bottom and top; four bottom, left, top, right."""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence

from referee.vision.types import TileReading

DEFAULT_SEATS = {2: (90.0, 270.0), 3: (90.0, 180.0, 270.0), 4: (90.0, 180.0, 270.0, 0.0)}


def _width(t: TileReading) -> float:
    (x0, y0), (x1, y1) = t.halves
    return max(math.hypot(x1 - x0, y1 - y0), 1.0)


def groups(tiles: Sequence[TileReading], link: float = 2.0) -> list[list[int]]:
    """Tiles joined when their centres are within ``link`` tile widths (single linkage)."""
    n = len(tiles)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in itertools.combinations(range(n), 2):
        reach = link * min(_width(tiles[i]), _width(tiles[j]))
        if math.dist(tiles[i].center, tiles[j].center) <= reach:
            parent[root(i)] = root(j)
    out: dict[int, list[int]] = {}
    for i in range(n):
        out.setdefault(root(i), []).append(i)
    return sorted(out.values())


def _edges(players: int, seats: Sequence[float] | None) -> list[tuple[float, float]] | None:
    """Each seat's direction from the middle of the frame as a unit vector (``seats`` in
    degrees, else the default for that many players); None when it is not known."""
    angles = seats if seats is not None else DEFAULT_SEATS.get(players)
    return None if angles is None else [(math.cos(math.radians(a)), math.sin(math.radians(a))) for a in angles]


def _facing(row: Sequence[TileReading], size: tuple[int, int], edge: tuple[float, float]) -> float:
    """How squarely a row of tiles lies towards a seat's edge (its direction ``edge`` from the
    middle of the frame): the cosine between that and the row's direction from the middle."""
    x = sum(t.center[0] for t in row) / len(row) - size[0] / 2
    y = sum(t.center[1] for t in row) / len(row) - size[1] / 2
    return (x * edge[0] + y * edge[1]) / (math.hypot(x, y) or 1.0)


def row_seat(tiles: Sequence[TileReading], size: tuple[int, int], players: int,
             seats: Sequence[float] | None = None) -> int | None:
    """The seat whose edge a single row of tiles lies at; None when the tiles are not one row,
    or where the seats sit is not known."""
    edges = _edges(players, seats)
    if not tiles or edges is None or len(groups(tiles)) != 1:
        return None
    return max(range(len(edges)), key=lambda s: _facing(tiles, size, edges[s]))


def assign_seats(tiles: Sequence[TileReading], held: Sequence[int], size: tuple[int, int],
                 seats: Sequence[float] | None = None) -> list[list[TileReading]] | None:
    """Each seat's revealed tiles, or None when the rows cannot be told apart."""
    players = len(held)
    holders = [s for s in range(players) if held[s] > 0]
    if sum(held) != len(tiles):
        return None
    out: list[list[TileReading]] = [[] for _ in range(players)]
    if len(holders) == 1:
        out[holders[0]] = list(tiles)
        return out
    rows = groups(tiles)
    if len(rows) != len(holders):
        return None
    edges = _edges(players, seats)
    best: tuple[float, tuple[int, ...]] | None = None
    for seats in itertools.permutations(holders):
        if any(len(row) != held[s] for row, s in zip(rows, seats, strict=True)):
            continue
        score = 0.0
        if edges is not None:
            for row, s in zip(rows, seats, strict=True):
                score += _facing([tiles[i] for i in row], size, edges[s])
        if best is None or score > best[0]:
            best = (score, seats)
    if best is None:
        return None
    for row, s in zip(rows, best[1], strict=True):
        out[s] = [tiles[i] for i in row]
    return out


def lone_back(backs: Sequence[tuple[float, float]], tiles: Sequence[TileReading],
              link: float = 2.0) -> tuple[float, float] | None:
    """The one face-down place with no other within ``link`` tile widths (the median width of
    ``tiles``, the face-up tiles) of it: a tile lying apart from the boneyard. None when no
    place, or several, lie apart, or no tile tells the width."""
    if not tiles:
        return None
    width = sorted(_width(t) for t in tiles)[len(tiles) // 2]
    apart = [b for i, b in enumerate(backs)
             if all(math.dist(b, o) > link * width for j, o in enumerate(backs) if j != i)]
    return apart[0] if len(apart) == 1 else None


def placed_like(model: TileReading, pips: tuple[int, int], at: tuple[float, float]) -> TileReading:
    """A reading of ``pips`` at ``at``, shaped and turned as ``model`` (a tile vision did not read
    as a face, where a reveal's rows are told apart by where the tiles lie), not sure of itself."""
    dx, dy = at[0] - model.center[0], at[1] - model.center[1]
    (a, b), (c, d) = ((x + dx, y + dy) for x, y in model.halves)
    corners = tuple((x + dx, y + dy) for x, y in model.corners)
    return dataclasses.replace(model, pips=pips, halves=((a, b), (c, d)), corners=corners,  # type: ignore[arg-type]
                               center=at, confidence=0.0, uncertain=True, half_confidence=None)
