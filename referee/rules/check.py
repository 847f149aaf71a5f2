"""Judging a game record action by action: what ``referee check`` prints."""

from __future__ import annotations

import dataclasses
from typing import Any

from referee.rules.errors import IllegalAction, Reason
from referee.rules.hand import Hand
from referee.rules.match import Match
from referee.rules.record import GameRecord, RecordedAction, RecordedHand
from referee.rules.table import EMPTY_LINE, LineOfPlay, Play


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The judgement of one recorded action. Illegal actions are not applied (at a real table
    the tile is taken back), so the same player is still to move."""

    action: RecordedAction
    legal: bool
    points: int = 0
    reason: Reason | None = None
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        if self.legal:
            return {"legal": True, "points": self.points}
        assert self.reason is not None
        return {"legal": False, "reason": self.reason.value}


@dataclasses.dataclass(frozen=True)
class HandReport:
    verdicts: tuple[Verdict, ...]
    result: str  # domino | blocked | target | open
    winner: int | None
    winners: tuple[int, ...]
    points: int | None
    fives: tuple[int, ...]  # fives points each player scored during the hand
    line: LineOfPlay
    problems: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "actions": [v.to_json() for v in self.verdicts],
            "result": self.result,
            "winner": self.winner,
            "winners": list(self.winners),
            "points": self.points,
        }
        if self.problems:
            out["problems"] = list(self.problems)
        return out


@dataclasses.dataclass(frozen=True)
class MatchReport:
    record: GameRecord
    hands: tuple[HandReport, ...]
    scores: tuple[int, ...]
    match_winners: tuple[int, ...]
    match_winner: int | None

    @property
    def all_legal(self) -> bool:
        return all(v.legal for h in self.hands for v in h.verdicts) and not any(h.problems for h in self.hands)

    def to_json(self) -> dict[str, Any]:
        return {
            "hands": [h.to_json() for h in self.hands],
            "scores": list(self.scores),
            "match_winner": self.match_winner,
            "match_winners": list(self.match_winners),
        }


def check_record(record: GameRecord) -> MatchReport:
    """Judge every action of every hand and score the match."""
    match = Match(record.rules)
    reports = []
    for number, recorded in enumerate(record.hands):
        if match.is_over():
            verdicts = tuple(Verdict(a, False, reason=Reason.HAND_OVER, message="the match is over")
                             for a in recorded.actions)
            reports.append(HandReport(verdicts, "open", None, (), 0, (0,) * record.rules.players, EMPTY_LINE))
            continue
        hand = match.new_hand(recorded.deal, recorded.boneyard)
        verdicts = tuple(judge(hand, action) for action in recorded.actions)
        problems = _reveal(hand, recorded, number)
        outcome = match.finish_hand()
        result: str
        winner: int | None
        winners: tuple[int, ...]
        points: int | None
        if outcome is None:
            result, winner, winners, points = "open", None, (), 0
        else:
            result, winner, winners, points = outcome.result(), outcome.winner, outcome.winners, outcome.points
        reports.append(HandReport(verdicts, result, winner, winners, points, tuple(hand.points),
                                  hand.line(), problems))
    winners = tuple(match.winners())
    return MatchReport(record, tuple(reports), tuple(match.scores), winners, match.winner())


def judge(hand: Hand, action: RecordedAction) -> Verdict:
    """Apply one recorded action to ``hand`` if it is legal."""
    try:
        if action.kind == "play":
            assert action.tile is not None
            left = action.left if hand.table.size == 0 and action.left in action.tile else None
            points = hand.play(Play(action.tile, action.end, left), seat=action.player)
            return Verdict(action, True, points)
        if action.kind == "draw":
            hand.draw(action.tile, seat=action.player, unseen=action.tile is None)
        else:
            hand.pass_turn(seat=action.player)
        return Verdict(action, True)
    except IllegalAction as error:
        return Verdict(action, False, reason=error.reason, message=str(error))


def _reveal(hand: Hand, recorded: RecordedHand, number: int) -> tuple[str, ...]:
    problems = []
    if recorded.reveal is not None:
        for seat, tiles in enumerate(recorded.reveal):
            if tiles is None:
                continue
            try:
                hand.reveal(seat, tiles)
            except ValueError as error:
                problems.append(f"$.hands[{number}].reveal[{seat}]: {error}")
    return tuple(problems)
