"""New tiles against the line (the opening is :mod:`referee.session.opening`'s): a play at the
end a tile touches (judged by the rules), several at once (in the order they first showed, else
reported and re-read), and a tile vision cannot read that the rules pin down: between an open end
and a clearly read neighbour, or across an open end (a double)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from referee.layout.geometry import Contact, Piece, contacts
from referee.rules import IllegalAction, Play, Tile
from referee.rules.table import END_INDEX, End
from referee.session.against import half_against, middle_values, value_against, values_against
from referee.session.base import name_of
from referee.session.ends import Placement, place
from referee.session.events import Event, Kind
from referee.session.opening import Opening
from referee.session.stabilise import StableState, StableTile


class Plays(Opening):
    """The part of the referee that turns new face-up tiles into plays and illegal placements."""

    def _standing(self, pieces: list[Piece], decided: dict[str, int], order: list[str]
                  ) -> tuple[list[Piece], dict[str, Piece]]:
        """The line as it stands in this state: the pieces (``decided``: the tiles read surely, by
        index) with the line's tiles (``order``: as :meth:`on_table` lists them) read doubtfully,
        or not at all, put where they were last seen, and the piece of each tile of the line.
        The tiles are placed in that order: two may claim one box, and which gets it must not
        hang on the process (a set of names iterates in an order its hash seed sets)."""
        table_names = set(order)
        table_pieces = {n: pieces[i] for n, i in decided.items() if n in table_names}
        used = set(decided.values())
        pieces = list(pieces)
        for name in order:  # a table tile read doubtfully now is still the tile played there
            last = self._last_seen.get(name)
            if last is None or name in table_pieces:
                continue
            here = self._near(pieces, last)
            if here is None:
                # Nothing lies where it was last seen (and it is the only one: several would be
                # an arm): vision lost it in this state, and a tile laid against it is against
                # the tile there (one taken back has been taken back by now). Not where a box
                # reaches over its place: tiles do not overlap, and such a box straddles it and
                # its neighbour (reading the two halves either side of the seam).
                if any(last.outside(q.centre) < 0.25 * last.length for q in pieces):
                    continue
                ghost = dataclasses.replace(last, index=len(pieces), uncertain=False)
                pieces.append(ghost)
                table_pieces[name] = ghost
                continue
            if here.index not in used:
                turn = here.axis[0] * last.axis[0] + here.axis[1] * last.axis[1]
                if abs(turn) < 0.7 or math.dist(here.centre, last.centre) >= 0.5 * last.width:
                    # A tile of the line neither turns nor slides: a box lying across where it
                    # lay (a run packed straight through a double lying across it), or slid
                    # along the run, is vision's doing, and the tile is where it was last seen.
                    pieces[here.index] = dataclasses.replace(last, index=here.index, uncertain=False)
                    table_pieces[name] = pieces[here.index]
                else:
                    pips = last.pips if turn >= 0 else (last.pips[1], last.pips[0])
                    table_pieces[name] = dataclasses.replace(here, pips=pips, uncertain=False)
                used.add(here.index)
        return pieces, table_pieces

    def _plays(self, state: StableState, pieces: list[Piece], decided: dict[str, int], events: list[Event]) -> None:
        order = self.on_table()
        table_names = set(order)
        for name in list(self.pending):
            if name not in decided:
                del self.pending[name]  # the illegal tile was taken back
                self._retracted.add(name)
                if (where := self._pending_at.pop(name, None)) is not None:
                    self._forget(where)
                    # what lies there now came in this state, as a tile laid elsewhere in it did
                    self._note_places(pieces, state.frame)
        known = [self._last_seen[n] for n in order if n in self._last_seen]
        # A doubtful find over a table tile, or read as a table tile beside where it lies (a box
        # straddling it and its neighbour: tiles are unique), is that tile, not a new one.
        unknown_new = [p for p, t in zip(pieces, state.tiles, strict=True)
                       if not t.decided and not any(self._at(p, k) or k.outside(p.centre) == 0 for k in known)
                       and not self._doubled(p, table_names)]
        new = [pieces[i] for n, i in decided.items() if n not in table_names]
        pieces, table_pieces = self._standing(pieces, decided, order)
        if not table_names:
            if self._opening(state, pieces, new, unknown_new, events):
                self._plays(state, pieces, decided, events)  # the rest, against the opening
            return
        found = contacts(pieces, self.config.reach, self.config.middle, self.config.facing)
        if self._by_hand:
            unknown_new = self._bind_by_hand(unknown_new, found, table_pieces)
        # A state may show a chain of tiles the referee has not seen laid (their own states came
        # too late to read): each round plays what touches the line as it now stands.
        waiting: set[int] = set()  # tiles of a round that went in one at a time: dated as they came
        for _ in range(len(new) + len(unknown_new)):
            if self.hand.is_over():
                return
            attempts = []
            for p in new:
                name = name_of(p.pips)
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
            if touching_unknown:
                new_unread = [p for p in new if name_of(p.pips) not in table_pieces]
                if self._deduce(state, touching_unknown, new_unread, found, table_pieces, events):
                    continue
            if touching_unknown:
                self._cannot_read(state, touching_unknown, events)
                return  # a new tile nobody can read yet: wait for a state that shows it clearly
            if not attempts:
                return
            before = len(table_pieces)
            if len(attempts) == 1:
                p, placement = attempts[0]
                self._play(state, p, placement, events, frame=self._age(p) if p.index in waiting else None)
                if name_of(p.pips) in self.on_table():
                    table_pieces[name_of(p.pips)] = p
            else:
                now = [p for p, _ in attempts]
                if len({self._age(p) for p in now}) == len(now):
                    # Each first showed in a different state: the first of them goes in, and the
                    # next round's tiles, laid against it, take their turn among the rest.
                    waiting.update(p.index for p in now)
                    now = [min(now, key=self._age)]
                later = [p for p in new if name_of(p.pips) not in table_pieces and p not in now]
                self._several(state, now, found, table_pieces, events, later)
            if len(table_pieces) == before:
                return

    def _cannot_read(self, state: StableState, unread: list[Piece], events: list[Event]) -> None:
        """New tiles against the line that vision cannot read: the referee waits for a state
        that shows them clearly, and once one has stayed unread through ``unread_states``
        stable states it says so, once for that tile (an arm may come and go meanwhile)."""
        for p in unread:
            states = self._unread.setdefault(self._age(p), set())
            states.add(state.frame)
            if len(states) == self.config.unread_states:
                self._unfollowed(state, "unreadable_tile", (), events)

    def _bind_by_hand(self, unread: list[Piece], found: list[Contact], table_pieces: dict[str, Piece]) -> list[Piece]:
        """Tiles played by hand take the unread tiles on the table, oldest first: one against
        the line whose touching half can show the number it touches (oriented so); a double,
        one touching the line any way (or, opening the hand, the oldest unread tile). The
        referee then knows where they lie and follows the tiles laid against them. The unread
        tiles left."""
        left = list(unread)
        for name in list(self._by_hand):
            if name in table_pieces or name in self._last_seen:
                self._by_hand.remove(name)  # read after all
                continue
            tile = Tile.parse(name)
            placed = {q.index: q for q in table_pieces.values()}
            for u in sorted(left, key=self._age):
                if tile.is_double:
                    if self.hand.table.size > 1 and not any(
                            (c.tile == u.index and c.other in placed) or (c.other == u.index and c.tile in placed)
                            for c in found):
                        continue
                    pips = (tile.high, tile.high)
                else:
                    against = value_against(u, found, placed)
                    if against is None or against[1] not in tile:
                        continue
                    half, value = against
                    far = tile.other(value)
                    pips = (value, far) if half == 0 else (far, value)
                self._last_seen[name] = table_pieces[name] = dataclasses.replace(u, pips=pips, uncertain=False)
                self._by_hand.remove(name)
                left.remove(u)
                break
        return left

    def _doubled(self, p: Piece, table_names: set[str]) -> bool:
        """Whether ``p`` reads as a tile already on the table, less than ``doubled`` of a tile's
        length from where that tile was last seen."""
        last = self._last_seen.get(name_of(p.pips))
        return name_of(p.pips) in table_names and last is not None \
            and math.dist(p.centre, last.centre) < self.config.doubled * last.length

    def _deduce(self, state: StableState, unread: list[Piece], new: list[Piece], found: list[Contact],
                table_pieces: dict[str, Piece], events: list[Event]) -> bool:
        """The rules as a safety net for a tile vision cannot read at an open end: pinned down
        along the line (:meth:`_along_end`) or across it (:meth:`_across_end`), it can only be
        that tile. Played, marked inferred; False when no unread tile is pinned down."""
        clear = {q.index: q for q in new}
        for u in unread:
            pinned = self._across_end(u, found, table_pieces, clear, state.tiles[u.index].sure_halves) \
                or self._along_end(u, found, table_pieces, clear, state.tiles[u.index].sure_halves) \
                or self._tried_again(u, found, table_pieces, state.tiles[u.index].sure_halves)
            if pinned is None:
                continue
            pips, end = pinned
            tile = Tile(*pips)
            name = str(tile)
            if name in table_pieces or name in self.pending or any(name_of(q.pips) == name for q in new):
                continue
            when = self._age(u)
            try:
                seat, points, redraw = self._lay(tile, end, when)
            except IllegalAction:
                continue
            self._last_seen[name] = table_pieces[name] = dataclasses.replace(u, pips=pips, uncertain=False)
            play = Event(when, Kind.PLAY, tile=name, end=end.value, player=seat, points=points, inferred=True)
            if redraw:
                self._redraw(state, redraw, play, events)
            else:
                self._emit(events, play)
            self._after_play(state, events)
            return True
        return False

    def _along_end(self, u: Piece, found: list[Contact], table_pieces: dict[str, Piece],
                   clear: dict[int, Piece], sure: tuple[int | None, int | None] = (None, None),
                   ) -> tuple[tuple[int, int], End] | None:
        """An unread tile laid at an open end (its near half must show the end's number) whose
        far half is known: a tile read clearly against it, and its own far half read as that
        tile's number; or, with nothing against it, its far half read surely over the run
        (``sure``, the stable tile's ``sure_halves``) and its near half never read surely as
        another number. Its numbers, half 0 first, and the end. A far half read alone as blank
        is not enough (a box slid off the tile's end reads the table there as a blank half), nor
        as the end's number (a double lies across the line; lengthwise, the box straddles a seam)."""
        if u.is_double:
            return None
        near = half_against(u, found, {q.index for q in table_pieces.values()})
        where = place(self.hand.table, u, found, table_pieces)
        if near is None or where is None or where.end is None or where.reason is not None:
            return None
        far = 1 - near
        seen = [w for _, w in values_against(u, far, found, clear) if w == u.pips[far]]
        value = self.hand.table.values[END_INDEX[where.end]]
        alone = sure[far]
        if not seen and alone not in (None, 0, value) and sure[near] in (None, value):
            seen = [alone]
        if not seen or not 0 <= value <= self.rules.max_pips:
            return None
        return ((value, seen[0]) if near == 0 else (seen[0], value)), where.end

    def _tried_again(self, u: Piece, found: list[Contact], table_pieces: dict[str, Piece],
                     sure: tuple[int | None, int | None]) -> tuple[tuple[int, int], End] | None:
        """An unread tile at an open end that vision reads, doubtfully, as an illegal tile taken
        back this hand, and that fits that end: the player who tried it tried it again where it
        goes (the tile was read clearly the first time). Its numbers and the end; None when
        either half was read surely as another number, or the rules refuse it there."""
        if name_of(u.pips) not in self._retracted or any(
                s is not None and s != v for s, v in zip(sure, u.pips, strict=True)):
            return None
        where = place(self.hand.table, dataclasses.replace(u, uncertain=False), found, table_pieces)
        if where is None or where.end is None or where.reason is not None:
            return None
        return u.pips, where.end

    def _across_end(self, u: Piece, found: list[Contact], table_pieces: dict[str, Piece],
                    clear: dict[int, Piece], sure: tuple[int | None, int | None] = (None, None),
                    ) -> tuple[tuple[int, int], End] | None:
        """An unread tile lying across an open end (the end tile's end against the middle of its
        long side) can only be the double of the end's number: pinned down when vision's own
        doubtful reading is that double, or one half was read surely as that number over the
        run (``sure``, the stable tile's ``sure_halves``) and the other never as another, or a
        clear tile against its other side shows it."""
        by_index = {q.index: q for q in table_pieces.values()}
        at_line = middle_values(u, found, by_index)
        if len(at_line) != 1:
            return None
        v = at_line[0][1]
        beyond = [w for _, w in middle_values(u, found, clear)]
        half_sure = v in sure and all(h in (None, v) for h in sure)
        if any(w != v for w in beyond) or (u.pips != (v, v) and not beyond and not half_sure):
            return None
        double = dataclasses.replace(u, pips=(v, v), uncertain=False)
        placement = place(self.hand.table, double, found, table_pieces)
        if placement is None or placement.end is None or placement.reason is not None:
            return None
        return (v, v), placement.end

    def _several(self, state: StableState, new: list[Piece], found: list[Contact], table_pieces: dict[str, Piece],
                 events: list[Event], later: Sequence[Piece] = ()) -> None:
        """Several new tiles against the line at once. When each first showed in a different
        state (a state whose reading came too late), they are plays in that order. Otherwise the
        referee says it could not follow, and re-reads the table: the tiles go on it in an order
        the rules accept, as plays marked ``inferred``: each time the first one read surely in
        any frame (:attr:`StableTile.first_seen`) of those that fit, so that ``later`` new tiles
        (laid against these) take their turn among them, and the players and scores follow the
        order the tiles came in."""
        ages = [self._age(p) for p in new]
        if len(set(ages)) == len(ages):
            for _, p in sorted(zip(ages, new, strict=True), key=lambda a: a[0]):
                placement = place(self.hand.table, p, found, table_pieces)
                if placement is not None and not self.hand.is_over():
                    self._play(state, p, placement, events, frame=self._age(p))
                    if name_of(p.pips) in self.on_table():
                        table_pieces[name_of(p.pips)] = p
            return
        self._unfollowed(state, "several_new_tiles", sorted(name_of(p.pips) for p in new), events)

        def came(p: Piece) -> tuple[int, str]:
            seen = state.tiles[p.index].first_seen
            return (state.frame if seen is None else seen, name_of(p.pips))

        left = sorted([*new, *later], key=came)
        progress = True
        while left and progress and not self.hand.is_over():
            progress = False
            for p in left:
                placement = place(self.hand.table, p, found, table_pieces)
                if placement is None or not self._fits(p, placement):
                    continue
                seat, name = self._seat(), name_of(p.pips)
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

    def _play(self, state: StableState, p: Piece, placement: Placement, events: list[Event],
              frame: int | None = None) -> None:
        when = self._when(state, p) if frame is None else frame
        seat = self._seat()
        tile = Tile(*p.pips)
        name = str(tile)
        end = placement.end
        reason = placement.reason
        if end is not None and placement.touching is not None and not tile.is_double:
            value = self.hand.table.values[END_INDEX[end]]
            # Laid the wrong way round (its other half faces the end): said only when the whole
            # state is read and accounted for, as a half read on the wrong side of a box
            # straddling a seam looks just the same.
            if placement.touching != value and value in tile and self._explained(state, name):
                reason = "mismatch"
        if reason is None and end is not None:
            # Draws put down after its place first showed a tile (unread then) came after it.
            laid = min(when, self._age(p))
            try:
                seat, points, redraw = self._lay(tile, end, laid)
            except IllegalAction as error:
                reason = error.reason.value
                seat = self._seat()
            else:
                self.pending.pop(name, None)
                self._pending_at.pop(name, None)
                self._last_seen[name] = p
                if redraw:
                    self._redraw(state, redraw, Event(laid, Kind.PLAY, tile=name, end=end.value, player=seat,
                                                      points=points, inferred=True), events)
                else:
                    # Laid before plays already followed (its own states came too late to
                    # read): the turns since went by without it, so its player and points are
                    # the rules' best account, not what was seen, and the referee says it could
                    # not follow.
                    late = self._played_since(when)
                    if late:
                        self._unfollowed(state, "late_tile", [name], events)
                    self._emit(events, Event(when, Kind.PLAY, tile=name, end=end.value, player=seat,
                                             points=points, inferred=late or None))
                self._after_play(state, events)
                return
        if reason == "ambiguous_end":
            self._unfollowed(state, "ambiguous_end", [name], events)
            return
        if reason in ("end_closed", "no_such_end") and not (self._explained(state, name) and self._line_seen(state)):
            return  # where the line stands is not all seen: a tile the referee missed may open that end
        seen = state.tiles[p.index]
        if seen.votes < self.config.illegal_votes or _surety(seen, reason, placement) < self.config.illegal_confidence:
            # An illegal placement read surely only once, or only just surely, may be a misread
            # tile: wait for more.
            return
        if self._lost_before(when):
            # Vision lost tiles of the line since the last move: a play it missed may explain
            # this one, so the referee says it cannot follow rather than calling it illegal.
            self._unfollowed(state, "line_unseen", [name], events)
            return
        self.pending[name] = end
        self._pending_at[name] = p
        self._emit(events, Event(when, Kind.ILLEGAL, tile=name, end=None if end is None else end.value,
                                 reason=reason, player=seat))

    def _lay(self, tile: Tile, end: End, when: int) -> tuple[int, int, list[Event]]:
        """Play ``tile`` on ``end`` as laid at frame ``when``: the seat that laid it, the points
        and the draws taken back first (newest first). Draws the referee put down after the tile
        was laid (it was read, or pinned down, too late) came after it, and were the next
        player's: they are taken back before the play, for :meth:`_redraw` to put down again.
        An illegal play raises :class:`IllegalAction`, the draws left as they were."""
        redraw = self._draws_since(when)
        for _ in redraw:
            self.hand.undo()
        seat = self._seat()
        try:
            points = self.hand.play(Play(tile, end), seat=seat)
        except IllegalAction:
            for event in reversed(redraw):  # as they were
                self.hand.draw(seat=event.player, unseen=True)
            raise
        return seat, points, redraw

    def _draws_since(self, frame: int) -> list[Event]:
        """The draws logged after ``frame`` that are the hand's last moves, with no play, pass
        or undo logged since (newest first); empty when there are none or the log is not that
        plain."""
        out: list[Event] = []
        for event in reversed(self.history):
            if event.kind is Kind.DRAW and event.frame > frame and event.at is None:
                out.append(event)
            elif event.kind in (*_MOVES, Kind.UNDO, Kind.HAND_END):
                break
        moves = self.hand.moves
        if not out or len(out) > len(moves) or any(m.kind != "draw" for m in moves[len(moves) - len(out):]):
            return []
        return out

    def _redraw(self, state: StableState, draws: list[Event], play: Event, events: list[Event]) -> None:
        """A play read late went in before ``draws`` (taken back from the hand already, newest
        first): said as their undoing, the play, and the draws again by the player to move
        after it, so the log replays to the same hand."""
        for event in draws:
            self._emit(events, Event(max(state.frame, self.last_frame), Kind.UNDO, reason="draw", player=event.player))
        self._emit(events, play)
        for event in reversed(draws):
            seat = self._draw_unseen(state.frame, events)
            if seat is None:
                return
            self._emit(events, Event(event.frame, Kind.DRAW, player=seat))

    def _played_since(self, frame: int) -> bool:
        """Whether a play of this hand that stands (not undone nor taken back) is dated after
        ``frame``."""
        undone = 0
        for event in reversed(self.history):
            if event.kind is Kind.HAND_END:
                return False
            if event.kind is Kind.UNDO:
                undone += 1
            elif event.kind in _MOVES and undone:
                undone -= 1
            elif event.kind is Kind.PLAY and event.frame > frame:
                return True
        return False

    def _explained(self, state: StableState, new: str) -> bool:
        """Every face-up tile of the state is read and accounted for (on the rules table, a
        pending illegal tile, or ``new``): only then does a closed end say the tile is illegal
        rather than that the referee missed the tile that opened it."""
        known = {*self.on_table(), *self.pending, new}
        return all(t.decided and t.name in known for t in state.tiles)

    def _line_seen(self, state: StableState) -> bool:
        """Every tile of the line as the referee holds it is read in the state: a state that
        shows less (vision lost part of the line) may also be missing the plays that opened an
        end the referee holds closed."""
        decided = {t.name for t in state.tiles if t.decided}
        return all(name in decided for name in self.on_table())


#: The events that are moves of the hand: an undo takes back the last of them.
_MOVES = (Kind.PLAY, Kind.DRAW, Kind.PASS)


def _surety(seen: StableTile, reason: str | None, placement: Placement) -> float:
    """How surely vision read what makes a placement illegal: the tile (its best reading), or,
    for a half against the line that does not match it, that half where it was read more
    surely than the tile (a doubtful number on the far half changes nothing of the call)."""
    halves = seen.reading.half_confidence
    a, b = seen.reading.pips
    if reason != "mismatch" or placement.touching is None or halves is None or a == b:
        return seen.best
    touching = halves[0] if a == placement.touching else halves[1] if b == placement.touching else 0.0
    return max(seen.best, touching)
