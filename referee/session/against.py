"""What the clear tiles touching a tile vision cannot read show against it: the numbers that pin
it down (shared by the opening and the plays)."""

from __future__ import annotations

from referee.layout.geometry import Contact, Part, Piece

__all__ = ["half_against", "middle_values", "value_against", "values_against"]


def half_against(u: Piece, found: list[Contact], others: set[int]) -> int | None:
    """The half of ``u`` that touches one of ``others`` (None: not by a half)."""
    for c in found:
        if c.tile == u.index and c.other in others and not c.side:
            return c.half
        if c.other == u.index and c.tile in others and c.other_half >= 0:
            return c.other_half
    return None


def value_against(u: Piece, found: list[Contact], placed: dict[int, Piece]) -> tuple[int, int] | None:
    """The half of ``u`` touching a tile of ``placed`` end to end, and the number that tile
    shows there (a double across, or a double's long side, shows its own number)."""
    for c in found:
        if c.tile == u.index and c.other in placed:
            q = placed[c.other]
            if c.half >= 0 and (q.is_double or c.other_half >= 0):
                return c.half, q.pips[0] if q.is_double else q.pips[c.other_half]
        elif c.other == u.index and c.tile in placed and c.other_half >= 0:
            q = placed[c.tile]
            if q.is_double or c.half >= 0:
                return c.other_half, q.pips[0] if q.is_double else q.pips[c.half]
    return None


def values_against(u: Piece, half: int, found: list[Contact], clear: dict[int, Piece]) -> list[tuple[Piece, int]]:
    """Tiles read clearly that touch ``half`` of ``u``, each with the number of its touching half."""
    out = []
    for c in found:
        if c.tile == u.index and c.half == half and c.other in clear and not c.side:
            q = clear[c.other]
            if q.is_double or c.other_half >= 0:
                out.append((q, q.pips[0] if q.is_double else q.pips[c.other_half]))
        elif c.other == u.index and c.other_half == half and c.tile in clear:
            q = clear[c.tile]
            out.append((q, q.pips[0] if q.is_double else q.pips[c.half]))
    return out


def middle_values(u: Piece, found: list[Contact], by: dict[int, Piece]) -> list[tuple[Piece, int]]:
    """Tiles of ``by`` whose end touches the middle of a long side of ``u`` (the way a line
    meets a double lying across it), each with the number of its touching half. Only a tile
    lying crosswise to ``u`` counts: a rectangle along the line that straddles a seam between
    two tiles (read as a double) has their ends inside it, not against its side."""
    return [(by[c.tile], by[c.tile].pips[c.half]) for c in found
            if c.other == u.index and c.part is Part.MIDDLE and c.tile in by and c.half >= 0 and not c.side
            and u.alignment(by[c.tile]) < 0.5]  # within 30 degrees of square: a tilt skews angles
