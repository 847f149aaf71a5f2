"""Draws, as the referee sees them: face-down tiles gone from their places after the opening,
confirmed by the next stable state, put in where they happened (before the drawer's play)."""

from __future__ import annotations

import math

from referee.rules import Action, IllegalAction
from referee.session.base import RefereeBase
from referee.session.events import Event, Kind
from referee.session.stabilise import StableState


class Draws(RefereeBase):
    """The part of the referee that counts the boneyard and turns the tiles gone from it into draws."""

    def _draws(self, state: StableState, events: list[Event]) -> None:
        """Face-down tiles gone from their places after the opening are draws (before it, the
        deal takes tiles). A place counts as emptied once the next stable state shows it empty
        too (a tile vision missed in one state is no draw; the same run of frames grown by a
        frame is no next state: mostly the same frames, read the same way), and only as many
        as the places newly showing a face-down tile do not make up (tiles pushed about). The
        draws then go in where they happened: by the player to move then, before any play
        since; "then" is the first frame, settled or not, since which no frame showed more
        backs (``StableState.down_since``): a tile first read after it was laid after the
        draws (rendered hand 9309-000: a draw in a frame that never settled, and the next
        play in frames that never agreed, came in one state; the draw went to the wrong
        player, who then seemed to hold a tile more at the end). Both states must show that
        many fewer face-down tiles in all, too; a state between them that shows more, the
        places still empty, leaves it to the next (up to ``boneyard_states``).

        Vision may take a plain back for a face it cannot read: no place where any tile lies,
        even one read face up, is emptied."""
        here = list(state.face_down_at)
        window = self.config.boneyard_states
        self._backs_seen = [*self._backs_seen, here][-window:]
        if not self.hand.table.size or not self.rules.drawing or self.face_down is None:
            self.face_down, self._boneyard_at, self._tentative = len(here), here, None
            self._down_counts = [*self._down_counts, len(here)][-window:]
            return
        if self._pile is None:
            self._pile = self.face_down + self._draws_seen()
        reach = self._tile_reach(state)
        lying = [t.reading.center for t in state.tiles]

        def empty(p: tuple[float, float]) -> bool:
            return not any(math.dist(p, q) < reach for q in [*here, *lying])

        if self._tentative is not None and state.frame > self._tentative[1]:
            places, frame, index, drawn, waited, since = self._tentative
            self._tentative = None
            if all(empty(p) for p in places):
                if len(here) <= len(self._boneyard_at) - drawn:
                    self._drawn_from(places, drawn, since, index, events)
                elif waited + 1 < window:
                    # The places stay empty, but the state shows more backs in all (it took the
                    # table's grain or a pile's seams for backs): a later state says.
                    self._tentative = (places, frame, index, drawn, waited + 1, since)
        excess = len(self._boneyard_at) - self.hand.boneyard_size()
        if excess > 0:
            # More places than the boneyard holds backs (the deal and the draws say how many):
            # vision took something else for backs when it was counted, or a draw went in
            # without a place (a player who seemed out laid a tile): places found empty are
            # those, as many as there are too many, and none is a draw.
            stale = [p for p in self._boneyard_at if empty(p)][:excess]
            self._boneyard_at = [p for p in self._boneyard_at if p not in stale]
            self.face_down = len(self._boneyard_at)
        self._missed_backs(here, reach)
        missing = [p for p in self._boneyard_at if empty(p)]
        appeared = [q for q in here if not any(math.dist(p, q) < reach for p in self._boneyard_at)]
        # No more draws than the count fell below the lowest of the last states' counts: a pile of
        # touching face-down tiles is read as a few more or fewer from state to state.
        floor = min(self._down_counts, default=len(self._boneyard_at))
        drawn = min(len(missing) - len(appeared), floor - len(here))
        if self._tentative is None and drawn > 0 and len(here) < len(self._boneyard_at):
            since = state.frame if state.down_since is None else state.down_since
            self._tentative = (missing, state.frame, self.hand.move_count(), drawn, 0, since)
        self._down_counts = [*self._down_counts, len(here)][-window:]

    def _drawn_from(self, places: list[tuple[float, float]], drawn: int, frame: int, index: int,
                    events: list[Event]) -> None:
        """``drawn`` draws from the emptied ``places``, dated ``frame``, in after move ``index``."""
        self._confirm_draws(drawn, frame, index, events)
        self._boneyard_at = [p for p in self._boneyard_at if p not in places]
        self.face_down = len(self._boneyard_at)
        self._down_counts = []

    def _draws_said(self, events: list[Event]) -> bool:
        """A player says they pass (by hand) while the rules still see tiles to draw: draws seen
        in one state and waiting for the next to confirm them (see :meth:`_draws`) are
        confirmed now, when they leave nothing to draw. The player's word stands for the next
        state: rendered hand 9309-001, where the last tile was drawn and the pass entered
        before the next state came, and a false ``must_draw`` was called. Whether it did."""
        if self._tentative is None:
            return False
        places, _, index, drawn, _, since = self._tentative
        if drawn < self.hand.drawable():
            return False
        self._tentative = None
        self._drawn_from(places, drawn, since, index, events)
        return True

    def _missed_backs(self, here: list[tuple[float, float]], reach: float) -> None:
        """Backs vision missed when the boneyard was counted (touching backs boxed as fewer):
        places no back of the boneyard lay at, where each of the last ``boneyard_states``
        states shows one, join the boneyard, when the rules leave room for them all (the deal
        and the draws say how many backs it holds). Otherwise a draw from them is never seen,
        and the player who drew is taken to hold a tile fewer."""
        room = self.hand.boneyard_size() - len(self._boneyard_at)
        if room <= 0 or len(self._backs_seen) < self.config.boneyard_states:
            return

        def near(p: tuple[float, float], places: list[tuple[float, float]]) -> bool:
            return any(math.dist(p, q) < reach for q in places)

        new = [q for q in here if not near(q, self._boneyard_at) and all(near(q, seen) for seen in self._backs_seen)]
        if new and len(new) <= room:
            self._boneyard_at = [*self._boneyard_at, *new]
            self.face_down = len(self._boneyard_at)
            if self._pile is not None:
                self._pile += len(new)

    def _tile_reach(self, state: StableState) -> float:
        """A tile's width in this state's pixels: how far a place may shift and stay the place
        (boxes on touching face-down tiles shift from frame to frame)."""
        widths = [math.dist(*t.reading.halves) for t in state.tiles]
        return float(sorted(widths)[len(widths) // 2]) if widths else 20.0

    def _confirm_draws(self, drawn: int, frame: int, index: int, events: list[Event], shift: bool = True) -> None:
        # A play whose tile lay on the table in a state before the face-down tiles went (and was
        # read only later) came before the draws (unless ``index`` is known: ``shift`` False).
        moves = self.hand.moves
        while shift and index < len(moves) and self._laid_before(moves[index], frame):
            index += 1
        later = moves[index:]
        order = self.hand.table.order
        arms = order[len(order) - sum(1 for m in later if m.kind == "play"):]
        for _ in later:
            self.hand.undo()
        done: list[Event] = []
        for _ in range(drawn):
            seat = self._draw_unseen(frame, events)
            if seat is None:
                break
            done.append(Event(frame, Kind.DRAW, player=seat, at=index + len(done) if later else None))
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

    def _laid_before(self, move: Action, frame: int) -> bool:
        """Whether ``move`` is a play whose tile was on the table before ``frame``: shown there
        by a stable state before it, or read surely there in a frame before it (a tile read in
        a run too short to be a state, whose state came with the draws: the draws came after)."""
        name = str(move.tile)
        seen = self._last_seen.get(name) if move.kind == "play" else None
        if seen is None:
            return False
        return min(self._age(seen), self._first_read.get(name, frame)) < frame

    def _draws_seen(self) -> int:
        """The draws of this hand so far."""
        return sum(1 for m in self.hand.moves if m.kind == "draw")
