"""A match: hands played one after another until someone reaches the target."""

from __future__ import annotations

import random
from collections.abc import Sequence

from referee.rules.hand import Hand
from referee.rules.scoring import Outcome, Termination
from referee.rules.tiles import Tile
from referee.rules.variants import Rules


class Match:
    """Scores and openers across hands. ``scores`` lists every seat (partners share their
    pair's score). Start each hand with :meth:`new_hand`, end it with :meth:`finish_hand`."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.scores = [0] * rules.players
        self.hands: list[Hand] = []
        self.outcomes: list[Outcome | None] = []
        self._current: Hand | None = None

    # -- who opens -------------------------------------------------------------------------
    def next_opening_free(self) -> bool:
        """True when nobody can know who opens the next hand: the last hand was won, but the
        hands were not seen, so its winner is unknown. Then any seat may open with any tile."""
        if not self.hands or self.rules.partners:
            return False
        last = self.outcomes[-1]
        return last is not None and last.winner is None and last.points is None

    def next_leader(self) -> int | None:
        """The seat that opens the next hand with any tile, or None when the first-hand rule
        (highest double, then heaviest tile) applies."""
        if not self.hands:
            return None
        if self.rules.partners:
            previous = self.hands[-1]
            opener = previous.move(0).player if previous.move_count() else previous.opener
            return None if opener is None else (opener + 1) % 4
        last = self.outcomes[-1]
        if last is not None and last.winner is not None:
            return last.winner
        if self.next_opening_free():
            return None
        return self.rules.first_player

    # -- playing ---------------------------------------------------------------------------
    def new_hand(self, deal: Sequence[Sequence[Tile] | None] | None = None,
                 boneyard: Sequence[Tile] | None = None) -> Hand:
        if self._current is not None:
            raise ValueError("finish the current hand before starting another")
        if self.is_over():
            raise ValueError("the match is over")
        hand = Hand(self.rules, deal, boneyard, leader=self.next_leader(), scores=self.scores,
                    free_opening=self.next_opening_free())
        self._current = hand
        return hand

    def deal_random(self, rng: random.Random) -> Hand:
        if self._current is not None:
            raise ValueError("finish the current hand before starting another")
        hand = Hand.deal_random(self.rules, rng, leader=self.next_leader(), scores=self.scores)
        self._current = hand
        return hand

    def finish_hand(self) -> Outcome | None:
        """Add the current hand's fives points and award to the scores; returns its outcome
        (None for a hand left unfinished)."""
        hand = self._current
        if hand is None:
            raise ValueError("no hand is being played")
        self._current = None
        outcome = hand.outcome()
        for seat, points in enumerate(hand.points):
            self._add(seat, points)
        if outcome is not None and outcome.points and outcome.termination is not Termination.TARGET:
            assert outcome.winner is not None
            self._add(outcome.winner, outcome.points)
        self.hands.append(hand)
        self.outcomes.append(outcome)
        return outcome

    def _add(self, seat: int, points: int) -> None:
        if not points:
            return
        if self.rules.partners:
            for s in (seat % 2, seat % 2 + 2):
                self.scores[s] += points
        else:
            self.scores[seat] += points

    # -- the result ------------------------------------------------------------------------
    def is_over(self) -> bool:
        return max(self.scores) >= self.rules.target

    def winners(self) -> list[int]:
        """The seats that won the match (a pair in partners), empty while it goes on."""
        if not self.is_over():
            return []
        best = max(self.scores)
        return [s for s, score in enumerate(self.scores) if score == best]

    def winner(self) -> int | None:
        """The single player who won the match (None in partners or while it goes on)."""
        winners = self.winners()
        return winners[0] if len(winners) == 1 and not self.rules.partners else None
