"""The hand's first tile: the one seen first, or, in a first hand (which opens on the highest
double dealt), the double joined to it; an opening tile vision cannot read, pinned down by the
clear tiles laid against it; several seen at once."""

from __future__ import annotations

import dataclasses

from referee.layout.geometry import Contact, Piece, contacts
from referee.rules import IllegalAction, Play, Tile
from referee.session.against import middle_values, values_against
from referee.session.base import RefereeBase, name_of
from referee.session.events import Event, Kind
from referee.session.stabilise import StableState


class Opening(RefereeBase):
    """The part of the referee that opens the hand."""

    def _opening(self, state: StableState, pieces: list[Piece], new: list[Piece], unknown_new: list[Piece],
                 events: list[Event]) -> bool:
        """The first tile of the hand, from the ``new`` tiles read clearly on an empty line (and
        the ``unknown_new`` ones read doubtfully; ``pieces``: all the state's tiles): played when
        it can be told, else the referee waits. True when it went in and other new tiles are
        left to play against it."""
        if not new:
            return False
        clear = {q.index for q in new}
        first_clear = min(self._age(q) for q in new)
        doubtful = {u.index for u in unknown_new if self._age(u) <= first_clear}
        found = contacts(pieces, self.config.reach, self.config.middle, self.config.facing)
        if any({c.tile, c.other} & clear and {c.tile, c.other} & doubtful for c in found):
            # A tile against the new ones, there as early, cannot be read yet: it opened,
            # if the tiles laid against it pin it down; else wait.
            return self._open_unread(state, [u for u in unknown_new if u.index in doubtful], new, found, events)
        ages = [self._age(p) for p in new]
        first = min(ages)
        oldest = [p for p, age in zip(new, ages, strict=True) if age == first]
        among = contacts(new, self.config.reach, self.config.middle, self.config.facing)
        chosen = self._opening_double(state, oldest, new, among, events) if self.hand.opens_on_double \
            else self._opening_tile(state, oldest, new, among, events)
        if chosen is None:
            return False
        opener = chosen
        guessed = len(oldest) > 1 or opener is not oldest[0]
        seen = state.tiles[opener.index]
        if seen.votes < self.config.illegal_votes or seen.best < self.config.illegal_confidence:
            # The opening sets the line every later play is judged by: read only once, or
            # only just surely (a pastel back read as the double blank), it waits.
            return False
        self._open(state, opener, events, frame=first, inferred=guessed or None)
        return len(new) > 1 and bool(self.on_table())

    def _open_unread(self, state: StableState, doubtful: list[Piece], new: list[Piece], found: list[Contact],
                     events: list[Event]) -> bool:
        """The opening tile, read by no frame, pinned down by the clear tiles laid against it
        later (or, in a hand that opens on a double, with it): across the middle of its long
        side, the double of the number they show (vision's doubtful reading that double, or a
        tile against each side showing it); lengthwise, a clear tile against each of its ends
        gives both its numbers. Played, marked inferred; False when nothing pins it down, or the
        oldest tile is not one alone."""
        clear = {q.index: q for q in new}
        ages = {u.index: self._age(u) for u in doubtful}
        first = min(ages.values(), default=None)
        oldest = [u for u in doubtful if ages[u.index] == first]
        if len(oldest) != 1:
            return False
        u = oldest[0]
        later = {i: q for i, q in clear.items() if self._age(q) > ages[u.index]}
        # A hand that opens on a double: a tile across the middle of a double seen with it came
        # after it, as one seen later did.
        crossing = middle_values(u, found, clear if self.hand.opens_on_double else later)
        ends = [{w for _, w in values_against(u, half, found, later)} for half in (0, 1)]
        if crossing:
            values = {w for _, w in crossing}
            if len(values) != 1 or (len(crossing) < 2 and u.pips != (next(iter(values)),) * 2):
                return False
            v = values.pop()
            pips = (v, v)
        elif all(len(e) == 1 for e in ends):
            pips = (next(iter(ends[0])), next(iter(ends[1])))
        else:
            return False
        tile = Tile(*pips)
        name = str(tile)
        if any(name_of(q.pips) == name for q in new):
            return False
        seat = self._seat()
        try:
            points = self.hand.play(Play(tile), seat=seat)
        except IllegalAction:
            return False  # the rules say this tile cannot open: not what lies there
        self._last_seen[name] = dataclasses.replace(u, pips=pips, uncertain=False)
        self._emit(events, Event(ages[u.index], Kind.PLAY, tile=name, player=seat, points=points, inferred=True))
        self._after_play(state, events)
        return True

    def _opening_tile(self, state: StableState, oldest: list[Piece], new: list[Piece], among: list[Contact],
                      events: list[Event]) -> Piece | None:
        """The tile that opened: the first seen, or of several seen first together, all joined,
        the one touching most others (said: the referee could not follow); None when they lie
        apart, as which one opened cannot be told."""
        if len(oldest) == 1:
            return oldest[0]
        self._unfollowed(state, "several_new_tiles", sorted(name_of(p.pips) for p in new), events)
        return _joined(new, among)

    def _opening_double(self, state: StableState, oldest: list[Piece], new: list[Piece], among: list[Contact],
                        events: list[Event]) -> Piece | None:
        """A first hand opens on the highest double dealt, so a plain tile seen first has most
        likely been laid against a double vision missed: the opening is the double joined to the
        tiles seen first (the first seen of those, the highest of those first seen together).
        With none, the referee says it cannot follow (once a hand) and waits, unless no double
        may have been dealt and more than ``plain_opening`` clear tiles lie joined to them (then
        the first seen opened). None while it waits."""
        group = {p.index: p for first in oldest for p in _group(first, new, among)}
        doubles = [p for p in group.values() if p.pips[0] == p.pips[1]]
        if doubles:
            return min(doubles, key=lambda p: (self._age(p), -p.pips[0]))
        if not self.hand.double_dealt and len(group) > self.config.plain_opening:
            return self._opening_tile(state, oldest, new, among, events)
        self._unfollowed_at(state.frame, "opening_not_double", sorted(name_of(p.pips) for p in oldest), events,
                            once="opening")
        return None

    def _open(self, state: StableState, p: Piece, events: list[Event], frame: int | None = None,
              inferred: bool | None = None) -> None:
        when = self._when(state, p) if frame is None else frame
        seat = self._seat()
        tile = Tile(*p.pips)
        try:
            points = self.hand.play(Play(tile), seat=seat)
        except IllegalAction as error:
            self.pending[str(tile)] = None
            self._pending_at[str(tile)] = p
            self._emit(events, Event(when, Kind.ILLEGAL, tile=str(tile), reason=error.reason.value, player=seat))
            return
        self._last_seen[str(tile)] = p
        self._emit(events, Event(when, Kind.PLAY, tile=str(tile), player=seat, points=points, inferred=inferred))
        self._after_play(state, events)

    @staticmethod
    def _when(state: StableState, p: Piece) -> int:
        """The frame of a play seen in ``state``: the state's, or later when the tile first read
        surely there came into a state already running (its run began with the tile read
        doubtfully, or not at all)."""
        seen = state.tiles[p.index].first_seen
        return state.frame if seen is None else max(state.frame, seen)


def _links(pieces: list[Piece], found: list[Contact]) -> dict[int, set[int]]:
    """For each of ``pieces`` (by index), the others of them it touches."""
    links: dict[int, set[int]] = {p.index: set() for p in pieces}
    for c in found:
        if c.tile in links and c.other in links:
            links[c.tile].add(c.other)
            links[c.other].add(c.tile)
    return links


def _group(start: Piece, pieces: list[Piece], found: list[Contact]) -> list[Piece]:
    """The tiles of ``pieces`` joined to ``start`` through touching ones, ``start`` among them."""
    links = _links(pieces, found)
    seen, todo = {start.index}, [start.index]
    while todo:
        for k in links[todo.pop()] - seen:
            seen.add(k)
            todo.append(k)
    return [p for p in pieces if p.index in seen]


def _joined(pieces: list[Piece], found: list[Contact]) -> Piece | None:
    """The tile touching the most others when all of ``pieces`` form one joined group, else None."""
    if len(_group(pieces[0], pieces, found)) != len(pieces):
        return None
    links = _links(pieces, found)
    return max(pieces, key=lambda p: (len(links[p.index]), -p.index))

