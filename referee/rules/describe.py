"""A readable, move-by-move account of a judged record (``referee check`` without --json)."""

from __future__ import annotations

from referee.rules.check import HandReport, MatchReport, Verdict


def _who(seat: int, names: tuple[str, ...] | None) -> str:
    return names[seat] if names else f"player {seat}"


def describe_action(verdict: Verdict, names: tuple[str, ...] | None = None) -> str:
    action = verdict.action
    who = _who(action.player, names)
    if action.kind == "play":
        text = f"{who} plays {action.tile}" + (f" at {action.end}" if action.end else "")
    elif action.kind == "draw":
        text = f"{who} draws " + (str(action.tile) if action.tile is not None else "a tile")
    else:
        text = f"{who} passes"
    if not verdict.legal:
        assert verdict.reason is not None
        detail = verdict.message.partition(": ")[2] or verdict.reason.value
        return f"{text}  ILLEGAL ({detail}): taken back"
    if verdict.points:
        text += f"  scores {verdict.points}"
    return text


def describe_hand(report: HandReport, names: tuple[str, ...] | None = None) -> str:
    if report.result == "open":
        return "the hand is not finished"
    if not report.winners:
        return f"{report.result}: no winner, no points"
    if report.points is None:
        who = _who(report.winner, names) if report.winner is not None else "?"
        return f"{report.result}: {who} wins; points unknown (the hands were not seen)"
    if len(report.winners) == 2:
        pair = " and ".join(_who(s, names) for s in report.winners)
        return f"{report.result}: {pair} win {report.points} points"
    assert report.winner is not None
    return f"{report.result}: {_who(report.winner, names)} wins {report.points} points"


def describe(report: MatchReport) -> str:
    rules = report.record.rules
    names = report.record.names
    lines = [f"{rules.variant.value} game, {rules.players} players, to {rules.target} points"]
    for h, hand in enumerate(report.hands, start=1):
        lines.append(f"Hand {h}")
        for n, verdict in enumerate(hand.verdicts, start=1):
            lines.append(f"  {n:3d}. {describe_action(verdict, names)}")
        for problem in hand.problems:
            lines.append(f"  problem: {problem}")
        line = " ".join(f"[{a}|{b}]" for a, b in hand.line.line)
        if line:
            lines.append(f"  table: {line}")
        lines.append(f"  result: {describe_hand(hand, names)}")
    scores = ", ".join(f"{_who(s, names)} {v}" for s, v in enumerate(report.scores))
    lines.append(f"Scores: {scores}")
    if report.match_winners:
        lines.append("Match won by " + " and ".join(_who(s, names) for s in report.match_winners))
    else:
        lines.append("The match is not finished")
    illegal = sum(not v.legal for h in report.hands for v in h.verdicts)
    lines.append(f"{illegal} illegal action{'s' if illegal != 1 else ''}")
    return "\n".join(lines)
