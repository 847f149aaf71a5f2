"""The referee: from one stable table state to the next, what happened, judged by the rules.

One new tile touching an open end is a play; the last tile played gone for good is a take-back;
fewer face-down tiles are draws; several new tiles at once, or a tile that changed value, are
reported as something the referee could not follow, and nothing is guessed. What a camera cannot
see (a pass, a correction, an undo) comes in by hand."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from referee.layout.geometry import Contact, Piece, contacts, piece
from referee.rules import Hand, IllegalAction, Play, Rules, Tile
from referee.rules.match import Match
from referee.rules.scoring import Termination
from referee.rules.state import Action
from referee.rules.table import End
from referee.session.ends import Placement, place
from referee.session.events import Event, Kind
from referee.session.reveal import assign_seats
from referee.session.stabilise import StableState, StableTile


@dataclasses.dataclass(frozen=True)
class RefereeConfig:
    """``opener``: the seat that lays the first tile of the match (a camera cannot see who
    holds the highest double); ``takeback_states``: stable states the last tile must stay gone
    before it counts as taken back; ``reach``/``middle``: contact tolerances in tile widths."""

    opener: int = 0
    takeback_states: int = 2
    reach: float = 0.3
    middle: float = 0.25
    seats: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.opener, int) or self.opener < 0:
            raise ValueError(f"opener must be a seat number from 0, got {self.opener!r}")
        if self.seats is not None and not all(isinstance(a, (int, float)) for a in self.seats):
            raise ValueError(f"seats must be directions in degrees, got {self.seats!r}")
        if not isinstance(self.takeback_states, int) or self.takeback_states < 1:
            raise ValueError(f"takeback_states must be a whole number >= 1, got {self.takeback_states!r}")


class Referee:
    """Follows a match from stable states (:meth:`observe`) and manual input (:meth:`pass_turn`,
    :meth:`undo`, :meth:`correct`); every method returns the events it caused, in order."""

    def __init__(self, rules: Rules, config: RefereeConfig | None = None) -> None:
        self.rules = rules
        self.config = config or RefereeConfig()
        if self.config.opener >= rules.players:
            raise ValueError(f"opener must be a seat from 0 to {rules.players - 1}, got {self.config.opener}")
        if self.config.seats is not None and len(self.config.seats) != rules.players:
            raise ValueError(f"seats must give {rules.players} directions, one per seat, got {len(self.config.seats)}")
        self.match = Match(rules)
        self.hand: Hand = self.match.new_hand()
        self.history: list[Event] = []
        self.pending: dict[str, End | None] = {}  # illegal tiles left on the table, and where
        self.face_down: int | None = None  # the boneyard as last confirmed
        self._tentative: tuple[int, int, int] | None = None  # a smaller count: (count, frame, moves so far)
        self.gone: dict[str, int] = {}
        self.reported: set[tuple[str, ...]] = set()
        self.waiting_reveal = False
        self.over = False  # the hand is scored; waiting for the table to be cleared
        self.last_frame = -1
        self._last_seen: dict[str, Piece] = {}  # where each table tile was last read
        self._seen: list[tuple[tuple[float, float], int]] = []  # places that showed a tile, and since when
        self._finished_line: list[str] = []

    # -- what the rules know -----------------------------------------------------------------
    def on_table(self) -> list[str]:
        table = self.hand.table
        names = [str(t) for arm in table.arms for t, _ in arm]
        if table.opener is not None:
            names.append(str(table.opener))
        return names

    def _seat(self) -> int:
        turn = self.hand.turn
        return self.config.opener if turn is None else turn

    def _emit(self, events: list[Event], event: Event) -> None:
        events.append(event)
        self.history.append(event)

    # -- stable states -----------------------------------------------------------------------
    def observe(self, state: StableState) -> list[Event]:
        events: list[Event] = []
        self.last_frame = state.last
        if self.match.is_over():
            return events
        if self.over:
            if set(self._finished_line) & state.names():
                return events  # the last hand's line is still on the table
            self._new_hand()
        if self.waiting_reveal:
            self._reveal(state, events)
            return events
        pieces = [piece(i, t.reading) for i, t in enumerate(state.tiles)]
        for p in pieces:
            if not any(math.dist(c, p.centre) < 0.5 * p.width for c, _ in self._seen):
                self._seen.append((p.centre, state.frame))
        decided = {t.name: i for i, t in enumerate(state.tiles) if t.decided}
        table_names = self.on_table()
        misread = self._changed(state, pieces, decided, table_names, events)
        self._draws(state, events)
        if self.hand.is_over():
            return events
        self._takeback(state, pieces, decided, table_names, events)
        self._plays(state, pieces, {n: i for n, i in decided.items() if i not in misread}, events)
        return events

    def _near(self, pieces: list[Piece], where: Piece) -> Piece | None:
        for p in pieces:
            if math.dist(p.centre, where.centre) < 0.5 * where.width:
                return p
        return None

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
            if other.index in decided.values() and _name(other.pips) not in (*table_names, *self.pending):
                changed.append((name, _name(other.pips)))
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

    def _draws(self, state: StableState, events: list[Event]) -> None:
        """Fewer face-down tiles after the opening are draws (before it, the deal takes tiles).
        A decrease counts once the next stable state confirms it (a tile vision missed in one
        state is no draw); the draws then go in where they happened, by the player to move
        then, before any play since."""
        count = state.face_down
        if not self.hand.table.size or not self.rules.drawing or self.face_down is None:
            self.face_down, self._tentative = count, None
            return
        if self._tentative is not None:
            low, frame, index = self._tentative
            self._tentative = None
            if count <= low:
                self._confirm_draws(self.face_down - low, frame, index, events)
                self.face_down = low
        if count < self.face_down:
            self._tentative = (count, state.frame, self.hand.move_count())

    def _confirm_draws(self, drawn: int, frame: int, index: int, events: list[Event]) -> None:
        later = self.hand.moves[index:]
        order = self.hand.table.order
        arms = order[len(order) - sum(1 for m in later if m.kind == "play"):]
        for _ in later:
            self.hand.undo()
        done: list[Event] = []
        for _ in range(drawn):
            seat = self._seat()
            try:
                self.hand.draw(seat=seat, unseen=True)
            except IllegalAction as error:
                self._unfollowed_at(frame, f"draw_{error.reason.value}", [], events)
                break
            done.append(Event(frame, Kind.DRAW, player=seat))
        try:
            self._replay(later, arms, {})
        except (IllegalAction, ValueError):
            while self.hand.move_count() > index:
                self.hand.undo()
            self._replay(later, arms, {})
            self._unfollowed_at(frame, "draw_order", [], events)
            return
        for event in done:
            self._emit(events, event)

    def _takeback(self, state: StableState, pieces: list[Piece], decided: dict[str, int], table_names: list[str],
                  events: list[Event]) -> None:
        """The last tile played, gone (its place empty) for ``takeback_states`` states: taken back."""
        if not self.hand.move_count() or self.hand.move(-1).kind != "play":
            self.gone.clear()
            return
        last = str(self.hand.move(-1).tile)
        seen = self._last_seen.get(last)
        if last in decided or seen is None or self._near(pieces, seen) is not None:
            self.gone.pop(last, None)
            return
        self.gone[last] = self.gone.get(last, 0) + 1
        if self.gone[last] >= self.config.takeback_states:
            self.gone.pop(last)
            self.hand.undo()
            self._emit(events, Event(state.frame, Kind.UNDO, tile=last, reason="play"))

    def _plays(self, state: StableState, pieces: list[Piece], decided: dict[str, int], events: list[Event]) -> None:
        table_names = set(self.on_table())
        for name in list(self.pending):
            if name not in decided:
                del self.pending[name]  # the illegal tile was taken back
        known = [self._last_seen[n] for n in table_names if n in self._last_seen]
        unknown_new = [p for p, t in zip(pieces, state.tiles, strict=True)
                       if not t.decided and not any(math.dist(p.centre, k.centre) < 0.5 * k.width for k in known)]
        new = [pieces[i] for n, i in decided.items() if n not in table_names]
        table_pieces = {n: pieces[i] for n, i in decided.items() if n in table_names}
        if not table_names:
            if not new:
                return
            clear = {q.index for q in new}
            first_clear = min(self._age(q) for q in new)
            doubtful = {u.index for u in unknown_new if self._age(u) <= first_clear}
            if any({c.tile, c.other} & clear and {c.tile, c.other} & doubtful
                   for c in contacts(pieces, self.config.reach, self.config.middle)):
                return  # a tile against the new ones, there as early, cannot be read yet: wait
            ages = [self._age(p) for p in new]
            first = min(ages)
            oldest = [p for p, age in zip(new, ages, strict=True) if age == first]
            opener = oldest[0]
            if len(oldest) > 1:
                self._unfollowed(state, "several_new_tiles", sorted(_name(p.pips) for p in new), events)
                group = _joined(new, contacts(new, self.config.reach, self.config.middle))
                if group is None:
                    return  # tiles lying apart: which one opened cannot be told
                opener = group
            self._open(state, opener, events, frame=first, inferred=(len(oldest) > 1) or None)
            if len(new) > 1 and self.on_table():
                self._plays(state, pieces, decided, events)  # the rest, against the opener
            return
        found = contacts(pieces, self.config.reach, self.config.middle)
        # A state may show a chain of tiles the referee has not seen laid (their own states came
        # too late to read): each round plays what touches the line as it now stands.
        for _ in range(len(new) + len(unknown_new)):
            if self.hand.is_over():
                return
            attempts = []
            for p in new:
                name = _name(p.pips)
                if name in table_pieces:
                    continue
                placement = place(self.hand.table, p, found, table_pieces)
                if placement is None:
                    continue  # lying apart from the line: not a play
                if name in self.pending and self.pending[name] == placement.end and not self._fits(p, placement):
                    continue  # still the same illegal tile, already reported (turned round, it is a new try)
                attempts.append((p, placement))
            placed = {q.index for q in table_pieces.values()}
            touching_unknown = [p for p in unknown_new if p.index not in placed and any(
                c.tile == p.index or c.other == p.index for c in found
                if {c.tile, c.other} & {q.index for q in table_pieces.values()})]
            if touching_unknown and not attempts:
                new_unread = [p for p in new if _name(p.pips) not in table_pieces]
                if self._deduce(state, touching_unknown, new_unread, found, table_pieces, events):
                    continue
            if touching_unknown or not attempts:
                return  # a new tile nobody can read yet: wait for a state that shows it clearly
            before = len(table_pieces)
            if len(attempts) == 1:
                self._play(state, *attempts[0], events)
                name = _name(attempts[0][0].pips)
                if name in self.on_table():
                    table_pieces[name] = attempts[0][0]
            else:
                self._several(state, [p for p, _ in attempts], found, table_pieces, events)
            if len(table_pieces) == before:
                return

    def _deduce(self, state: StableState, unread: list[Piece], new: list[Piece], found: list[Contact],
                table_pieces: dict[str, Piece], events: list[Event]) -> bool:
        """The rules as a safety net for a tile vision cannot read: laid at an open end (its
        near half must show the end's number) with a tile read clearly against its far half, and
        its own far half read as that tile's number, it can only be that tile. Played, marked
        inferred; False when no unread tile is pinned down like that."""
        table = {q.index for q in table_pieces.values()}
        clear = {q.index: q for q in new}
        for u in unread:
            if u.is_double:
                continue
            near = _half_against(u, found, table)
            placement = place(self.hand.table, u, found, table_pieces)
            if near is None or placement is None or placement.end is None or placement.reason is not None:
                continue
            far = 1 - near
            seen = [w for q, w in _values_against(u, far, found, clear) if w == u.pips[far]]
            value = self.hand.table.values[_END_INDEX[placement.end]]
            if not seen or not 0 <= value <= self.rules.max_pips:
                continue
            tile = Tile(value, seen[0])
            name = str(tile)
            if name in table_pieces or name in self.pending or any(_name(q.pips) == name for q in new):
                continue
            seat = self._seat()
            try:
                points = self.hand.play(Play(tile, placement.end), seat=seat)
            except IllegalAction:
                continue
            pips = (value, seen[0]) if near == 0 else (seen[0], value)
            self._last_seen[name] = table_pieces[name] = dataclasses.replace(u, pips=pips, uncertain=False)
            self._emit(events, Event(self._age(u), Kind.PLAY, tile=name, end=placement.end.value, player=seat,
                                     points=points, inferred=True))
            self._after_play(state, events)
            return True
        return False

    def _several(self, state: StableState, new: list[Piece], found: list[Contact], table_pieces: dict[str, Piece],
                 events: list[Event]) -> None:
        """Several new tiles against the line at once. When each first showed in a different
        state (a state whose reading came too late), they are plays in that order. Otherwise the
        referee says it could not follow, and re-reads the table: the tiles go on it in an order
        the rules accept, as plays marked ``inferred``."""
        ages = [self._age(p) for p in new]
        if len(set(ages)) == len(ages):
            for _, p in sorted(zip(ages, new, strict=True), key=lambda a: a[0]):
                placement = place(self.hand.table, p, found, table_pieces)
                if placement is not None and not self.hand.is_over():
                    self._play(state, p, placement, events, frame=self._age(p))
                    if _name(p.pips) in self.on_table():
                        table_pieces[_name(p.pips)] = p
            return
        self._unfollowed(state, "several_new_tiles", sorted(_name(p.pips) for p in new), events)
        left = sorted(new, key=lambda p: _name(p.pips))
        progress = True
        while left and progress and not self.hand.is_over():
            progress = False
            for p in left:
                placement = place(self.hand.table, p, found, table_pieces)
                if placement is None or not self._fits(p, placement):
                    continue
                seat, name = self._seat(), _name(p.pips)
                assert placement.end is not None
                try:
                    points = self.hand.play(Play(Tile(*p.pips), placement.end), seat=seat)
                except IllegalAction:
                    continue
                self._last_seen[name] = table_pieces[name] = p
                self._emit(events, Event(state.frame, Kind.PLAY, tile=name, end=placement.end.value, player=seat,
                                         points=points, inferred=True))
                self._after_play(state, events)
                left.remove(p)
                progress = True
                break

    def _age(self, p: Piece) -> int:
        """The first stable state's frame that showed a tile where ``p`` lies."""
        for centre, frame in self._seen:
            if math.dist(centre, p.centre) < 0.5 * p.width:
                return frame
        return self.last_frame

    def _fits(self, p: Piece, placement: Placement) -> bool:
        """Whether the tile now shows the end's number against the end it touches."""
        if placement.end is None or placement.reason is not None:
            return False
        value = self.hand.table.values[_END_INDEX[placement.end]]
        return value in p.pips and (placement.touching is None or placement.touching == value)

    def _unfollowed(self, state: StableState, reason: str, tiles: Sequence[str], events: list[Event]) -> None:
        self._unfollowed_at(state.frame, reason, tiles, events)

    def _unfollowed_at(self, frame: int, reason: str, tiles: Sequence[str], events: list[Event]) -> None:
        key = (reason, *tiles) if tiles else (reason, str(frame))
        if key not in self.reported:
            self.reported.add(key)
            self._emit(events, Event(frame, Kind.UNFOLLOWED, reason=reason, tiles=tuple(tiles) or None))

    def _open(self, state: StableState, p: Piece, events: list[Event], frame: int | None = None,
              inferred: bool | None = None) -> None:
        when = state.frame if frame is None else frame
        seat = self._seat()
        tile = Tile(*p.pips)
        try:
            points = self.hand.play(Play(tile), seat=seat)
        except IllegalAction as error:
            self.pending[str(tile)] = None
            self._emit(events, Event(when, Kind.ILLEGAL, tile=str(tile), reason=error.reason.value, player=seat))
            return
        self._last_seen[str(tile)] = p
        self._emit(events, Event(when, Kind.PLAY, tile=str(tile), player=seat, points=points, inferred=inferred))
        self._after_play(state, events)

    def _play(self, state: StableState, p: Piece, placement: Placement, events: list[Event],
              frame: int | None = None) -> None:
        when = state.frame if frame is None else frame
        seat = self._seat()
        tile = Tile(*p.pips)
        name = str(tile)
        end = placement.end
        reason = placement.reason
        if end is not None and placement.touching is not None and not tile.is_double:
            value = self.hand.table.values[_END_INDEX[end]]
            if placement.touching != value and value in tile:
                reason = "mismatch"  # laid the wrong way round: its other half faces the end
        if reason is None and end is not None:
            try:
                points = self.hand.play(Play(tile, end), seat=seat)
            except IllegalAction as error:
                reason = error.reason.value
            else:
                self.pending.pop(name, None)
                self._last_seen[name] = p
                self._emit(events, Event(when, Kind.PLAY, tile=name, end=end.value, player=seat, points=points))
                self._after_play(state, events)
                return
        if reason == "ambiguous_end":
            self._unfollowed(state, "ambiguous_end", [name], events)
            return
        if reason in ("end_closed", "no_such_end") and not self._explained(state, name):
            return  # where the line stands is not all seen: a tile the referee missed may open that end
        self.pending[name] = end
        self._emit(events, Event(when, Kind.ILLEGAL, tile=name, end=None if end is None else end.value,
                                 reason=reason, player=seat))

    def _explained(self, state: StableState, new: str) -> bool:
        """Every face-up tile of the state is read and accounted for (on the rules table, a
        pending illegal tile, or ``new``): only then does a closed end say the tile is illegal
        rather than that the referee missed the tile that opened it."""
        known = {*self.on_table(), *self.pending, new}
        return all(t.decided and t.name in known for t in state.tiles)

    def _after_play(self, state: StableState, events: list[Event]) -> None:
        outcome = self.hand.outcome()
        if outcome is None:
            return
        if outcome.termination is Termination.BLOCKED:
            self._emit(events, Event(state.frame, Kind.BLOCKED))
        if outcome.termination is Termination.TARGET:
            self._finish(state.frame, events, None)
        else:
            self.waiting_reveal = True

    # -- the end of a hand -------------------------------------------------------------------
    def _reveal(self, state: StableState, events: list[Event]) -> None:
        """The players' tiles laid face up apart from the line: once every tile still held is
        read, score the hand."""
        table_names = set(self.on_table())
        shown = [t for t in state.tiles if t.decided and t.name not in table_names]
        held = [self.hand.held_count(s) for s in range(self.rules.players)]
        if sum(held) == 0:
            self._finish(state.frame, events, [[] for _ in held])
            return
        if len(shown) != sum(held) or any(not t.decided for t in state.tiles if t.name not in table_names):
            return
        seats = assign_seats([t.reading for t in shown], held, (state.width, state.height), self.config.seats)
        if seats is None:
            self._unfollowed(state, "reveal_seats", sorted(t.name for t in shown), events)
            return
        self._finish(state.frame, events, [[_name(r.pips) for r in seat] for seat in seats])

    def _finish(self, frame: int, events: list[Event], reveal: list[list[str]] | None) -> None:
        if reveal is not None:
            try:
                for seat, tiles in enumerate(reveal):
                    if self.hand.held_count(seat):
                        self.hand.reveal(seat, [Tile.parse(t) for t in tiles])
            except ValueError:
                reveal = None
        outcome = self.match.finish_hand()
        self._finished_line = self.on_table()
        self.waiting_reveal = False
        self.over = True
        self._emit(events, Event(frame, Kind.HAND_END, winner=None if outcome is None else outcome.winner,
                                 points=None if outcome is None else outcome.points,
                                 reveal=None if reveal is None else tuple(tuple(s) for s in reveal)))
        if self.match.is_over():
            self._emit(events, Event(frame, Kind.MATCH_END, winners=tuple(self.match.winners()),
                                     scores=tuple(self.match.scores)))

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
        if self.waiting_reveal:
            self._finish(self.last_frame, events, None)
        return events

    def _new_hand(self) -> None:
        self.hand = self.match.new_hand()
        self.over = False
        self.pending.clear()
        self.gone.clear()
        self.face_down = None
        self._tentative = None
        self._last_seen = {}
        self._seen = []

    # -- by hand ------------------------------------------------------------------------------
    def pass_turn(self, frame: int) -> list[Event]:
        events: list[Event] = []
        seat = self._seat()
        try:
            self.hand.pass_turn(seat)
        except IllegalAction as error:
            self._emit(events, Event(frame, Kind.ILLEGAL, reason=error.reason.value, player=seat))
            return events
        self._emit(events, Event(frame, Kind.PASS, player=seat))
        outcome = self.hand.outcome()
        if outcome is not None:
            self._emit(events, Event(frame, Kind.BLOCKED))
            self.waiting_reveal = True
        return events

    def undo(self, frame: int) -> list[Event]:
        """Take back the last action of the hand (a play, a draw or a pass)."""
        events: list[Event] = []
        if self.over or not self.hand.move_count():
            return events
        action = self.hand.undo()
        self.waiting_reveal = False
        self._emit(events, Event(frame, Kind.UNDO, tile=None if action.tile is None else str(action.tile),
                                 reason=action.kind, player=action.player))
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
        self._emit(events, Event(frame, Kind.CORRECTION, tile=str(right), reason=str(wrong)))
        return events

    def _replay(self, actions: list[Action], arms: list[int], swap: dict[Tile, Tile]) -> None:
        """Apply ``actions`` again (plays on the ``arms`` they went to), tiles renamed by ``swap``."""
        plays = iter(arms)
        for action in actions:
            if action.kind == "play":
                assert action.tile is not None
                tile = swap.get(action.tile, action.tile)
                i = next(plays)
                end = None if i < 0 else [End.LEFT, End.RIGHT, End.UP, End.DOWN][i]
                self.hand.play(Play(tile, end), seat=action.player)
            elif action.kind == "draw":
                self.hand.draw(seat=action.player, unseen=True)
            else:
                self.hand.pass_turn(action.player)


def _half_against(u: Piece, found: list[Contact], others: set[int]) -> int | None:
    """The half of ``u`` that touches one of ``others`` (None: not by a half)."""
    for c in found:
        if c.tile == u.index and c.other in others and not c.side:
            return c.half
        if c.other == u.index and c.tile in others and c.other_half >= 0:
            return c.other_half
    return None


def _values_against(u: Piece, half: int, found: list[Contact], clear: dict[int, Piece]) -> list[tuple[Piece, int]]:
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


def _joined(pieces: list[Piece], found: list[Contact]) -> Piece | None:
    """The tile touching the most others when all of ``pieces`` form one joined group, else None."""
    links: dict[int, set[int]] = {p.index: set() for p in pieces}
    for c in found:
        if c.tile in links and c.other in links:
            links[c.tile].add(c.other)
            links[c.other].add(c.tile)
    start = pieces[0].index
    seen, todo = {start}, [start]
    while todo:
        for k in links[todo.pop()] - seen:
            seen.add(k)
            todo.append(k)
    if len(seen) != len(pieces):
        return None
    return max(pieces, key=lambda p: (len(links[p.index]), -p.index))


_END_INDEX = {End.LEFT: 0, End.RIGHT: 1, End.UP: 2, End.DOWN: 3}


def _name(pips: tuple[int, int]) -> str:
    return f"{max(pips)}-{min(pips)}"


__all__ = ["Referee", "RefereeConfig", "StableTile"]
