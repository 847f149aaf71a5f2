"""One hand of dominoes: the mutable game object, modelled on python-chess's ``Board``.

A :class:`Hand` knows the rules, the line of play, and whatever is known of the hands and the
boneyard (:class:`referee.rules.state.HandState`). A simulated hand knows everything; a hand
judged from a record may know nothing of the players' tiles, and then checks what it can
(placements, fives points, certain blocks).

``play()``, ``draw()`` and ``pass_turn()`` check the action and raise :class:`IllegalAction`
(a ``ValueError``) without changing anything if it breaks a rule; ``push()`` lays a play taken
from ``legal_plays()`` without checking it again; ``undo()`` takes back the last action exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.rules.errors import IllegalAction, Reason
from referee.rules.scoring import Termination
from referee.rules.state import BONEYARD, TABLE, UNSEEN, Action, HandState
from referee.rules.table import CLOSED, END_INDEX, ENDS, UP, Play
from referee.rules.tiles import Tile

__all__ = ["BONEYARD", "TABLE", "UNSEEN", "Action", "Hand"]


class Hand(HandState):
    """A hand in play: see :class:`HandState` for its arguments and questions."""

    __slots__ = ()

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
        index = tile.index
        if unseen:
            self._unknown[seat] -= 1
        else:
            self._known[seat] ^= 1 << index
        self._where[index] = TABLE
        held = self._held
        held[seat] -= 1
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
        if held[seat] == 0:
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
        if not self._drawing:
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
        mid_batch = self._draw_count > 1 and self._drawn % self._draw_count != 0
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
                f"ends={[str(v) for v in self.table.values if v != CLOSED]} moves={self.move_count()}>")
