"""Which open end a new tile was laid on: the tile it touches is the end tile of one arm of the
rules table, touched where that arm stays open. Tiles are unique in a set, so the rules table
and the tile's name find the tile touched; geometry only says where on it."""

from __future__ import annotations

import dataclasses

from referee.layout.geometry import Contact, Part, Piece, end_of, side_of
from referee.rules import Tile
from referee.rules.table import DOWN, END_INDEX, ENDS, LEFT, RIGHT, UP, End, Table


@dataclasses.dataclass(frozen=True)
class Placement:
    """Where a new tile went: an ``end`` of the rules table (None when it touches the line
    where no end is), and ``reason`` when that place is closed whatever the tile: "no_such_end"
    (the middle of the line) or "end_closed" (the short side of a double that is not the
    spinner). ``touching`` is the new tile's half value against the line (None: unknown)."""

    end: End | None
    reason: str | None = None
    touching: int | None = None


def _end_tiles(table: Table) -> dict[int, Tile]:
    """The tile forming each end of the table: the last of its arm, else the opener (left and
    right) or the spinner (up and down)."""
    out: dict[int, Tile] = {}
    spinner = table.spinner_tile()
    for i in (LEFT, RIGHT, UP, DOWN):
        arm = table.arms[i]
        if arm:
            out[i] = arm[-1][0]
        elif i < UP and table.opener is not None:
            out[i] = table.opener
        elif i >= UP and spinner is not None:
            out[i] = spinner
    return out


def _before(table: Table, i: int) -> Tile | None:
    """The tile before the end tile of arm ``i`` (towards the opener)."""
    arm = table.arms[i]
    if len(arm) >= 2:
        return arm[-2][0]
    if len(arm) == 1:
        if i >= UP:
            return table.spinner_tile()
        return table.opener
    return None


def place(table: Table, new: Piece, contacts: list[Contact], pieces: dict[str, Piece]) -> Placement | None:
    """Where ``new`` went, from its contacts with the table's tiles (``pieces`` by tile name, the
    current frame's geometry); None when it touches no tile of the table."""
    by_index = {p.index: p for p in pieces.values()}
    ends = _end_tiles(table)
    found: list[Placement] = []
    closed: list[Placement] = []
    for c in contacts:
        if c.tile == new.index and c.other in by_index:
            other, other_port = by_index[c.other], _port_touched(by_index[c.other], c, new)
            mine = _own_half(new, c)
        elif c.other == new.index and c.tile in by_index:
            other = by_index[c.tile]
            other_port = ("long", c.side) if c.side else ("end", c.half) if other.is_double else ("half", c.half)
            mine = None if new.is_double else (c.other_half if c.part is not Part.MIDDLE else None)
        else:
            continue
        touching = None if mine is None else new.pips[mine]
        if new.is_double:
            touching = new.pips[0]
        tile = Tile(*other.pips)
        hits = [i for i, t in ends.items() if t is tile]
        if not hits:
            closed.append(Placement(None, "no_such_end", touching))
            continue
        end, why = _which(table, tile, other, other_port, hits, pieces)
        (found if end is not None else closed).append(Placement(end, why, touching))
    if found:
        matching = [p for p in found if p.end is not None and table.values[END_INDEX[p.end]] == p.touching]
        pool = matching or found
        distinct = {p.end for p in pool}
        if len(distinct) == 1:
            return pool[0]
        if all(p.end is not None and table.values[END_INDEX[p.end]] not in new.pips for p in pool):
            # Which end the tile went against is not clear, but it matches none of them: it is
            # illegal wherever it went.
            return Placement(None, "mismatch", new.pips[0] if new.is_double else None)
        return Placement(None, "ambiguous_end")
    return closed[0] if closed else None


def _own_half(new: Piece, c: Contact) -> int | None:
    """The half of the new tile that touches (its own probe)."""
    if c.side:
        return None
    return c.half


def _port_touched(other: Piece, c: Contact, new: Piece) -> tuple[str, int]:
    if other.is_double:
        if c.part is Part.END:
            return ("end", c.other_half)
        probe = new.side_point(c.side) if c.side else new.end_point(c.half)
        return ("long", side_of(other, probe))
    if c.part is Part.MIDDLE:
        return ("middle", 0)
    return ("half", c.other_half)


def _which(table: Table, tile: Tile, piece: Piece, port: tuple[str, int], hits: list[int],
           pieces: dict[str, Piece]) -> tuple[End | None, str | None]:
    """The end of ``hits`` (arms whose end tile is ``tile``) that ``port`` of it opens onto."""
    kind, k = port
    if kind == "middle":
        return None, "no_such_end"
    if not tile.is_double:
        value = piece.pips[k]
        for i in hits:
            if table.values[i] == value:
                return ENDS[i], None
        return None, "no_such_end"  # the half already joined to the line
    spinner = table.spinner_tile() is tile
    if kind == "end":
        if not spinner:
            return None, "end_closed"
        return ENDS[_up_or_down(table, piece, k, pieces)], None
    # Its long sides: the arms it ends, except the spinner's own short ends (arms still empty).
    long_hits = [i for i in hits if not (spinner and i >= UP and not table.arms[i])]
    if not long_hits:
        return None, "no_such_end"
    if len(long_hits) == 1:
        i = long_hits[0]
        before = _before(table, i)
        if before is not None and str(before) in pieces and side_of(piece, pieces[str(before)].centre) == k:
            return None, "no_such_end"  # the side the arm comes in by
        return ENDS[i], None
    # The opener double alone (or the spinner with both long arms empty): its sides are left
    # and right; an arm already laid says which is which.
    for i in (LEFT, RIGHT):
        if table.arms[i]:
            first = str(table.arms[i][0][0])
            if first in pieces:
                side = side_of(piece, pieces[first].centre)
                return (ENDS[i], None) if side == k else (ENDS[1 - i], None)
    return End.LEFT, None


def _up_or_down(table: Table, spinner: Piece, half: int, pieces: dict[str, Piece]) -> int:
    """UP or DOWN for the spinner's short end at ``half``: an arm already laid says which is
    which; else "up" is on the left hand walking the line from its left end to its right."""
    for i in (UP, DOWN):
        if table.arms[i]:
            first = str(table.arms[i][0][0])
            if first in pieces:
                same = end_of(spinner, pieces[first].centre) == half
                return i if same else (DOWN if i == UP else UP)
    left = table.arms[LEFT][0][0] if table.arms[LEFT] else None
    right = table.arms[RIGHT][0][0] if table.arms[RIGHT] else None
    if left is not None and right is not None and str(left) in pieces and str(right) in pieces:
        a, b = pieces[str(left)].centre, pieces[str(right)].centre
        d = (b[0] - a[0], b[1] - a[1])
        e = spinner.end_point(half)
        v = (e[0] - spinner.centre[0], e[1] - spinner.centre[1])
        return UP if v[0] * d[1] - v[1] * d[0] > 0 else DOWN
    return UP
