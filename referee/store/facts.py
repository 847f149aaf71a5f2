"""What the store keeps about a hand besides its record, worked out from the rules' own hand:
how it ended, who won, the award, and per seat the fives points, the plays that scored and the
points gained. Also the times the store writes (ISO 8601, UTC) and reads back."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Sequence

from referee.rules.hand import Hand

RESULTS = ("domino", "blocked", "target", "open")


@dataclasses.dataclass(frozen=True)
class HandFacts:
    """``result``: domino, blocked, target or open (unfinished); ``winner``/``winners``/``points``
    as ``referee check`` reports them (``points``: the end-of-hand award, None when hidden tiles
    make it unknowable); per seat: ``fives`` (fives points its plays scored), ``scoring_plays``
    (plays that scored) and ``gained`` (points added to its score, partners sharing)."""

    result: str
    winner: int | None
    winners: tuple[int, ...]
    points: int | None
    fives: tuple[int, ...]
    scoring_plays: tuple[int, ...]
    gained: tuple[int, ...]

    @classmethod
    def unplayed(cls, players: int) -> HandFacts:
        """A hand recorded after the match was already won: nothing in it counts."""
        zeros = (0,) * players
        return cls("open", None, (), 0, zeros, zeros, zeros)


def hand_facts(hand: Hand, scores: Sequence[int]) -> HandFacts:
    """The facts of ``hand`` whose match scores after it are ``scores`` (``hand.scores`` are the
    scores before it). ``ValueError`` naming the scores when they do not fit the hand."""
    n = hand.players
    if len(scores) != n or not all(isinstance(s, int) and not isinstance(s, bool) for s in scores):
        raise ValueError(f"scores must give {n} whole numbers, one per seat, got {list(scores)}")
    gained = tuple(after - before for after, before in zip(scores, hand.scores, strict=True))
    if min(gained) < 0:
        raise ValueError(f"scores {list(scores)} are lower than before the hand ({list(hand.scores)})")
    fives = [0] * n
    plays = [0] * n
    for action in hand.moves:
        if action.kind == "play" and action.points:
            fives[action.player] += action.points
            plays[action.player] += 1
    outcome = hand.outcome()
    if outcome is None:
        return HandFacts("open", None, (), 0, tuple(fives), tuple(plays), gained)
    return HandFacts(outcome.result(), outcome.winner, tuple(outcome.winners), outcome.points,
                     tuple(fives), tuple(plays), gained)


# -- times ------------------------------------------------------------------------------------
def now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def to_text(when: datetime.datetime) -> str:
    """A time as the store writes it: ISO 8601 in UTC (a naive time is taken as local)."""
    return when.astimezone(datetime.UTC).isoformat(timespec="seconds")


def from_text(text: str) -> datetime.datetime:
    """A time the store wrote (or an export holds); ``ValueError`` naming it if it is not one."""
    try:
        when = datetime.datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise ValueError(f"expected a date and time like \"2024-05-01T18:30:00+00:00\", got {text!r}") from None
    if when.tzinfo is None:
        when = when.astimezone()
    return when.astimezone(datetime.UTC)


def day_start(day: datetime.date) -> str:
    """The first moment of ``day`` in local time, as the store writes times (for ``since``)."""
    return to_text(datetime.datetime.combine(day, datetime.time()).astimezone())
