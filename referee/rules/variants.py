"""Variants and house rules: the :class:`Rules` object every hand and match is played under."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from referee.rules.errors import RulesError
from referee.rules.tiles import set_size

#: The largest set a table can agree on (double-eighteen is the largest made).
MAX_SET_PIPS = 18


class Variant(enum.StrEnum):
    """The game played: the draw game is the default of the Polish family rule sheet."""

    DRAW = "draw"
    BLOCK = "block"
    FIVES = "fives"
    PARTNERS = "partners"

    def __repr__(self) -> str:
        return f"Variant.{self.name}"

    def __str__(self) -> str:
        return self.value


class BlockedScoring(enum.StrEnum):
    """How a blocked hand is won and scored."""

    DIFFERENCE = "difference"  # lowest pip total wins, scores the others' pips minus its own
    OPPONENTS = "opponents"  # lowest pip total wins, scores the others' pips
    FEWEST_TILES = "fewest_tiles"  # fewest tiles, then fewest pips, wins the others' pips

    def __repr__(self) -> str:
        return f"BlockedScoring.{self.name}"

    def __str__(self) -> str:
        return self.value


#: Tiles per player by number of players for the common deals named in the rule sheets.
HAND_SIZES: dict[str, dict[int, int]] = {
    "7/5/5": {2: 7, 3: 5, 4: 5},  # Polish family sheet, Swedish sheet (default)
    "7/7/6": {2: 7, 3: 7, 4: 6},  # Danish sheet; the Polish FAQ's "some tables"
    "8/7/5": {2: 8, 3: 7, 4: 5},  # Polish beginners' sheet
}


def default_hand_size(variant: Variant, players: int, max_pips: int = 6) -> int:
    """Tiles dealt to each player when the rules do not say: 7 for two, 5 for three or four,
    all tiles shared out in the partners game."""
    if variant is Variant.PARTNERS:
        return set_size(max_pips) // 4
    # The Polish family sheet's deal; five or more players (a larger set) take five too.
    return HAND_SIZES["7/5/5"].get(players, 5)


@dataclasses.dataclass(frozen=True)
class Rules:
    """Every option a table agrees on before the game.

    ``first_player`` is a seat chosen by the table (the youngest, say): that seat opens the
    first hand with any tile instead of the highest double. ``spinner`` makes the first double
    a four-way spinner (the default in fives, a house rule elsewhere).
    """

    variant: Variant = Variant.DRAW
    players: int = 2
    hand_size: int = 0  # 0: the default for the variant and player count
    target: int = 100
    max_pips: int = 6
    draw_when_able: bool = False
    keep_in_boneyard: int = 0
    blocked_scoring: BlockedScoring | None = None  # None: the variant's default
    draw_count: int = 1
    first_player: int | None = None
    spinner: bool | None = None  # None: the variant's default (on in fives only)

    def __post_init__(self) -> None:
        fix = object.__setattr__
        try:
            fix(self, "variant", Variant(self.variant))
        except ValueError:
            raise RulesError(f"unknown variant {self.variant!r}; expected one of "
                             f"{', '.join(v.value for v in Variant)}", "variant") from None
        if self.blocked_scoring is None:
            default = BlockedScoring.OPPONENTS if self.variant is Variant.PARTNERS else BlockedScoring.DIFFERENCE
            fix(self, "blocked_scoring", default)
        else:
            try:
                fix(self, "blocked_scoring", BlockedScoring(self.blocked_scoring))
            except ValueError:
                raise RulesError(f"unknown blocked_scoring {self.blocked_scoring!r}; expected one of "
                                 f"{', '.join(v.value for v in BlockedScoring)}", "blocked_scoring") from None
        if self.spinner is None:
            fix(self, "spinner", self.variant is Variant.FIVES)
        for name in ("players", "hand_size", "target", "max_pips", "keep_in_boneyard", "draw_count"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise RulesError(f"{name} must be a whole number, got {value!r}", name)
        for name in ("draw_when_able", "spinner"):
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"{name} must be true or false, got {getattr(self, name)!r}", name)
        if not 1 <= self.max_pips <= MAX_SET_PIPS:
            raise RulesError(f"max_pips must lie between 1 and {MAX_SET_PIPS}, got {self.max_pips}", "max_pips")
        if self.variant is Variant.PARTNERS and self.players != 4:
            raise RulesError(f"the partners game is for 4 players, got {self.players}", "players")
        if self.players < 2:
            raise RulesError(f"players must be at least 2, got {self.players}", "players")
        if self.players > 4 and self.max_pips <= 6:
            raise RulesError(f"{self.players} players need a larger set than double-{self.max_pips} "
                             "(the rule sheets: 2 to 4 players); use max_pips 9 or 12", "players")
        if self.hand_size == 0:
            fix(self, "hand_size", default_hand_size(self.variant, self.players, self.max_pips))
        if self.hand_size < 1:
            raise RulesError(f"hand_size must be at least 1, got {self.hand_size}", "hand_size")
        total = set_size(self.max_pips)
        if self.hand_size * self.players > total:
            raise RulesError(f"{self.players} players with {self.hand_size} tiles each need "
                             f"{self.hand_size * self.players} tiles; a double-{self.max_pips} set has {total}",
                             "hand_size")
        if self.target < 1:
            raise RulesError(f"target must be at least 1, got {self.target}", "target")
        if self.keep_in_boneyard < 0:
            raise RulesError(f"keep_in_boneyard must not be negative, got {self.keep_in_boneyard}", "keep_in_boneyard")
        if self.draw_count < 1:
            raise RulesError(f"draw_count must be at least 1, got {self.draw_count}", "draw_count")
        if self.first_player is not None and (
            not isinstance(self.first_player, int) or isinstance(self.first_player, bool)
            or not 0 <= self.first_player < self.players
        ):
            raise RulesError(f"first_player must be a seat from 0 to {self.players - 1}, got {self.first_player!r}",
                             "first_player")

    @property
    def drawing(self) -> bool:
        """Whether players draw from the boneyard (the draw game and fives)."""
        return self.variant in (Variant.DRAW, Variant.FIVES)

    @property
    def fives(self) -> bool:
        return self.variant is Variant.FIVES

    @property
    def partners(self) -> bool:
        return self.variant is Variant.PARTNERS

    @property
    def set_size(self) -> int:
        return set_size(self.max_pips)

    def to_dict(self) -> dict[str, Any]:
        """The ``rules`` object of a game record (every option written out)."""
        out: dict[str, Any] = {
            "hand_size": self.hand_size,
            "target": self.target,
            "max_pips": self.max_pips,
            "draw_when_able": self.draw_when_able,
            "keep_in_boneyard": self.keep_in_boneyard,
            "blocked_scoring": str(self.blocked_scoring),
            "draw_count": self.draw_count,
            "spinner": self.spinner,
        }
        if self.first_player is not None:
            out["first_player"] = self.first_player
        return out
