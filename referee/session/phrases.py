"""What the referee says for each event, in the players' language.

The words live in one JSON catalogue per language (``lang/<code>.json``); this module only
chooses the phrase and fills it in. Fives scores (5, 10 ... 60) are spoken as words from the
catalogue, other numbers as digits followed by the right plural form of "point": the catalogue
names its plural rule (``"plural": "pl"`` or ``"en"``) and lists the forms that rule picks from.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import string
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any

from referee.session.events import Event, Kind

#: The languages there is a catalogue for.
LANGUAGES = ("pl", "en", "da", "sv")

#: The rules reason codes each catalogue words (plus "other" for any code not listed).
REASONS = (
    "hand_over", "out_of_turn", "not_in_set", "duplicate", "not_in_hand", "wrong_opening", "no_such_end",
    "end_closed", "ambiguous_end", "mismatch", "no_drawing", "boneyard_empty", "not_in_boneyard", "must_play",
    "must_draw",
)

#: The fives scores spoken as words.
FIVES = tuple(range(5, 65, 5))

#: The phrases every catalogue has, with the placeholders each may use.
PHRASES: Mapping[str, frozenset[str]] = {
    "count": frozenset({"number", "noun"}),
    "player": frozenset({"number"}),
    "someone": frozenset(),
    "comma": frozenset(),
    "and": frozenset(),
    "this_tile": frozenset(),
    "play": frozenset({"player", "score"}),
    "illegal": frozenset({"player", "reason"}),
    "illegal_no_player": frozenset({"reason"}),
    "draw": frozenset({"player"}),
    "pass": frozenset({"player"}),
    "blocked": frozenset(),
    "hand_end": frozenset({"player", "points"}),
    "hand_end_no_points": frozenset({"player"}),
    "hand_end_tie": frozenset(),
    "hand_end_unknown": frozenset(),
    "match_end": frozenset({"players"}),
    "match_end_plural": frozenset({"players"}),
    "match_end_no_winner": frozenset(),
    "scores": frozenset({"scores"}),
    "score_separator": frozenset(),
    "unfollowed": frozenset(),
    "undo": frozenset(),
    "correction": frozenset({"tile"}),
    "correction_no_tile": frozenset(),
    "reveal": frozenset({"player", "tiles"}),
}


def _one_other(n: int) -> int:
    """English and the like: 1 point, 0 / 2 / 11 points."""
    return 0 if n == 1 else 1


def _polish(n: int) -> int:
    """Polish: 1 punkt; 2-4, 22-24, 32-34... punkty (but 12-14 punktów); everything else punktów."""
    n = abs(n)
    if n == 1:
        return 0
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return 1
    return 2


#: Plural rules a catalogue may name: how many forms it lists, and which one a number takes.
PLURAL_RULES: Mapping[str, tuple[int, Callable[[int], int]]] = {"en": (2, _one_other), "pl": (3, _polish)}


def placeholders(phrase: str) -> frozenset[str]:
    """The ``{names}`` a phrase uses."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(phrase) if name is not None)


def catalogue(lang: str) -> dict[str, Any]:
    """The catalogue of a language as stored (JSON); ``ValueError`` for a language there is none for."""
    if lang not in LANGUAGES:
        raise ValueError(f"no announcements in language {lang!r}; available: {', '.join(LANGUAGES)}")
    text = resources.files("referee.session").joinpath("lang", f"{lang}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"the {lang} catalogue is not a JSON object")
    return data


def _strings(lang: str, where: str, value: object, keys: Sequence[str]) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ValueError(f"the {lang} catalogue: {where} must be an object")
    missing = [key for key in keys if not isinstance(value.get(key), str)]
    if missing:
        raise ValueError(f"the {lang} catalogue has no text for {where}{missing[0]}")
    return {key: value[key] for key in keys}


@dataclasses.dataclass(frozen=True)
class Phrases:
    """The announcements of one language. Make one with :meth:`load`."""

    lang: str
    text: Mapping[str, str]
    reasons: Mapping[str, str]
    fives: Mapping[int, str]
    plural: Callable[[int], int]
    point_forms: tuple[str, ...]

    @classmethod
    def load(cls, lang: str) -> Phrases:
        """The phrases of ``lang`` (one of :data:`LANGUAGES`); ``ValueError`` naming the language
        and the available ones otherwise."""
        return _load(lang)

    # -- pieces ---------------------------------------------------------------------------------

    def player(self, seat: int | None, names: Sequence[str] | None = None) -> str:
        """How a seat is called: its name when given, else "Gracz 1" for seat 0."""
        if seat is None:
            return self.text["someone"]
        if names is not None and 0 <= seat < len(names) and names[seat].strip():
            return names[seat].strip()
        return self.text["player"].format(number=seat + 1)

    def players(self, seats: Sequence[int], names: Sequence[str] | None = None) -> str:
        """Several seats: "Gracz 1 i Gracz 3"."""
        called = [self.player(seat, names) for seat in seats]
        if len(called) <= 1:
            return "".join(called)
        return self.text["comma"].join(called[:-1]) + self.text["and"] + called[-1]

    def score(self, points: int) -> str:
        """A fives score as spoken: "piętnaście" (digits outside 5, 10 ... 60)."""
        return self.fives.get(points, str(points))

    def points(self, n: int) -> str:
        """A number of points with the noun in the right form: "11 punktów", "1 point"."""
        return self.text["count"].format(number=n, noun=self.point_forms[self.plural(n)])

    def reason(self, code: str | None, tile: str | None) -> str:
        """Why a move is illegal, for a rules reason code (a generic text for an unknown one)."""
        phrase = self.reasons.get(code or "", self.reasons["other"])
        return phrase.format(tile=tile or self.text["this_tile"])

    # -- events ---------------------------------------------------------------------------------

    def say(self, event: Event, names: Sequence[str] | None = None) -> str | None:
        """What to announce for ``event``; None for a play that scored nothing (it is not
        announced). ``names`` name the seats (seat 0 first); without them "Gracz 1" etc."""
        t = self.text
        kind = event.kind
        if kind is Kind.PLAY:
            if event.points is None or event.points <= 0:
                return None
            return t["play"].format(player=self.player(event.player, names), score=self.score(event.points))
        if kind is Kind.ILLEGAL:
            reason = self.reason(event.reason, event.tile)
            if event.player is None:
                return t["illegal_no_player"].format(reason=reason)
            return t["illegal"].format(player=self.player(event.player, names), reason=reason)
        if kind in (Kind.DRAW, Kind.PASS):
            return t[kind.value].format(player=self.player(event.player, names))
        if kind is Kind.HAND_END:
            return self._hand_end(event, names)
        if kind is Kind.MATCH_END:
            return self._match_end(event, names)
        if kind is Kind.CORRECTION:
            return t["correction"].format(tile=event.tile) if event.tile else t["correction_no_tile"]
        if kind is Kind.REVEAL:
            return t["reveal"].format(player=self.player(event.player, names),
                                      tiles=t["comma"].join(event.tiles or ()))
        return t[kind.value]  # blocked, unfollowed, undo: always the same words

    def _hand_end(self, event: Event, names: Sequence[str] | None) -> str:
        t = self.text
        if event.winner is None:
            return t["hand_end_tie"] if event.points == 0 else t["hand_end_unknown"]
        player = self.player(event.winner, names)
        if event.points is None:
            return t["hand_end_no_points"].format(player=player)
        return t["hand_end"].format(player=player, points=self.points(event.points))

    def _match_end(self, event: Event, names: Sequence[str] | None) -> str:
        t = self.text
        winners = event.winners or ()
        if not winners:
            text = t["match_end_no_winner"]
        else:
            key = "match_end" if len(winners) == 1 else "match_end_plural"
            text = t[key].format(players=self.players(winners, names))
        if event.scores:
            text += " " + t["scores"].format(scores=t["score_separator"].join(map(str, event.scores)))
        return text

    def say_all(self, events: Sequence[Event], names: Sequence[str] | None = None) -> list[str]:
        """The announcements for ``events`` in order, leaving out what is not announced; a blocked
        hand directly followed by its end is one line: "Zablokowane! Wygrywa Gracz 1: 11 punktów."."""
        lines: list[str] = []
        previous: Kind | None = None
        for event in events:
            text = self.say(event, names)
            if text is not None:
                if previous is Kind.BLOCKED and event.kind is Kind.HAND_END and lines:
                    lines[-1] += " " + text
                else:
                    lines.append(text)
            previous = event.kind
        return lines


@functools.cache
def _load(lang: str) -> Phrases:
    data = catalogue(lang)
    text = _strings(lang, "", data, list(PHRASES))
    for key, allowed in PHRASES.items():
        extra = placeholders(text[key]) - allowed
        if extra:
            raise ValueError(f"the {lang} catalogue: {key} uses {{{sorted(extra)[0]}}}, which is never filled in")
    reasons = _strings(lang, "reasons.", data.get("reasons"), [*REASONS, "other"])
    for code, phrase in reasons.items():
        if not placeholders(phrase) <= {"tile"}:
            raise ValueError(f"the {lang} catalogue: reasons.{code} may use only {{tile}}")
    fives = _strings(lang, "fives.", data.get("fives"), [str(n) for n in FIVES])
    rule = data.get("plural")
    if not isinstance(rule, str) or rule not in PLURAL_RULES:
        raise ValueError(f"the {lang} catalogue names plural rule {rule!r}; known: {', '.join(PLURAL_RULES)}")
    count, choose = PLURAL_RULES[rule]
    forms = data.get("point")
    if not isinstance(forms, list) or len(forms) != count or not all(isinstance(f, str) for f in forms):
        raise ValueError(f"the {lang} catalogue: point must list {count} forms for plural rule {rule!r}")
    return Phrases(lang, text, reasons, {int(n): word for n, word in fives.items()}, choose, tuple(forms))
