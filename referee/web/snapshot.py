"""The referee's state as the dashboard shows it: one JSON-able dict (names, scores, whose turn,
the line of play with its drawing, the event log with each event's words, the hand's status).

Shape (``/api/state``, every server-sent event):

``{"names": [str], "scores": [int], "turn": int|None, "variant": str, "target": int,
"hand": int, "status": str, "hand_over": bool, "match_over": bool,
"line": {"line": ["6-4", ...], "spinner": int|None, "branches": {"up": [...], "down": [...]},
"open_ends": [int], "count": int}, "line_svg": str, "pending": [str],
"events": [{"seq": int, "frame": int, "event": str, "text": str, "spoken": bool, "illegal": bool, ...event JSON}],
"frame": int, "occluded": bool, "source_ended": bool, "controls_need_token": bool,
"answer": {"id", "action", "ok", "message", "events"}|None}``
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.session.events import Event, Kind
from referee.session.loop import Session
from referee.session.phrases import Phrases
from referee.web.svg import line_svg

#: Events the dashboard keeps in the log it sends (the newest ones).
MAX_EVENTS = 300


def names_of(phrases: Phrases, players: int, names: Sequence[str] | None) -> list[str]:
    """Each seat as the announcements call it."""
    return [phrases.player(seat, names) for seat in range(players)]


def describe(event: Event, phrases: Phrases, names: Sequence[str] | None) -> tuple[str, bool]:
    """The event's words for the log, and whether they are what was announced (a play that
    scored nothing is not announced: it gets a plain description)."""
    spoken = phrases.say(event, names)
    if spoken is not None:
        return spoken, True
    who = phrases.player(event.player, names)
    where = f" ({event.end})" if event.end else ""
    return f"{who}: {event.tile}{where}", False


def event_entry(seq: int, event: Event, phrases: Phrases, names: Sequence[str] | None) -> dict[str, Any]:
    text, spoken = describe(event, phrases, names)
    return {**event.to_json(), "seq": seq, "text": text, "spoken": spoken,
            "illegal": event.kind is Kind.ILLEGAL}


def current_scores(session: Session) -> list[int]:
    """The match scores with the fives points scored so far in the hand being played."""
    referee = session.referee
    scores = list(referee.match.scores)
    if referee.over:
        return scores  # the hand's points are in the match scores already
    points = referee.hand.points
    for seat in range(len(scores)):
        if referee.rules.partners:
            scores[seat] += points[seat % 2] + points[seat % 2 + 2]
        else:
            scores[seat] += points[seat]
    return scores


def status(session: Session) -> str:
    referee = session.referee
    if referee.match.is_over():
        return "the match is over"
    if referee.over:
        return "the hand is over: clear the table for the next one (or press Next hand)"
    if referee.waiting_reveal:
        return "the hand is over: lay out the tiles left in hand, face up, in front of each player"
    if not referee.hand.move_count():
        return "waiting for the first tile"
    return "playing"


def snapshot(session: Session, phrases: Phrases, names: Sequence[str] | None, *, frame: int, occluded: bool,
             source_ended: bool, controls_need_token: bool, answer: dict[str, Any] | None) -> dict[str, Any]:
    """The whole state the page shows (see the module's docstring for the shape)."""
    referee = session.referee
    rules = referee.rules
    hand = referee.hand
    line = hand.table.snapshot()
    last = None
    if not referee.over and hand.move_count():
        move = hand.move(-1)
        last = None if move.tile is None or move.kind != "play" else str(move.tile)
    events = session.events
    first = max(0, len(events) - MAX_EVENTS)
    turn = None if referee.over or referee.waiting_reveal or hand.is_over() else (
        referee.config.opener if hand.turn is None else hand.turn)
    return {
        "names": names_of(phrases, rules.players, names),
        "scores": current_scores(session),
        "turn": turn,
        "variant": rules.variant.value,
        "target": rules.target,
        "hand": len(referee.match.hands) + (0 if referee.over else 1),
        "status": status(session),
        "hand_over": referee.over or referee.waiting_reveal or hand.is_over(),
        "match_over": referee.match.is_over(),
        "line": line.to_dict(),
        "line_svg": line_svg(line, last=last),
        "pending": sorted(referee.pending),
        "events": [event_entry(i, e, phrases, names) for i, e in enumerate(events[first:], first)],
        "frame": frame,
        "occluded": occluded,
        "source_ended": source_ended,
        "controls_need_token": controls_need_token,
        "answer": answer,
    }
