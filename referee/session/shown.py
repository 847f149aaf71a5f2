"""The tiles players show at the end of a hand, entered by hand where the camera cannot read
them: checked against what is known, logged one player at a time (a crash loses none), taken
back by undo, and scored once every player holding tiles has shown them."""

from __future__ import annotations

import copy
from collections.abc import Sequence

from referee.rules import Tile
from referee.session.base import RefereeBase
from referee.session.events import Event, Kind


class Shown(RefereeBase):
    """The part of the referee that takes a reveal typed in (:meth:`reveal_by_hand`)."""

    def reveal_by_hand(self, frame: int, tiles: Sequence[str], seat: int | None = None) -> list[Event]:
        """The tiles a player shows at the end of the hand, entered by hand (the camera cannot
        read the reveal): ``seat`` may be left out when one player alone still holds tiles.
        While other players' are still awaited it is logged as a ``reveal`` event (entered
        again for the same player, the new one counts); once every player holding tiles has
        shown them, the hand is scored (its ``hand_end`` with the reveal). ``ValueError``, with
        nothing logged or said, when no hand waits for its reveal, or the tiles contradict what
        is known (the count held, a tile on the table or shown twice)."""
        if not self.waiting_reveal:
            raise ValueError("no hand is waiting for its reveal (it is shown once the hand is over)")
        players = self.rules.players
        holders = [s for s in range(players) if self.hand.held_count(s)]
        if seat is None:
            if len(holders) != 1:
                named = ", ".join(str(s + 1) for s in holders)
                raise ValueError(f"players {named} hold tiles: name the player whose tiles these are")
            seat = holders[0]
        if not 0 <= seat < players:
            raise ValueError(f"player must be 1 to {players}, got {seat + 1}")
        if seat not in holders:
            raise ValueError(f"player {seat + 1} holds no tiles")
        shown = [Tile.parse(t) for t in tiles]
        held = self.hand.held_count(seat)
        if len(shown) != held:
            raise ValueError(f"player {seat + 1} holds {held} tile{'s' if held != 1 else ''}, not {len(shown)}")
        on_table = set(self.on_table())
        for tile in shown:
            if str(tile) in on_table:
                raise ValueError(f"{tile} is on the table")
        entered = self._with_shown(seat, [str(t) for t in shown])
        try:
            self._check_reveals(entered)
        except ValueError as error:  # shown twice, not in the set, or known to be elsewhere
            note = " (the rules count players from 0)" if "player" in str(error) else ""
            raise ValueError(f"the tiles contradict what is known: {error}{note}") from None
        self._shown_by_hand = entered
        events: list[Event] = []
        if all(s in self._shown_by_hand for s in holders):
            self._finish(frame, events, [self._shown_by_hand.get(s, []) for s in range(players)])
        else:  # logged now: after a crash, the tiles already entered are not asked for again
            self._emit(events, Event(frame, Kind.REVEAL, player=seat, tiles=tuple(self._shown_by_hand[seat]),
                                     by_hand=True))
        return events

    def _with_shown(self, seat: int, tiles: Sequence[str]) -> dict[int, list[str]]:
        """The reveals entered so far with ``seat``'s now ``tiles``, entered last (undo takes
        back the newest)."""
        others = {s: t for s, t in self._shown_by_hand.items() if s != seat}
        return {**others, seat: list(tiles)}

    def _check_reveals(self, shown: dict[int, list[str]]) -> None:
        """``ValueError`` when these reveals (by seat) contradict the hand. They are tried on a
        copy: the hand takes a reveal for good, and one entered by hand may yet be undone."""
        trial = copy.deepcopy(self.hand)
        for seat, tiles in shown.items():
            trial.reveal(seat, [Tile.parse(t) for t in tiles])

    def _keep_shown(self) -> None:
        """The hand is scored before every reveal came in: the ones entered count for what they
        tell (checked as they were entered)."""
        for seat, tiles in self._shown_by_hand.items():
            self.hand.reveal(seat, [Tile.parse(t) for t in tiles])

    def _undo_reveal(self, frame: int) -> list[Event]:
        """Take back the reveal entered last by hand (while the others are awaited)."""
        seat = list(self._shown_by_hand)[-1]
        del self._shown_by_hand[seat]
        events: list[Event] = []
        self._emit(events, Event(frame, Kind.UNDO, reason="reveal", player=seat))
        return events

    def _restore_reveal(self, event: Event) -> None:
        """A logged ``reveal`` (``--resume``), or the ``undo`` of one. A log that no longer fits
        the hand, as a hand-edited one may not, is left out rather than trusted."""
        if event.player is None:
            return
        if event.kind is Kind.UNDO:
            self._shown_by_hand.pop(event.player, None)
            return
        shown = self._with_shown(event.player, event.tiles or ())
        try:
            self._check_reveals(shown)
        except ValueError:
            return
        self._shown_by_hand = shown
