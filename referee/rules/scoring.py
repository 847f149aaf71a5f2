"""How a hand ends and what it is worth."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence

from referee.rules.variants import BlockedScoring, Rules


class Termination(enum.StrEnum):
    """Why a hand ended."""

    DOMINO = "domino"  # a player laid their last tile
    BLOCKED = "blocked"  # nobody can move
    TARGET = "target"  # fives: a player reached the target mid-hand

    def __repr__(self) -> str:
        return f"Termination.{self.name}"

    def __str__(self) -> str:
        return self.value


@dataclasses.dataclass(frozen=True)
class Outcome:
    """The end of a hand.

    ``winners`` is the winning player, or both partners, and empty for a tie. ``winner`` is the
    player who laid the last tile or reached the target; in a blocked hand the winner with the
    lowest seat. ``points`` is the end-of-hand award only (fives points scored during the hand
    are not in it); ``None`` when hidden hands make it unknowable.
    """

    termination: Termination
    winner: int | None
    winners: tuple[int, ...]
    points: int | None

    def result(self) -> str:
        return str(self.termination)


def round_to_five(points: int) -> int:
    """Fives rounding to the nearest five: 12 -> 10, 13 -> 15."""
    return (points + 2) // 5 * 5


def fives_points(count: int) -> int:
    """Points a play scores in fives when the open ends sum to ``count``."""
    return count if count > 0 and count % 5 == 0 else 0


def award(rules: Rules, termination: Termination, ender: int | None,
          pips: Sequence[int], tiles: Sequence[int]) -> Outcome:
    """The end-of-hand award from each player's remaining pip total and tile count."""
    n = rules.players
    if termination is Termination.TARGET:
        assert ender is not None
        winners = (ender, (ender + 2) % 4) if rules.partners else (ender,)
        return Outcome(termination, ender, tuple(sorted(winners)), 0)
    if rules.partners:
        sides = [pips[0] + pips[2], pips[1] + pips[3]]
        side_tiles = [tiles[0] + tiles[2], tiles[1] + tiles[3]]
        if termination is Termination.DOMINO:
            assert ender is not None
            side = ender % 2
            return Outcome(termination, ender, (side, side + 2), sides[1 - side])
        lower = _lowest(rules.blocked_scoring, sides, side_tiles)
        if lower is None:
            return Outcome(termination, None, (), 0)
        own, other = sides[lower], sides[1 - lower]
        pair_points = other - own if rules.blocked_scoring is BlockedScoring.DIFFERENCE else other
        return Outcome(termination, lower, (lower, lower + 2), pair_points)
    total = sum(pips)
    if termination is Termination.DOMINO:
        assert ender is not None
        points = total - pips[ender]
        winner: int | None = ender
    else:
        winner = _lowest(rules.blocked_scoring, pips, tiles)
        if winner is None:
            return Outcome(termination, None, (), 0)
        others = total - pips[winner]
        points = others - pips[winner] if rules.blocked_scoring is BlockedScoring.DIFFERENCE else others
    if rules.fives:
        points = round_to_five(points)
    assert winner is not None and 0 <= winner < n
    return Outcome(termination, winner, (winner,), points)


def _lowest(scoring: BlockedScoring | None, pips: Sequence[int], tiles: Sequence[int]) -> int | None:
    """The single seat (or side) that wins a blocked hand, or None on a tie."""
    if scoring is BlockedScoring.FEWEST_TILES:
        keys = list(zip(tiles, pips, strict=True))
    else:
        keys = [(p, 0) for p in pips]
    best = min(keys)
    if keys.count(best) > 1:
        return None
    return keys.index(best)
