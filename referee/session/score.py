"""Scoring a refereed hand against the events a rendered hand should produce (its
``sequence.json``): plays recovered with the right tile and end, fives points, injected illegal
placements flagged, false illegal events, draws, the hand's end, what the referee said it could
not follow, and how many frames after the truth each play came.

The names of symmetric ends are a convention, not something a camera can see: the two long
sides of an opening double are "left" and "right" only by the order they are taken, and which
short end of the spinner is "up" depends on which way the line is read. So the score reads the
referee's ends through the one consistent renaming (left/right swapped when the opener is a
double; up/down swapped) that fits the truth best; any other disagreement is a wrong end."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from referee.session.events import Event, Kind

_RENAMES: tuple[dict[str, str], ...] = ({}, {"left": "right", "right": "left"}, {"up": "down", "down": "up"},
            {"left": "right", "right": "left", "up": "down", "down": "up"})


@dataclasses.dataclass(frozen=True)
class HandScore:
    """One hand, counted. ``plays_right`` have the right tile and end; ``late`` is the largest
    number of frames between the truth's frame of a play and the referee's. ``points_wrong``
    counts the plays the referee scored (points not left unknown) at another score than the
    truth's, a fives score announced that was not made or one made that went unannounced."""

    plays: int
    plays_found: int
    plays_right: int
    players_right: int
    fives: int
    fives_right: int
    illegal: int
    illegal_flagged: int
    false_illegal: int
    draws: int
    draws_found: int
    false_draws: int
    false_plays: int
    unfollowed: int
    hand_end_right: bool
    late: int
    points_wrong: int = 0

    def to_row(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _plays(events: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {e["tile"]: e for e in events if e.get("event") == "play"}


def score_hand(truth: Sequence[Mapping[str, Any]], got: Sequence[Event], double_opener: bool) -> HandScore:
    mine = [e.to_json() for e in got]
    want, have = _plays(truth), _plays(mine)
    renames = _RENAMES if double_opener else _RENAMES[::2]

    def right_with(rename: Mapping[str, str]) -> int:
        return sum(1 for tile, t in want.items() if tile in have and rename.get(have[tile]["end"], have[tile]["end"])
                   == t["end"])

    rename = max(renames, key=right_with)
    right = right_with(rename)
    found = sum(1 for tile in want if tile in have)
    players = sum(1 for tile, t in want.items() if tile in have and have[tile].get("player") == t.get("player"))
    fives = [t for t in want.values() if t.get("points")]
    fives_right = sum(1 for t in fives if t["tile"] in have and have[t["tile"]].get("points") == t["points"])
    truth_illegal = [e for e in truth if e.get("event") == "illegal"]
    my_illegal = [e for e in mine if e.get("event") == "illegal"]
    flagged = sum(1 for t in truth_illegal if any(m.get("tile") == t.get("tile") for m in my_illegal))
    false_illegal = sum(1 for m in my_illegal if not any(m.get("tile") == t.get("tile") for t in truth_illegal))
    draws = sum(1 for e in truth if e.get("event") == "draw")
    # A draw taken back (the referee put it down before a play read late) is no draw.
    my_draws = sum(1 for e in mine if e.get("event") == "draw") - sum(
        1 for e in mine if e.get("event") == "undo" and e.get("reason") == "draw")
    ends = [e for e in truth if e.get("event") == "hand_end"]
    my_ends = [e for e in mine if e.get("event") == "hand_end"]
    end_right = bool(ends) and bool(my_ends) and all(
        my_ends[0].get(k) == ends[0].get(k) for k in ("winner", "points"))
    late = max((have[tile]["frame"] - t["frame"] for tile, t in want.items() if tile in have), default=0)
    points_wrong = sum(1 for tile, t in want.items() if tile in have and have[tile].get("points") is not None
                       and have[tile].get("points") != t.get("points"))
    return HandScore(len(want), found, right, players, len(fives), fives_right, len(truth_illegal), flagged,
                     false_illegal, draws, min(draws, my_draws), max(0, my_draws - draws),
                     sum(1 for tile in have if tile not in want),
                     sum(1 for e in got if e.kind is Kind.UNFOLLOWED), end_right, late, points_wrong)


@dataclasses.dataclass(frozen=True)
class HandsTotal:
    hands: int
    plays: int
    plays_right: int
    fives: int
    fives_right: int
    illegal: int
    illegal_flagged: int
    false_illegal: int
    false_plays: int
    unfollowed: int
    hand_ends_right: int
    players_right: int
    draws: int
    draws_found: int
    false_draws: int
    points_wrong: int = 0

    @classmethod
    def of(cls, scores: Sequence[HandScore]) -> HandsTotal:
        return cls(len(scores), sum(s.plays for s in scores), sum(s.plays_right for s in scores),
                   sum(s.fives for s in scores), sum(s.fives_right for s in scores),
                   sum(s.illegal for s in scores), sum(s.illegal_flagged for s in scores),
                   sum(s.false_illegal for s in scores), sum(s.false_plays for s in scores),
                   sum(s.unfollowed for s in scores), sum(s.hand_end_right for s in scores),
                   sum(s.players_right for s in scores), sum(s.draws for s in scores),
                   sum(s.draws_found for s in scores), sum(s.false_draws for s in scores),
                   sum(s.points_wrong for s in scores))

    def lines(self) -> list[str]:
        def pct(a: int, b: int) -> str:
            return f"{a}/{b} ({100.0 * a / b:.1f}%)" if b else f"{a}/0"
        return [f"hands                         {self.hands}",
                f"plays, right tile and end     {pct(self.plays_right, self.plays)}",
                f"fives scores right            {pct(self.fives_right, self.fives)}",
                f"plays scored wrong            {self.points_wrong}",
                f"illegal placements flagged    {pct(self.illegal_flagged, self.illegal)}",
                f"false illegal events          {self.false_illegal}",
                f"false plays                   {self.false_plays}",
                f"could not follow (events)     {self.unfollowed}",
                f"player of each play right     {pct(self.players_right, self.plays)}",
                f"draws seen                    {pct(self.draws_found, self.draws)}",
                f"false draws                   {self.false_draws}",
                f"hand ends right               {pct(self.hand_ends_right, self.hands)}"]
