"""The referee: from one stable table state to the next, what happened, judged by the rules.

One new tile touching an open end is a play (``plays.py``); the last tile played gone for good is
a take-back; fewer face-down tiles, confirmed by the next state, are draws; several new tiles at
once are reported as something the referee could not follow and the table is re-read (plays
marked inferred); a tile that changed value is reported and never taken for a new tile. What a
camera cannot see (a pass, a correction, an undo) comes in by hand."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable

from referee.layout.geometry import Piece, contacts, piece
from referee.rules import Action, IllegalAction, Play, Reason, Tile
from referee.rules.scoring import Termination
from referee.rules.table import ENDS, End
from referee.session.base import RefereeConfig, name_of
from referee.session.draws import Draws
from referee.session.ends import Placement, place
from referee.session.events import Event, Kind
from referee.session.plays import Plays
from referee.session.reveal import assign_seats, lone_back, placed_like, row_seat
from referee.session.shown import Shown
from referee.session.stabilise import StableState, StableTile
from referee.vision.types import TileReading


class Referee(Plays, Draws, Shown):
    """Follows a match from stable states (:meth:`observe`) and manual input (:meth:`pass_turn`,
    :meth:`undo`, :meth:`correct`, :meth:`next_hand`); every method returns the events it caused,
    in order."""

    #: The last hand's tiles still to leave the table after :meth:`next_hand` started a new one.
    _stale: frozenset[str] = frozenset()

    def observe(self, state: StableState) -> list[Event]:
        events: list[Event] = []
        state = self._unique(state)
        self.last_frame = state.last
        if self.match.is_over():
            return events
        if self.over:
            if set(self._finished_line) & state.names():
                self._cleared = 0
                return events  # the last hand's line is still on the table
            self._cleared += 1
            if self._cleared < 2:
                return events  # cleared, or one state that showed nothing: the next one says
            self._new_hand()
        if self._stale:  # a hand started by hand (next_hand) while the last line was in view
            self._stale = self._stale & state.names()
            if self._stale:
                return events  # those tiles are the last hand's, not this one's: wait until they go
        pieces = [piece(i, t.reading) for i, t in enumerate(state.tiles)]
        counted = False
        if self.waiting_reveal and self._tentative is not None:
            # Face-down tiles went in the state that showed the last tile laid: once that is
            # confirmed, the player drew before laying it, and holds one more.
            self._draws(state, events)
            counted = True
            if not self.hand.is_over():
                self.waiting_reveal = False
        if self.waiting_reveal and not self._missed_draw(state, pieces, events):
            self._reveal(state, pieces, events)
            return events
        decided = {t.name: i for i, t in enumerate(state.tiles) if t.decided}
        self._present.update((name, state.last) for name in decided)
        self._first_read.update((t.name, t.first_seen) for t in state.tiles if t.decided and t.first_seen is not None)
        table_names = self.on_table()
        # A tile of the line is gone when nothing lies where it was last seen: a box shifted
        # along the run (vision re-boxed it after a play) still covers it, unread.
        gone = [n for n in table_names if n not in decided
                and (n not in self._last_seen or not self._covered(pieces, self._last_seen[n]))]
        if any(n in self._last_seen for n in gone):
            self._lost_at = state.frame
        if len(gone) > 1:
            return events  # several tiles of the line unseen at once: an arm vision missed, not a table
        self._note_places(pieces, state.frame)
        misread = self._changed(state, pieces, decided, table_names, events)
        if not counted:
            self._draws(state, events)
        self._passes_waiting(events)
        if self.hand.is_over():
            return events
        # More tiles than the set holds: vision took the table for backs (a close lamp's rings,
        # the grain), and what such a state lacks says nothing of what a hand took away. (Its
        # backs still count for the draws: they keep a pile read short in one state from
        # passing for a draw in the next.)
        if len(state.tiles) + state.face_down <= self.rules.set_size:
            self._takeback(state, pieces, decided, table_names, events)
        self._plays(state, pieces, {n: i for n, i in decided.items() if i not in misread}, events)
        if self.waiting_reveal and self._tentative is None and not self._missed_draw(state, pieces, events):
            # The last tile came late: the reveal may be on the table already; unless a tile of
            # this state lies on an open end, or backs went in it (rendered hand 9303-005: a
            # draw missed, a player seemed out, and the next player's last tile on the line was
            # taken for the reveal). Backs gone are confirmed, or not, by the next state.
            self._reveal(state, pieces, events)
        return events

    def _unique(self, state: StableState) -> StableState:
        """The state with no tile decided at two places: tiles are unique, so one of the two
        readings is wrong. A table tile keeps the one at its last place; otherwise, the one
        alone within one and a half tile lengths of the line is kept (a misreading apart from
        the line changes nothing there); when more are, which is wrong cannot be told yet, and
        none of them is decided (nothing is inferred from either)."""
        places: dict[str, list[int]] = {}
        for i, t in enumerate(state.tiles):
            if t.decided:
                places.setdefault(t.name, []).append(i)
        line = [self._last_seen[n] for n in self.on_table() if n in self._last_seen]

        def near(i: int, pieces: list[tuple[Piece, float]]) -> bool:
            """Whether tile ``i`` lies within the given share of a length of any of ``pieces``."""
            centre = state.tiles[i].reading.center
            return any(math.dist(centre, k.centre) < f * k.length for k, f in pieces)

        doubtful: set[int] = set()
        for name, where in places.items():
            if len(where) < 2:
                continue
            last = self._last_seen.get(name)
            keep = [i for i in where if last is not None and near(i, [(last, 0.25)])]
            if not keep:
                keep = [i for i in where if near(i, [(k, 1.5) for k in line])]
            doubtful.update(i for i in where if len(keep) != 1 or i != keep[0])
        if not doubtful:
            return state
        tiles = tuple(dataclasses.replace(t, decided=False) if i in doubtful else t for i, t in enumerate(state.tiles))
        return dataclasses.replace(state, tiles=tiles)

    def _changed(self, state: StableState, pieces: list[Piece], decided: dict[str, int], table_names: list[str],
                 events: list[Event]) -> set[int]:
        """Table tiles whose place now shows another value: reported once, and those readings
        (the pieces returned) are never taken for new tiles; the rules table keeps what was
        played (a correction by hand changes it)."""
        changed = []
        misread: set[int] = set()
        for name in table_names:
            if name in decided or name not in self._last_seen:
                continue
            other = self._near(pieces, self._last_seen[name])
            if other is None:
                continue
            misread.add(other.index)
            if other.index in decided.values() and name_of(other.pips) not in (*table_names, *self.pending):
                changed.append((name, name_of(other.pips)))
        for name in table_names:
            if name in decided:
                self._last_seen[name] = pieces[decided[name]]
        if changed:
            key = ("changed_value", *sorted(f"{a}>{b}" for a, b in changed))
            if key not in self.reported:
                self.reported.add(key)
                self._emit(events, Event(state.frame, Kind.UNFOLLOWED, reason="changed_value",
                                         tiles=tuple(t for pair in changed for t in pair)))
        return misread

    def _takeback(self, state: StableState, pieces: list[Piece], decided: dict[str, int], table_names: list[str],
                  events: list[Event]) -> None:
        """The last tile played, gone (its place empty) for ``takeback_states`` states in which
        every other face-up tile is read clearly and the rest of the line is all there, a hand
        having come over the table since a state last read it (:attr:`StableState.unsettled`):
        taken back. A state vision read badly (an arm it missed, a blur) neither counts nor
        resets."""
        if not self.hand.move_count() or self.hand.move(-1).kind != "play":
            self.gone.clear()
            return
        last_tile = str(self.hand.move(-1).tile)
        if not all(t.decided for t in state.tiles) or any(n not in decided for n in table_names if n != last_tile):
            return  # not all read clearly: not a state to judge a take-back by
        last = str(self.hand.move(-1).tile)
        seen = self._last_seen.get(last)
        if last in decided or seen is None or self._near(pieces, seen) is not None:
            self.gone.pop(last, None)
            return
        if state.unsettled is not None and state.unsettled <= self._present.get(last, -1):
            return  # no hand came over the table since the tile was read there: vision lost it
        # A new tile laid against where it lay says it is still there, unseen (a double across
        # the line's end lost by vision just as the tile against it came to be read): nothing
        # is laid against a tile taken back. Such a state neither counts nor resets.
        table = set(table_names)
        if any(p.name not in table and min(seen.outside(p.end_point(h)) for h in (0, 1)) <= 0.5 * seen.width
               for p in pieces):
            return
        self.gone[last] = self.gone.get(last, 0) + 1
        if self.gone[last] >= self.config.takeback_states:
            self.gone.pop(last)
            self._forget(seen)
            self.hand.undo()
            self._emit(events, Event(state.frame, Kind.UNDO, tile=last, reason="play"))

    def _missed_draw(self, state: StableState, pieces: list[Piece], events: list[Event]) -> bool:
        """A player seemed to lay their last tile, yet a new tile now lies on an open end: they
        held one more, drawn where the camera did not see it. The draw goes in before that last
        play, and the hand goes on (True); False when no tile says so. Before it even when a
        frame read that tile before its state did: the draw was never seen, so no frame dates
        it (put after the play, the draw was refused, the hand over, and the line's new tile
        taken for a reveal: rendered hands 9301-007 and 9303-008)."""
        outcome = self.hand.outcome()
        if outcome is None or outcome.termination is not Termination.DOMINO or not self.rules.drawing:
            return False
        last = self.hand.move(-1)
        if last.kind != "play" or str(last.tile) not in self._last_seen:
            return False
        order = self.on_table()
        table_names = set(order)
        decided = {t.name: i for i, t in enumerate(state.tiles) if t.decided}
        # The line as the plays see it: a tile of it vision reads doubtfully, or lost, in this
        # state stands where it was last seen (a tile laid against an unread spinner is laid).
        pieces, table_pieces = self._standing(pieces, decided, order)
        found = contacts(pieces, self.config.reach, self.config.middle, self.config.facing)
        laid = [pieces[i] for name, i in decided.items()
                if name not in table_names and name not in self.pending
                and self._fits(pieces[i], place(self.hand.table, pieces[i], found, table_pieces) or Placement(None))]
        if not laid:
            return False
        frame = self._age(self._last_seen[str(last.tile)])
        self._confirm_draws(1, frame, self.hand.move_count() - 1, events, shift=False)
        if self.hand.is_over():
            return False
        self.waiting_reveal = False
        return True

    def _reveal(self, state: StableState, pieces: list[Piece], events: list[Event]) -> None:
        """The players' tiles laid face up apart from the line: once every tile still held is
        read, score the hand. A reading where a tile of the line was last seen (its centre
        within that tile's box, grown by ``covered``: the run re-boxed) is that tile, read
        doubtfully (or misread) in this state: not a tile of the reveal."""
        table_names = set(self.on_table())
        places = [self._last_seen[n] for n in table_names if n in self._last_seen]
        apart = [t for p, t in zip(pieces, state.tiles, strict=True)
                 if t.name not in table_names and not self._covered(places, p)]
        shown = [t for t in apart if t.decided]
        held = [self.hand.held_count(s) for s in range(self.rules.players)]
        if sum(held) == 0:
            self._finish(state.frame, events, [[] for _ in held])
            return
        blank = _plain_blank(apart, shown, table_names)
        if blank is not None:
            shown.append(blank)
        if len(shown) > sum(held) and len(apart) == len(shown) and self._unseen_draws(state, shown, events):
            held = [self.hand.held_count(s) for s in range(self.rules.players)]
        if len(shown) != sum(held) or len(apart) != len(shown):
            if len(apart) == len(shown) == sum(held) - 1 and (seats := self._with_blank(state, shown, held)):
                self._finish(state.frame, events, [[name_of(r.pips) for r in seat] for seat in seats], inferred=True)
                return
            if len(apart) == sum(held) > len(shown):
                # As many tiles apart as the players hold, some not read: the referee says it
                # cannot read the reveal (once a hand), so a person can type it in.
                self._unfollowed_at(state.frame, "reveal_unreadable", [], events, once=f"hand {len(self.match.hands)}")
            return
        seats = assign_seats([t.reading for t in shown], held, (state.width, state.height), self.config.seats)
        if seats is None:
            self._unfollowed(state, "reveal_seats", sorted(t.name for t in shown), events)
            return
        self._finish(state.frame, events, [[name_of(r.pips) for r in seat] for seat in seats],
                     inferred=blank is not None)

    def _with_blank(self, state: StableState, shown: list[StableTile], held: list[int]
                    ) -> list[list[TileReading]] | None:
        """The reveal's rows with the double blank put in, when it is the one tile missing and
        vision took its plain face for a back: the double blank on no line nor among the tiles
        shown, the table showing one back more than the boneyard holds (the backs the draws seen
        leave), and that one back lying apart from the others, where the reveal's rows put it at
        the edge of a seat one tile short. None otherwise: a tile nothing pins down is never
        guessed."""
        blank = "0-0"
        if self._pile is None or blank in self.on_table() or any(t.name == blank for t in shown) or not state.tiles:
            return None
        if self._pile - self._draws_seen() != state.face_down - 1 or len(state.face_down_at) != state.face_down:
            return None
        model = state.tiles[0].reading
        at = lone_back(state.face_down_at, [t.reading for t in state.tiles], self.config.lone_back)
        if at is None:
            return None
        readings = [t.reading for t in shown]
        extra = placed_like(model, (0, 0), at)
        size = (state.width, state.height)
        seats = assign_seats([*readings, extra], held, size, self.config.seats)
        if seats is None:
            return None
        seat = next(s for s, row in enumerate(seats) if extra in row)
        if row_seat(seats[seat], size, self.rules.players, self.config.seats) != seat:
            return None  # the back does not lie at that seat's edge, in its row
        return seats

    def _unseen_draws(self, state: StableState, shown: list[StableTile], events: list[Event]) -> bool:
        """The reveal (``shown``) holds more tiles than the draws seen leave the one player
        still holding tiles, all of them at that player's edge, and the boneyard shows as many
        backs fewer than those draws leave: that player drew them where the camera did not see
        (a draw is a back gone from the pile, and the pile says so). They go in after the
        player's last draw seen, else before their last play; True when they went in."""
        outcome = self.hand.outcome()
        if outcome is None or outcome.termination is not Termination.DOMINO or not self.rules.drawing:
            return False
        held = [self.hand.held_count(s) for s in range(self.rules.players)]
        extra = len(shown) - sum(held)
        holders = [s for s, n in enumerate(held) if n]
        if len(holders) != 1 or self._pile is None or self.hand.drawable() < extra:
            return False
        left = self._pile - self._draws_seen()  # the backs the draws seen leave
        if left - state.face_down != extra:
            return False
        seat = holders[0]
        if row_seat([t.reading for t in shown], (state.width, state.height), self.rules.players,
                    self.config.seats) != seat:
            return False
        moves = self.hand.moves
        drew = [i for i, m in enumerate(moves) if m.player == seat and m.kind == "draw"]
        played = [i for i, m in enumerate(moves) if m.player == seat and m.kind == "play"]
        if not drew and not played:
            return False
        index = drew[-1] + 1 if drew else played[-1]
        before = self.hand.held_count(seat)
        self._confirm_draws(extra, state.frame, index, events, shift=False)
        return self.hand.held_count(seat) == before + extra

    def restore(self, events: Iterable[Event]) -> None:
        """Come to where a logged session left off (``--resume``), announcing nothing."""
        for event in events:
            hand = self.hand
            kind = event.kind
            if kind is Kind.PLAY and event.tile is not None:
                end = None if event.end is None else End(event.end)
                hand.play(Play(Tile.parse(event.tile), end), seat=event.player)
                if event.by_hand:
                    self._by_hand.append(event.tile)
                if hand.is_over() and hand.outcome() is not None:
                    self.waiting_reveal = True
            elif kind is Kind.ILLEGAL and event.tile is not None:
                self.pending[event.tile] = None if event.end is None else End(event.end)
            elif kind is Kind.DRAW:
                self._restore_draw(event)
            elif kind is Kind.PASS:
                hand.pass_turn(event.player)
                if hand.is_over():
                    self.waiting_reveal = True
            elif kind is Kind.REVEAL or (kind is Kind.UNDO and event.reason == "reveal"):
                self._restore_reveal(event)
            elif kind is Kind.UNDO:
                if hand.move_count():
                    self._take_back()
                self.waiting_reveal = False
                self._shown_by_hand.clear()
            elif kind is Kind.CORRECTION and event.tile and event.reason:
                self.correct(event.frame, event.reason, event.tile)
                self.history.pop()
            elif kind is Kind.HAND_END:
                self.finish_logged(event)
            elif kind is Kind.UNFOLLOWED:
                self.reported.add((event.reason or "", *(event.tiles or ())))
            self.history.append(event)
            self.last_frame = max(self.last_frame, event.frame)

    def _restore_draw(self, event: Event) -> None:
        """A logged draw, put back where it happened: before the later plays when it was seen late."""
        at = event.at if event.at is not None and event.at < self.hand.move_count() else self.hand.move_count()
        later = self.hand.moves[at:]
        order = self.hand.table.order
        arms = order[len(order) - sum(1 for m in later if m.kind == "play"):]
        for _ in later:
            self.hand.undo()
        self.hand.draw(seat=event.player, unseen=True)
        self._replay(later, arms, {})

    def finish_logged(self, event: Event) -> None:
        """Score the hand as a logged ``hand_end`` did (on resume), from its reveal."""
        if event.reveal is not None:
            for seat, tiles in enumerate(event.reveal):
                if self.hand.held_count(seat) and len(tiles) == self.hand.held_count(seat):
                    self.hand.reveal(seat, [Tile.parse(t) for t in tiles])
        self.match.finish_hand()
        self._finished_line = self.on_table()
        self.waiting_reveal = False
        self.over = True

    def catch_up(self) -> list[Event]:
        """After a restore: the events that follow from the last logged one but were not logged
        (a crash between them): the blocked call after the last play or pass, the match's end
        after the last hand's."""
        events: list[Event] = []
        last = self.history[-1] if self.history else None
        outcome = self.hand.outcome()
        if (last is not None and last.kind in (Kind.PLAY, Kind.PASS) and outcome is not None
                and outcome.termination is Termination.BLOCKED):
            self._emit(events, Event(last.frame, Kind.BLOCKED))
        if last is not None and last.kind is Kind.HAND_END and self.match.is_over():
            self._emit(events, Event(last.frame, Kind.MATCH_END, winners=tuple(self.match.winners()),
                                     scores=tuple(self.match.scores)))
        return events

    def finish(self) -> list[Event]:
        """The source ended: a hand waiting for its reveal is scored with what is known."""
        events: list[Event] = []
        self._passes_waiting(events)  # no state is coming to show a draw
        if self.waiting_reveal:
            self._keep_shown()
            self._finish(self.last_frame, events, None)
        return events

    def _new_hand(self) -> None:
        self.hand = self.match.new_hand()
        self.over = False
        self._cleared = 0
        self.reported.clear()  # what it could not follow is said again in a new hand
        self.pending.clear()
        self._pending_at.clear()
        self._retracted.clear()
        self.gone.clear()
        self.face_down = None
        self._pile = None
        self._tentative = None
        self._boneyard_at = []
        self._down_counts = []
        self._backs_seen = []
        self._last_seen = {}
        self._present = {}
        self._lost_at = -1
        self._seen = []
        self._first_read = {}
        self._unread = {}
        self._by_hand = []
        self._shown_by_hand = {}
        self._passes_due = []

    # -- by hand ------------------------------------------------------------------------------

    def pass_turn(self, frame: int, settled: bool = True) -> list[Event]:
        """A pass entered by hand. After the hand's end there is no turn to pass: ValueError,
        and nothing is logged or said.

        ``settled`` False: the camera has not seen the table settle since the last stable state
        (an arm over it, or frames still moving). A pass the rules refuse because tiles are left
        to draw then waits for the next stable state, which may show the player's last draw
        (rendered hand 9309-001: the last tile drawn, the pass entered at once, and a false
        ``must_draw`` called; the next player's play was then given to the passer). That
        state's draws come first, then the pass, or ``must_draw`` if tiles are still left;
        then its plays. A pass entered while one waits goes after it."""
        if self.over or self.waiting_reveal or self.hand.is_over():
            raise ValueError("the hand is over: nobody can pass (start the next hand, or undo)")
        events: list[Event] = []
        if self._passes_due or not self._pass(frame, events, wait=not settled):
            self._passes_due.append(frame)
        return events

    @property
    def passes_waiting(self) -> int:
        """Passes entered by hand still waiting for the table to settle (see :meth:`pass_turn`)."""
        return len(self._passes_due)

    def _pass(self, frame: int, events: list[Event], wait: bool) -> bool:
        """The player to move passes, or the rules' refusal is reported; False (nothing done)
        when the rules see tiles to draw and ``wait`` says the table may yet show them drawn."""
        seat = self._seat()
        try:
            self.hand.pass_turn(seat)
        except IllegalAction as error:
            if error.reason is Reason.MUST_DRAW and self._draws_said(events):
                return self._pass(frame, events, wait)
            if error.reason is Reason.MUST_DRAW and wait:
                return False
            self._emit(events, Event(frame, Kind.ILLEGAL, reason=error.reason.value, player=seat))
            return True
        self._emit(events, Event(frame, Kind.PASS, player=seat))
        outcome = self.hand.outcome()
        if outcome is not None:
            self._emit(events, Event(frame, Kind.BLOCKED))
            self.waiting_reveal = True
        return True

    def _passes_waiting(self, events: list[Event]) -> None:
        """Passes that waited for this state (see :meth:`pass_turn`), once its draws are in."""
        due, self._passes_due = self._passes_due, []
        for frame in due:
            if self.hand.is_over() or self.waiting_reveal:
                break  # the hand ended meanwhile: nobody is left to pass
            self._pass(frame, events, wait=False)

    def play_by_hand(self, frame: int, tile: str, end: str | None = None) -> list[Event]:
        """A play the camera could not read, entered by hand (after the referee said it cannot
        read a tile): laid by the player whose turn it is, at ``end`` (left, right, up, down;
        needed only where the tile fits more than one). ``ValueError``, with nothing logged or
        said, when it is not legal: a hand entry is checked, not reported as the table's. The
        unread tile lying against the line is then taken for it (see ``_bind_by_hand``), so
        the tiles laid against it later are followed."""
        if self.over or self.waiting_reveal or self.hand.is_over():
            raise ValueError("the hand is over: nothing can be played (start the next hand, or undo)")
        laid = Tile.parse(tile)
        try:
            where = None if end is None else End(end)
        except ValueError:
            raise ValueError(f"end must be left, right, up or down, got {end!r}") from None
        seat = self._seat()
        before = self.hand.table.size
        if not before:
            where = None  # the opening tile has no end to go to: whichever a player names
        try:
            points = self.hand.play(Play(laid, where), seat=seat)
        except IllegalAction as error:
            at = f" at the {end} end" if end else ""
            raise ValueError(f"{laid} cannot be played{at}: {error.reason.value}") from None
        name = str(laid)
        self.pending.pop(name, None)
        self._pending_at.pop(name, None)
        self._by_hand.append(name)
        arm = self.hand.table.order[-1] if before else -1
        events: list[Event] = []
        self._emit(events, Event(frame, Kind.PLAY, tile=name, end=ENDS[arm].value if arm >= 0 else None,
                                 player=seat, points=points, by_hand=True))
        self._after_play_at(frame, events)
        return events

    def _take_back(self) -> Action:
        """Undo the hand's last action; a tile played by hand and not yet matched on the table
        is forgotten with it."""
        action = self.hand.undo()
        if action.tile is not None and str(action.tile) in self._by_hand:
            self._by_hand.remove(str(action.tile))
        return action

    def undo(self, frame: int) -> list[Event]:
        """Take back the last action of the hand (a play, a draw or a pass), or, while the hand
        waits for the others' reveals, the reveal entered last by hand."""
        events: list[Event] = []
        if self._passes_due:
            self._passes_due.pop()  # a pass still waiting for the table: never logged nor said
            return events
        if self.waiting_reveal and self._shown_by_hand:
            return self._undo_reveal(frame)
        if self.over or not self.hand.move_count():
            return events
        action = self._take_back()
        self.waiting_reveal = False
        self._shown_by_hand.clear()
        self._emit(events, Event(frame, Kind.UNDO, tile=None if action.tile is None else str(action.tile),
                                 reason=action.kind, player=action.player))
        return events

    def next_hand(self, frame: int) -> list[Event]:
        """Start the next hand now, for a table the camera cannot follow there: a hand waiting
        for its reveal (tiles never laid out where the camera sees them) is scored with what is
        known (its ``hand_end``, as at the end of a source), and a scored hand's table counts as
        cleared. Tiles of the last line still in view are not the new hand's: the referee waits
        until they are gone. ``ValueError`` while the hand is still being played (undo, or play
        it out) or once the match is over."""
        events: list[Event] = []
        if self.match.is_over():
            raise ValueError("the match is over: there is no next hand")
        if not self.over and not self.waiting_reveal:
            if not self.hand.move_count():
                raise ValueError("this hand has just begun: the referee is waiting for its first tile")
            raise ValueError("the hand is still being played: play it out, or undo")
        if self.waiting_reveal:
            self._keep_shown()
            self._finish(frame, events, None)
            if self.match.is_over():
                return events
        stale = frozenset(self._finished_line)
        self._new_hand()
        self._stale = stale
        return events

    def correct(self, frame: int, old: str, new: str) -> list[Event]:
        """A tile was misread: ``old`` on the table is really ``new``. The hand is rewound to
        that play and replayed with the right tile; ``ValueError`` when that is not legal."""
        events: list[Event] = []
        wrong, right = Tile.parse(old), Tile.parse(new)
        moves = self.hand.moves
        index = next((i for i, m in enumerate(moves) if m.kind == "play" and m.tile is wrong), None)
        if index is None:
            raise ValueError(f"{old} is not on the table")
        later = moves[index:]
        order = self.hand.table.order
        arms = order[len(order) - sum(1 for m in later if m.kind == "play"):]
        for _ in later:
            self.hand.undo()
        try:
            self._replay(later, arms, {wrong: right})
        except (IllegalAction, ValueError) as error:
            while self.hand.move_count() > index:
                self.hand.undo()
            self._replay(later, arms, {})
            raise ValueError(f"{new} cannot replace {old}: {error}") from None
        if wrong_seen := self._last_seen.pop(old, None):
            self._last_seen[new] = wrong_seen
        if str(wrong) in self._by_hand:
            self._by_hand[self._by_hand.index(str(wrong))] = str(right)
        self._emit(events, Event(frame, Kind.CORRECTION, tile=str(right), reason=str(wrong)))
        return events


def _plain_blank(apart: list[StableTile], shown: list[StableTile], table: set[str]) -> StableTile | None:
    """The one tile of a reveal read only doubtfully, when vision's reading of it is the double
    blank, no half of it was ever read surely as another number, and the double blank lies on no
    line nor among the tiles ``shown``: a plain face is never read surely (no pip says it is not
    a back, nor that none is hidden), and the rules leave it nothing else to be. None otherwise."""
    blank = "0-0"
    doubtful = [t for t in apart if not t.decided]
    if len(doubtful) != 1 or blank in table or any(t.name == blank for t in shown):
        return None
    tile = doubtful[0]
    if tile.name != blank or any(h not in (None, 0) for h in tile.sure_halves):
        return None
    return tile


__all__ = ["Referee", "RefereeConfig", "StableTile"]
