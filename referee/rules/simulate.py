"""Simulating many matches with bots: win rates, points and blocked hands."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from typing import Any

from referee.rules.bots import Bot, play_match
from referee.rules.match import Match
from referee.rules.record import hand_to_json, record_to_json
from referee.rules.scoring import Termination
from referee.rules.variants import Rules


@dataclasses.dataclass
class Summary:
    """What a simulation found. ``wins`` counts matches won per seat (both partners count)."""

    rules: Rules
    bots: tuple[str, ...]
    matches: int = 0
    unfinished: int = 0
    hands: int = 0
    blocked: int = 0
    ties: int = 0
    award_points: int = 0
    fives_points: int = 0
    wins: list[int] = dataclasses.field(default_factory=list)

    def add(self, match: Match) -> None:
        if not self.wins:
            self.wins = [0] * self.rules.players
        self.matches += 1
        winners = match.winners()
        if not winners:
            self.unfinished += 1
        for seat in winners:
            self.wins[seat] += 1
        for hand, outcome in zip(match.hands, match.outcomes, strict=True):
            self.hands += 1
            self.fives_points += sum(hand.points)
            if outcome is None:
                continue
            if outcome.termination is Termination.BLOCKED:
                self.blocked += 1
            if not outcome.winners:
                self.ties += 1
            self.award_points += outcome.points or 0

    def to_json(self) -> dict[str, Any]:
        hands = max(self.hands, 1)
        matches = max(self.matches, 1)
        return {
            "variant": self.rules.variant.value,
            "players": self.rules.players,
            "bots": list(self.bots),
            "matches": self.matches,
            "unfinished": self.unfinished,
            "hands": self.hands,
            "win_rate": [round(w / matches, 4) for w in self.wins],
            "average_points_per_hand": round((self.award_points + self.fives_points) / hands, 2),
            "average_award_per_hand": round(self.award_points / hands, 2),
            "average_fives_per_hand": round(self.fives_points / hands, 2),
            "blocked_share": round(self.blocked / hands, 4),
            "tied_share": round(self.ties / hands, 4),
        }


def match_record(match: Match) -> dict[str, Any]:
    """A played match as a game record (``referee check`` reads it back)."""
    hands = []
    for hand in match.hands:
        deal, boneyard = hand.initial_deal()
        hands.append(hand_to_json(hand, deal, boneyard))
    return record_to_json(match.rules, hands)


def simulate(rules: Rules, bots: Sequence[Bot], names: Sequence[str], games: int, seed: int,
             on_match: Callable[[int, Match], None] | None = None) -> Summary:
    """Play ``games`` complete matches from ``seed``; ``on_match(i, match)`` sees each."""
    rng = random.Random(seed)
    summary = Summary(rules, tuple(names))
    for i in range(games):
        match = play_match(rules, bots, rng)
        summary.add(match)
        if on_match is not None:
            on_match(i, match)
    return summary
