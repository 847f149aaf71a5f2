"""What a hand knows: the deal, where every tile is, whose turn it is, and what may be played.

:class:`HandState` is the reading half of :class:`referee.rules.hand.Hand`: setting a hand up and
asking it questions. Every tile's location is kept in one array (a seat, the table, the known
boneyard, or unseen), and each seat's known tiles as a bitmask of tile indices, so the questions
asked on every move (``legal_plays``, ``can_play``) cost a few integer operations.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import NamedTuple, Self

from referee.rules.scoring import Outcome, Termination, award
from referee.rules.table import CLOSED, ENDS, End, LineOfPlay, Play, Table
from referee.rules.tiles import Tile, opening_rank, tile_set
from referee.rules.variants import Rules, Variant

# Where a tile is: a seat number (known to be in that hand) or one of these.
TABLE = -1
BONEYARD = -2  # known to be in the boneyard
UNSEEN = -3  # in an unseen hand slot or an unseen boneyard slot


class Action(NamedTuple):
    """An action as applied: ``kind`` is "play", "draw" or "pass"; ``tile`` is None for a pass
    or an unseen draw; ``points`` are the fives points a play scored."""

    player: int
    kind: str
    tile: Tile | None = None
    end: End | None = None
    points: int = 0


# One flat entry per action applied: the action's five fields (seat, kind, tile, end, points),
# then what undo needs to restore (turn, passes, drawn, unseen, boneyard): ``unseen`` says the
# tile came from (play) or went to (draw) an unseen slot, ``boneyard`` is the known boneyard an
# unseen draw forgot. Flat, because a play must cost as little as possible.
_Undo = tuple[int, str, Tile | None, End | None, int, int | None, int, int, bool, list[Tile] | None]


_PLAY_CACHE: dict[int, tuple[tuple[Play, ...], ...]] = {}
# Per set and end: a mask of tiles -> their plays at that end (memoised; at most 2**(n+1) masks
# per number, so it stays small).
_GROUP_CACHE: dict[int, tuple[dict[int, tuple[Play, ...]], ...]] = {}
_NUMBER_MASKS: dict[int, tuple[int, ...]] = {}


def _plays(max_pips: int) -> tuple[tuple[Play, ...], ...]:
    plays = _PLAY_CACHE.get(max_pips)
    if plays is None:
        plays = tuple(tuple(Play(t, e) for e in ENDS) for t in tile_set(max_pips))
        _PLAY_CACHE[max_pips] = plays
    return plays


def _number_masks(max_pips: int) -> tuple[int, ...]:
    masks = _NUMBER_MASKS.get(max_pips)
    if masks is None:
        tiles = tile_set(max_pips)
        masks = tuple(sum(1 << t.index for t in tiles if v in t) for v in range(max_pips + 1))
        _NUMBER_MASKS[max_pips] = masks
    return masks


_OPENING_ORDER: dict[int, tuple[Tile, ...]] = {}


def _opening_order(max_pips: int) -> tuple[Tile, ...]:
    """The set's tiles from the one that must open first: highest double down, then heaviest."""
    order = _OPENING_ORDER.get(max_pips)
    if order is None:
        order = tuple(sorted(tile_set(max_pips), key=opening_rank, reverse=True))
        _OPENING_ORDER[max_pips] = order
    return order


def shuffled(tiles: Sequence[Tile], rng: random.Random) -> list[Tile]:
    """A uniformly random order of ``tiles`` (sorting by random keys: faster than
    ``random.shuffle`` in pure Python, and as fair)."""
    keys = [rng.random() for _ in tiles]
    return [tiles[i] for i in sorted(range(len(tiles)), key=keys.__getitem__)]


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class HandState:
    """A hand's setting and knowledge (see :class:`referee.rules.hand.Hand` for the actions).

    ``deal`` lists each player's starting tiles (``None`` for a hand nobody saw); without a deal
    every hand is unseen. ``boneyard`` lists the boneyard in draw order, next drawn first; when
    the whole deal is known the boneyard is the rest of the set. ``leader`` is the seat that
    opens with any tile (a later hand); without it the first-hand opening rule applies, unless
    ``free_opening`` says the opener is not known (a later hand after a hand whose winner nobody
    saw): then any seat may open with any tile.
    ``scores`` are the match scores before this hand, for the fives target.
    """

    rules: Rules
    tiles: tuple[Tile, ...]
    table: Table
    leader: int | None
    free_opening: bool
    scores: list[int]
    points: list[int]
    turn: int | None
    required_tile: Tile | None
    opener: int | None
    _given_deal: Sequence[Sequence[Tile] | None] | None
    _given_boneyard: Sequence[Tile] | None
    _where: list[int]
    _known: list[int]
    _unknown: list[int]
    _held: list[int]
    _boneyard: list[Tile]
    _boneyard_unseen: int
    _stack: list[_Undo]
    _termination: Termination | None
    _ender: int | None

    __slots__ = (
        "_boneyard",
        "_boneyard_unseen",
        "_draw_count",
        "_drawing",
        "_drawn",
        "_ender",
        "_fives",
        "_full",
        "_given_boneyard",
        "_given_deal",
        "_groups",
        "_held",
        "_known",
        "_masks",
        "_n",
        "_passes",
        "_plays",
        "_set_size",
        "_stack",
        "_termination",
        "_unknown",
        "_where",
        "free_opening",
        "leader",
        "opener",
        "points",
        "required_tile",
        "rules",
        "scores",
        "table",
        "tiles",
        "turn",
    )

    def __init__(self, rules: Rules, deal: Sequence[Sequence[Tile] | None] | None = None,
                 boneyard: Sequence[Tile] | None = None, leader: int | None = None,
                 scores: Sequence[int] | None = None, free_opening: bool = False) -> None:
        n = rules.players
        if scores is not None and len(scores) != n:
            raise ValueError(f"scores must list {n} players, got {list(scores)}")
        if leader is not None and not 0 <= leader < n:
            raise ValueError(f"leader must be a seat from 0 to {n - 1}, got {leader}")
        self._blank(rules, leader, scores, free_opening)
        self._given_deal = deal
        self._given_boneyard = boneyard
        if deal is not None:
            self._deal(deal, boneyard)
        elif boneyard is not None:
            self._set_boneyard(boneyard)
        self._start()

    def _blank(self, rules: Rules, leader: int | None, scores: Sequence[int] | None,
               free_opening: bool) -> None:
        """Every field, for a hand of which nothing is known yet."""
        n, size = rules.players, rules.hand_size
        tiles = tile_set(rules.max_pips)
        self.rules = rules
        self.tiles = tiles
        self._plays = _plays(rules.max_pips)
        self._groups = _GROUP_CACHE.setdefault(rules.max_pips, ({}, {}, {}, {}))
        self._masks = _number_masks(rules.max_pips)
        self.table = Table(spinner_rule=bool(rules.spinner), max_pips=rules.max_pips)
        self.leader = leader
        self.free_opening = free_opening
        self.scores = list(scores) if scores is not None else [0] * n
        self._given_deal = None
        self._given_boneyard = None
        self._where = [UNSEEN] * len(tiles)
        self._known = [0] * n
        self._unknown = [size] * n
        self._held = [size] * n
        self._boneyard = []
        self._boneyard_unseen = len(tiles) - n * size
        #: Fives points scored in this hand by each player.
        self.points = [0] * n
        self._stack = []
        self._n = n
        self._fives = rules.variant is Variant.FIVES
        self._drawing = rules.drawing
        self._draw_count = rules.draw_count
        self._set_size = len(tiles)
        self._full = rules.max_pips + 1
        self._passes = 0
        self._drawn = 0
        self._termination = None
        self._ender = None

    def _start(self) -> None:
        self.required_tile, self.opener = self._opening()
        #: The seat to move, or None before the opening when the opener is not known.
        self.turn = self.opener

    @classmethod
    def deal_random(cls, rules: Rules, rng: random.Random, leader: int | None = None,
                    scores: Sequence[int] | None = None) -> Self:
        """Shuffle the set and deal it, as at the table."""
        if leader is not None and not 0 <= leader < rules.players:
            raise ValueError(f"leader must be a seat from 0 to {rules.players - 1}, got {leader}")
        tiles = shuffled(tile_set(rules.max_pips), rng)
        hand = cls.__new__(cls)
        hand._blank(rules, leader, scores, False)
        # A shuffled set needs none of the deal's checks: fill the hands in directly.
        k, n = rules.hand_size, rules.players
        where, known = hand._where, hand._known
        deal = []
        for seat in range(n):
            dealt = tiles[seat * k:(seat + 1) * k]
            mask = 0
            for tile in dealt:
                where[tile.index] = seat
                mask |= 1 << tile.index
            known[seat] = mask
            deal.append(dealt)
        rest = tiles[n * k:]
        for tile in rest:
            where[tile.index] = BONEYARD
        hand._unknown = [0] * n
        hand._boneyard = rest[::-1]
        hand._boneyard_unseen = 0
        hand._given_deal = deal
        hand._given_boneyard = rest
        hand._start()
        return hand

    # -- setting up ------------------------------------------------------------------------
    def _deal(self, deal: Sequence[Sequence[Tile] | None], boneyard: Sequence[Tile] | None) -> None:
        n, size = self.rules.players, self.rules.hand_size
        if len(deal) != n:
            raise ValueError(f"the deal must list {n} hands, got {len(deal)}")
        where, set_size = self._where, len(self.tiles)
        dealt: list[int] = []
        for seat, tiles in enumerate(deal):
            if tiles is None:
                continue
            if len(tiles) != size:
                raise ValueError(f"player {seat} must be dealt {size} tiles, got {len(tiles)}")
            indices = [tile.index for tile in tiles]
            if max(indices) >= set_size:
                bad = next(t for t in tiles if t.index >= set_size)
                raise ValueError(f"tile {bad} is not in a double-{self.rules.max_pips} set")
            mask = 0
            for index in indices:
                where[index] = seat
                mask |= 1 << index
            self._known[seat] = mask
            self._unknown[seat] = 0
            dealt += indices
        if len(set(dealt)) != len(dealt):
            twice = next(i for i in dealt if dealt.count(i) > 1)
            raise ValueError(f"tile {self.tiles[twice]} is dealt twice")
        if boneyard is not None:
            self._set_boneyard(boneyard)
        elif all(tiles is not None for tiles in deal):
            self._set_boneyard([t for t in self.tiles if where[t.index] == UNSEEN])

    def _set_boneyard(self, boneyard: Sequence[Tile]) -> None:
        expected = len(self.tiles) - self.rules.players * self.rules.hand_size
        if len(boneyard) != expected:
            raise ValueError(f"the boneyard must hold {expected} tiles, got {len(boneyard)}")
        for tile in boneyard:
            self._check_in_set(tile)
            if self._where[tile.index] != UNSEEN:
                raise ValueError(f"boneyard tile {tile} is also dealt or listed twice")
            self._where[tile.index] = BONEYARD
        self._boneyard = list(reversed(boneyard))  # drawn from the end
        self._boneyard_unseen = 0

    def _check_in_set(self, tile: Tile) -> None:
        if tile.high > self.rules.max_pips:
            raise ValueError(f"tile {tile} is not in a double-{self.rules.max_pips} set")

    def _opening(self) -> tuple[Tile | None, int | None]:
        """The tile the first play must be (None: any) and the seat that must lay it."""
        if self.leader is not None:
            return None, self.leader
        if self.free_opening:
            return None, None
        if self.rules.first_player is not None:
            return None, self.rules.first_player
        if not any(self._unknown):
            where = self._where
            for best in _opening_order(self.rules.max_pips):
                if where[best.index] >= 0:
                    return best, where[best.index]
        if self._boneyard_unseen == 0 and not self._boneyard:
            # Every tile is dealt (the partners game): the highest double is in someone's hand.
            double = self.tiles[-1]
            holder = self._where[double.index]
            return double, holder if holder >= 0 else None
        return None, None

    # -- reading ---------------------------------------------------------------------------
    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def opens_on_double(self) -> bool:
        """True when the first-hand rule says what opens: the highest double dealt, or, when no
        double was dealt, the heaviest tile. False for a hand with a leader, a free opening, or
        a first player named by the rules, where any tile may open."""
        return self.leader is None and not self.free_opening and self.rules.first_player is None

    @property
    def double_dealt(self) -> bool:
        """True when every deal holds a double: more tiles are dealt than the set has tiles
        that are not doubles."""
        m = self.rules.max_pips
        return self.rules.players * self.rules.hand_size > m * (m + 1) // 2

    def held(self, seat: int) -> list[Tile]:
        """The tiles ``seat`` is known to hold, in set order."""
        return [self.tiles[i] for i in _bits(self._known[seat])]

    def held_count(self, seat: int) -> int:
        """How many tiles ``seat`` holds, seen or not."""
        return self._held[seat]

    def unseen_in_hand(self, seat: int) -> int:
        return self._unknown[seat]

    def boneyard_size(self) -> int:
        return len(self._boneyard) + self._boneyard_unseen

    def drawable(self) -> int:
        """Tiles that may still be drawn (0 when the variant does not draw)."""
        if not self._drawing:
            return 0
        return max(0, len(self._boneyard) + self._boneyard_unseen - self.rules.keep_in_boneyard)

    def boneyard(self) -> list[Tile]:
        """The boneyard tiles known by name, in draw order (next drawn first)."""
        return list(reversed(self._boneyard))

    def initial_deal(self) -> tuple[list[list[Tile]] | None, list[Tile] | None]:
        """The deal and boneyard (in draw order) the hand started from, where they were known."""
        deal = None
        if self._given_deal is not None and all(t is not None for t in self._given_deal):
            deal = [list(t) for t in self._given_deal if t is not None]
        boneyard = list(self._given_boneyard) if self._given_boneyard is not None else None
        return deal, boneyard

    def open_ends(self) -> dict[End, int]:
        return self.table.open_ends()

    def line(self) -> LineOfPlay:
        return self.table.snapshot()

    @property
    def moves(self) -> list[Action]:
        """Every action applied so far, in order (like python-chess's ``move_stack``)."""
        return [Action(*entry[:5]) for entry in self._stack]

    def move_count(self) -> int:
        return len(self._stack)

    def move(self, index: int) -> Action:
        """One action applied (``-1``: the last), without building the whole list."""
        return Action(*self._stack[index][:5])

    def is_over(self) -> bool:
        return self._termination is not None

    def location(self, tile: Tile) -> int:
        """Seat holding ``tile``, or TABLE, BONEYARD or UNSEEN."""
        return self._where[tile.index]

    def can_play(self, seat: int) -> bool:
        """True if ``seat`` is known to hold a tile that fits an open end."""
        if self.table.size == 0:
            return self._held[seat] > 0
        known, masks = self._known[seat], self._masks
        for v in self.table.values:
            if v != CLOSED and known & masks[v]:
                return True
        return False

    def legal_plays(self) -> list[Play]:
        """Every placement the player to move may make: each tile they hold (or, for a hand not
        seen, each unseen tile they might hold) at each open end it fits."""
        seat = self.turn
        if self._termination is not None or seat is None:
            return []
        table = self.table
        if table.size == 0:
            return self._legal_openings(seat)
        mask = self._known[seat]
        if self._unknown[seat]:
            mask |= self._unseen_mask()
        if self._draw_count > 1 and self._drawn % self._draw_count and self.drawable():
            return []
        # The two ends of the line are always open; the spinner's up and down only sometimes.
        # Written out in full: this runs before every move of every simulated game.
        masks, groups = self._masks, self._groups
        left, right, up, down = table.values
        out: list[Play] = []
        m = mask & masks[left]
        if m:
            out += groups[0].get(m) or self._group(0, m)
        m = mask & masks[right]
        if m:
            out += groups[1].get(m) or self._group(1, m)
        if up != CLOSED:  # the spinner's short ends, open together
            for i, v in ((2, up), (3, down)):
                m = mask & masks[v]
                if m:
                    out += groups[i].get(m) or self._group(i, m)
        return out

    def _group(self, i: int, mask: int) -> tuple[Play, ...]:
        """The plays of the tiles in ``mask`` at end ``i``, memoised per set."""
        group = tuple(self._plays[k][i] for k in _bits(mask))
        self._groups[i][mask] = group
        return group

    def _legal_openings(self, seat: int) -> list[Play]:
        if self.required_tile is not None:
            if self._where[self.required_tile.index] in (seat, UNSEEN):
                return [Play(self.required_tile)]
            return []
        mask = self._known[seat] | (self._unseen_mask() if self._unknown[seat] else 0)
        return [Play(self.tiles[i]) for i in _bits(mask)]

    def _unseen_mask(self) -> int:
        return sum(1 << i for i, w in enumerate(self._where) if w == UNSEEN)

    def outcome(self) -> Outcome | None:
        """How the hand ended, or None while it is still being played."""
        termination = self._termination
        if termination is None:
            return None
        if termination is not Termination.TARGET and not self._all_known():
            ender = self._ender
            if termination is Termination.DOMINO and ender is not None:
                winners = (ender % 2, ender % 2 + 2) if self.rules.partners else (ender,)
                return Outcome(termination, ender, winners, None)
            return Outcome(termination, None, (), None)
        pips = [sum(t.pips for t in self.held(s)) for s in range(self.players)]
        return award(self.rules, termination, self._ender, pips, self._held)

    def _all_known(self) -> bool:
        return not any(self._unknown)
