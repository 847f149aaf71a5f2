"""One hand of dominoes: the mutable game object, modelled on python-chess's ``Board``.

A :class:`Hand` knows the rules, the line of play, and whatever is known of the hands and the
boneyard. A simulated hand knows everything; a hand judged from a record may know nothing of the
players' tiles, and then checks what it can (placements, fives points, certain blocks).

``play()``, ``draw()`` and ``pass_turn()`` check the action and raise :class:`IllegalAction`
(a ``ValueError``) without changing anything if it breaks a rule; ``undo()`` takes back the last
action exactly.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from referee.rules.errors import IllegalAction, Reason
from referee.rules.scoring import Outcome, Termination, award
from referee.rules.table import CLOSED, END_INDEX, ENDS, UP, End, LineOfPlay, Play, Table
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


class Hand:
    """A hand in play.

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
                    scores: Sequence[int] | None = None) -> Hand:
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
        masks, groups = self._masks, self._groups
        out: list[Play] = []
        i = 0
        for v in table.values:
            if v != CLOSED:
                m = mask & masks[v]
                if m:
                    group = groups[i].get(m)
                    if group is None:
                        group = self._group(i, m)
                    out += group
            i += 1
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

    # -- acting ----------------------------------------------------------------------------
    def _fail(self, reason: Reason, seat: int | None, action: Play | Tile | str | None) -> IllegalAction:
        """The error for ``action`` by ``seat``: a Play, a drawn Tile, "a tile" or "pass"."""
        who = f"player {seat if seat is not None else self.turn}"
        if isinstance(action, Play):
            what = f"{who} plays {action}"
        elif action == "pass":
            what = f"{who} passes"
        else:
            what = f"{who} draws {action}"
        ends = ", ".join(f"{e}={v}" for e, v in self.open_ends().items()) or "empty table"
        return IllegalAction(reason, f"{what}: {reason.value} (table: {ends}; to move: {self.turn})")

    def _check_turn(self, seat: int | None, what: Play | Tile | str | None) -> int:
        """The seat acting, after the hand_over and out_of_turn checks. The first hand's
        opening play is judged by the opening rule (wrong_opening), not by the turn."""
        if self._termination is not None:
            raise self._fail(Reason.HAND_OVER, seat, what)
        turn = self.turn
        if seat is None:
            if turn is None:
                raise ValueError("no seat given and the opener is not known: name the player")
            return turn
        if not 0 <= seat < self.rules.players:
            raise ValueError(f"there is no seat {seat} at a {self.rules.players}-player table")
        if turn is not None and seat != turn and (
            self.leader is not None or self.table.size or not isinstance(what, Play)
        ):
            raise self._fail(Reason.OUT_OF_TURN, seat, what)
        return seat

    def play(self, play: Play, seat: int | None = None) -> int:
        """Lay a tile; returns the fives points it scored. ``seat`` (default: the player to
        move) is checked against the turn."""
        tile, end, what = play.tile, play.end, play
        turn = self.turn
        if seat is None:
            seat = turn
        if seat is None or seat != turn or self._termination is not None:
            seat = self._check_turn(seat, what)
        if tile.index >= self._set_size:
            raise self._fail(Reason.NOT_IN_SET, seat, what)
        where = self._where[tile.index]
        if where == TABLE:
            raise self._fail(Reason.DUPLICATE, seat, what)
        unseen = where != seat
        if unseen and not (where == UNSEEN and self._unknown[seat] > 0):
            raise self._fail(Reason.NOT_IN_HAND, seat, what)
        table = self.table
        if table.size == 0:
            return self._open(play, seat, unseen)
        values = table.values
        if end is not None:
            i = END_INDEX[end]
            if i >= UP:
                if table.spinner is None:
                    raise self._fail(Reason.NO_SUCH_END, seat, what)
                if values[i] == CLOSED:
                    raise self._fail(Reason.END_CLOSED, seat, what)
            v = values[i]
            if tile.high == v:
                outer = tile.low
            elif tile.low == v:
                outer = tile.high
            else:
                raise self._fail(Reason.MISMATCH, seat, what)
        else:
            fits = [k for k in (0, 1, 2, 3) if values[k] != CLOSED and values[k] in tile]
            if not fits:
                raise self._fail(Reason.MISMATCH, seat, what)
            if len(fits) > 1 and not (table.size == 1 and table.opener is not None and table.opener.is_double):
                raise self._fail(Reason.AMBIGUOUS_END, seat, what)
            i = fits[0]
            outer = tile.other(values[i])
        if self._draw_count > 1 and self._drawn % self._draw_count and self.drawable():
            raise self._fail(Reason.MUST_DRAW, seat, what)
        return self._apply(seat, tile, i, outer, unseen)

    def push(self, play: Play) -> int:
        """Apply a play taken from :meth:`legal_plays` in this very position without checking it
        again, as python-chess's ``push`` does: for bots and search. Anything else goes through
        :meth:`play`, which checks every rule."""
        table = self.table
        if table.size == 0 or play.end is None:
            return self.play(play)
        tile, seat = play.tile, self.turn
        assert seat is not None
        i = END_INDEX[play.end]
        outer = tile.low if tile.high == table.values[i] else tile.high
        return self._apply(seat, tile, i, outer, self._where[tile.index] != seat)

    def _open(self, play: Play, seat: int, unseen: bool) -> int:
        tile, what = play.tile, play
        if self.required_tile is not None and tile is not self.required_tile:
            raise self._fail(Reason.WRONG_OPENING, seat, what)
        if self.leader is None and self.opener is not None and seat != self.opener:
            raise self._fail(Reason.WRONG_OPENING, seat, what)
        if play.end is not None and END_INDEX[play.end] >= UP:
            raise self._fail(Reason.NO_SUCH_END, seat, what)
        if play.left is not None and play.left not in tile:
            raise ValueError(f"player {seat} plays {tile}: the opening tile has no half {play.left}")
        return self._apply(seat, tile, -1, play.left if play.left is not None else tile.high, unseen)

    def _apply(self, seat: int, tile: Tile, i: int, outer: int, unseen: bool) -> int:
        """Lay ``tile`` at end ``i`` leaving ``outer`` open (for the opening, ``i`` is -1 and
        ``outer`` the half at the left end); the play has been checked."""
        if unseen:
            self._unknown[seat] -= 1
        else:
            self._known[seat] ^= 1 << tile.index
        self._where[tile.index] = TABLE
        self._held[seat] -= 1
        table = self.table
        if i < 0:
            table.place_opener(tile, outer)
            end = None
        else:
            table.place(tile, i, outer)
            end = ENDS[i]
        points = 0
        if self._fives:
            count = table.fives_count()
            if count and count % 5 == 0:
                points = count
                self.points[seat] += points
        self._stack.append((seat, "play", tile, end, points, self.turn, self._passes, self._drawn, unseen, None))
        self._passes = 0
        self._drawn = 0
        self.turn = (seat + 1) % self._n
        # Blocked for certain: every tile showing an open-end number is on the table (the
        # first test nearly always fails, so this is Table.is_blocked without the call).
        values, on_table, full = table.values, table.count, self._full
        if self._held[seat] == 0:
            self._end(Termination.DOMINO, seat)
        elif on_table[values[0]] == full and on_table[values[1]] == full and table.is_blocked():
            self._end(Termination.BLOCKED, None)
        elif points and self._reached_target(seat):
            self._end(Termination.TARGET, seat)
        return points

    def _reached_target(self, seat: int) -> bool:
        if self.rules.partners:
            return self.scores[seat] + self.points[seat] + self.points[(seat + 2) % 4] >= self.rules.target
        return self.scores[seat] + self.points[seat] >= self.rules.target

    def _end(self, termination: Termination, ender: int | None) -> None:
        self._termination = termination
        self._ender = ender

    def draw(self, tile: Tile | None = None, seat: int | None = None, unseen: bool = False) -> Tile | None:
        """Draw one tile from the boneyard. ``tile`` names the tile drawn; without it a known
        boneyard gives its next tile, and an unseen draw (``unseen=True``) adds a tile nobody
        saw. Returns the tile drawn, if known."""
        what: Tile | str = tile if tile is not None else "a tile"
        seat = self._check_turn(seat, what)
        if tile is not None:
            if tile.high > self.rules.max_pips:
                raise self._fail(Reason.NOT_IN_SET, seat, what)
            if self._where[tile.index] == TABLE:
                raise self._fail(Reason.DUPLICATE, seat, what)
        if not self.rules.drawing:
            raise self._fail(Reason.NO_DRAWING, seat, what)
        if self.drawable() <= 0:
            raise self._fail(Reason.BONEYARD_EMPTY, seat, what)
        if tile is not None:
            where = self._where[tile.index]
            if not (where == BONEYARD or (where == UNSEEN and self._boneyard_unseen > 0)):
                raise self._fail(Reason.NOT_IN_BONEYARD, seat, what)
        self._check_may_draw(seat, what)
        saved: list[Tile] | None = None
        if tile is None and not unseen and self._boneyard_unseen == 0:
            tile = self._boneyard[-1]
        if tile is None:
            saved = list(self._boneyard)
            if self._boneyard:  # an unseen draw from a known boneyard: forget which tiles are left
                for t in self._boneyard:
                    self._where[t.index] = UNSEEN
                self._boneyard_unseen += len(self._boneyard)
                self._boneyard = []
        self._stack.append((seat, "draw", tile, None, 0, self.turn, self._passes, self._drawn, tile is None, saved))
        if tile is None:
            self._boneyard_unseen -= 1
            self._unknown[seat] += 1
        else:
            if self._where[tile.index] == BONEYARD:
                self._boneyard.remove(tile)
            else:
                self._boneyard_unseen -= 1
            self._where[tile.index] = seat
            self._known[seat] |= 1 << tile.index
        self._held[seat] += 1
        self._drawn += 1
        self.turn = seat
        return tile

    def _check_may_draw(self, seat: int, what: Tile | str) -> None:
        if self.table.size == 0:
            raise self._fail(Reason.MUST_PLAY, seat, what)
        mid_batch = self.rules.draw_count > 1 and self._drawn % self.rules.draw_count != 0
        if not self.rules.draw_when_able and not mid_batch and self._unknown[seat] == 0 and self.can_play(seat):
            raise self._fail(Reason.MUST_PLAY, seat, what)

    def pass_turn(self, seat: int | None = None) -> None:
        """Pass: allowed only with no tile that fits and nothing left to draw."""
        what = "pass"
        if seat is None or seat != self.turn or self._termination is not None:
            seat = self._check_turn(seat, what)
        if self.table.size == 0 or (self._unknown[seat] == 0 and self.can_play(seat)):
            raise self._fail(Reason.MUST_PLAY, seat, what)
        if self._drawing and self.drawable() > 0:
            raise self._fail(Reason.MUST_DRAW, seat, what)
        self._stack.append((seat, "pass", None, None, 0, self.turn, self._passes, self._drawn, False, None))
        self._passes += 1
        self._drawn = 0
        self.turn = (seat + 1) % self._n
        if self._passes >= self._n:
            self._end(Termination.BLOCKED, None)

    def undo(self) -> Action:
        """Take back the last action and return it; raises ``IndexError`` when there is none."""
        if not self._stack:
            raise IndexError("undo: no action to take back")
        entry = self._stack.pop()
        action = Action(*entry[:5])
        turn, passes, drawn, unseen, saved = entry[5:]
        seat, tile = action.player, action.tile
        if action.kind == "play":
            assert tile is not None
            self.table.take_back()
            if unseen:
                self._unknown[seat] += 1
                self._where[tile.index] = UNSEEN
            else:
                self._known[seat] |= 1 << tile.index
                self._where[tile.index] = seat
            self._held[seat] += 1
            self.points[seat] -= action.points
        elif action.kind == "draw":
            if tile is None:
                self._unknown[seat] -= 1
                self._boneyard_unseen += 1
                if saved:
                    self._boneyard_unseen -= len(saved)
                    self._boneyard = list(saved)
                    for t in self._boneyard:
                        self._where[t.index] = BONEYARD
            else:
                self._known[seat] ^= 1 << tile.index
                if unseen:
                    self._where[tile.index] = UNSEEN
                    self._boneyard_unseen += 1
                else:
                    self._where[tile.index] = BONEYARD
                    self._boneyard.append(tile)
            self._held[seat] -= 1
        self.turn, self._passes, self._drawn = turn, passes, drawn
        self._termination, self._ender = None, None
        return action

    def reveal(self, seat: int, tiles: Sequence[Tile]) -> None:
        """Record the tiles ``seat`` shows at the end of the hand. Raises ``ValueError`` if they
        contradict what is known (wrong count, a tile on the table or in another hand)."""
        if len(tiles) != self._held[seat]:
            raise ValueError(f"player {seat} holds {self._held[seat]} tiles but reveals {len(tiles)}")
        known = set(self.held(seat))
        new = [t for t in tiles if t not in known]
        if len(set(tiles)) != len(tiles):
            raise ValueError(f"player {seat} reveals a tile twice")
        if len(known) + len(new) != len(tiles) or not known <= set(tiles):
            missing = ", ".join(str(t) for t in sorted(known - set(tiles)))
            raise ValueError(f"player {seat} is known to hold {missing}, which the reveal leaves out")
        for t in new:
            self._check_in_set(t)
            where = self._where[t.index]
            if where != UNSEEN:
                place = "on the table" if where == TABLE else (
                    "in the boneyard" if where == BONEYARD else f"in player {where}'s hand")
                raise ValueError(f"player {seat} reveals {t}, which is {place}")
        for t in new:
            self._where[t.index] = seat
            self._known[seat] |= 1 << t.index
        self._unknown[seat] = 0
        # Revealing is not an action: it cannot be undone, and it is kept by undo.

    def __repr__(self) -> str:
        return (f"<Hand {self.rules.variant.value} players={self.players} turn={self.turn} "
                f"ends={[str(v) for v in self.table.values if v != CLOSED]} moves={len(self.moves)}>")
