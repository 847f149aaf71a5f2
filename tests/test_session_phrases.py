"""Announcements: the spec's two example lines, plural forms, every language saying every kind of
event, the catalogues agreeing with each other and with the rules' reason codes, seat names."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import referee.session.phrases as phrases_module
from referee.rules.errors import Reason
from referee.session.events import Event, Kind
from referee.session.phrases import FIVES, LANGUAGES, PHRASES, REASONS, Phrases, catalogue, placeholders

PL = Phrases.load("pl")
EN = Phrases.load("en")

ONE_OF_EACH = [
    Event(1, Kind.PLAY, tile="5-5", player=1, points=15),
    Event(2, Kind.ILLEGAL, tile="6-5", reason="mismatch", player=0, end="left"),
    Event(3, Kind.DRAW, player=0),
    Event(4, Kind.PASS, player=1),
    Event(5, Kind.BLOCKED),
    Event(5, Kind.HAND_END, winner=0, points=11),
    Event(6, Kind.MATCH_END, winners=(0,), scores=(105, 80)),
    Event(7, Kind.UNFOLLOWED, reason="tiles moved", tiles=("6-3",)),
    Event(8, Kind.UNDO, reason="play"),
    Event(9, Kind.CORRECTION, tile="6-5", reason="6-6"),
    Event(10, Kind.REVEAL, player=1, tiles=("6-5", "2-0"), by_hand=True),
]


def test_the_specs_examples() -> None:
    assert PL.say(Event(1, Kind.PLAY, tile="5-5", end="left", player=1, points=15)) == "Gracz 2: piętnaście!"
    blocked = [Event(7, Kind.BLOCKED), Event(7, Kind.HAND_END, winner=0, points=11)]
    assert PL.say_all(blocked) == ["Zablokowane! Wygrywa Gracz 1: 11 punktów."]


def test_polish_lines() -> None:
    assert PL.say_all(ONE_OF_EACH) == [
        "Gracz 2: piętnaście!",
        "Gracz 1: nieprawidłowy ruch, 6-5 nie pasuje.",
        "Gracz 1 dobiera.",
        "Gracz 2 pasuje.",
        "Zablokowane! Wygrywa Gracz 1: 11 punktów.",
        "Koniec meczu! Wygrywa Gracz 1. Wynik: 105 do 80.",
        "Nie mogę tego odczytać, sprawdzam stół ponownie.",
        "Cofnięto.",
        "Poprawiono: 6-5.",
        "Gracz 2 pokazuje: 6-5, 2-0.",
    ]


@pytest.mark.parametrize(("n", "text"), [(1, "1 punkt"), (2, "2 punkty"), (4, "4 punkty"), (5, "5 punktów"),
                                         (12, "12 punktów"), (14, "14 punktów"), (22, "22 punkty"),
                                         (25, "25 punktów"), (0, "0 punktów"), (11, "11 punktów"),
                                         (104, "104 punkty"), (112, "112 punktów"), (21, "21 punktów")])
def test_polish_plural(n: int, text: str) -> None:
    assert PL.points(n) == text


@pytest.mark.parametrize(("lang", "one", "many"), [("en", "1 point", "11 points"), ("da", "1 point", "11 point"),
                                                   ("sv", "1 poäng", "11 poäng")])
def test_singular_and_plural(lang: str, one: str, many: str) -> None:
    phrases = Phrases.load(lang)
    assert (phrases.points(1), phrases.points(11)) == (one, many)
    assert phrases.points(0) == many.replace("11", "0")


def test_fives_are_words() -> None:
    assert [PL.score(n) for n in (5, 25, 60)] == ["pięć", "dwadzieścia pięć", "sześćdziesiąt"]
    assert [EN.score(n) for n in (5, 25, 60)] == ["five", "twenty-five", "sixty"]
    assert [Phrases.load("da").score(n) for n in (25, 50, 55)] == ["femogtyve", "halvtreds", "femoghalvtreds"]
    assert [Phrases.load("sv").score(n) for n in (25, 50, 60)] == ["tjugofem", "femtio", "sextio"]
    assert PL.score(65) == "65"  # beyond the table: digits
    for lang in LANGUAGES:
        words = [Phrases.load(lang).score(n) for n in FIVES]
        assert all(word and not word[0].isdigit() for word in words)
        assert len(set(words)) == len(FIVES)


def test_zero_point_plays_are_not_announced() -> None:
    assert PL.say(Event(1, Kind.PLAY, tile="6-3", player=0, points=0)) is None
    assert PL.say_all([Event(1, Kind.PLAY, tile="6-3", player=0, points=0), Event(2, Kind.DRAW, player=1)]) == [
        "Gracz 2 dobiera."]


def test_blocked_merges_only_with_the_hand_end_right_after_it() -> None:
    zero = Event(7, Kind.PLAY, tile="6-3", player=0, points=0)
    tie = Event(8, Kind.HAND_END, winner=None, points=0)
    assert PL.say_all([Event(7, Kind.BLOCKED), zero, tie]) == ["Zablokowane!", "Remis."]
    assert PL.say_all([Event(7, Kind.BLOCKED), tie, tie]) == ["Zablokowane! Remis.", "Remis."]
    assert PL.say_all([Event(7, Kind.BLOCKED)]) == ["Zablokowane!"]


def test_hand_end_variants() -> None:
    assert PL.say(Event(1, Kind.HAND_END, winner=1, points=None)) == "Wygrywa Gracz 2."
    assert PL.say(Event(1, Kind.HAND_END, winner=None, points=0)) == "Remis."
    assert PL.say(Event(1, Kind.HAND_END, winner=None, points=None)) == "Koniec rozdania."
    assert EN.say(Event(1, Kind.HAND_END, winner=0, points=1)) == "Player 1 wins 1 point."


def test_match_end_variants() -> None:
    assert PL.say(Event(1, Kind.MATCH_END, winners=(0, 2), scores=(125, 90))) == (
        "Koniec meczu! Wygrywają Gracz 1 i Gracz 3. Wynik: 125 do 90.")
    assert EN.say(Event(1, Kind.MATCH_END, winners=(1,))) == "Match over! Player 2 wins."
    assert EN.say(Event(1, Kind.MATCH_END, winners=(), scores=(3, 3, 3))) == "Match over! Score: 3 to 3 to 3."


def test_names_when_given() -> None:
    names = ["Ala", "Żaneta"]
    assert PL.say(Event(1, Kind.PLAY, player=1, points=20), names) == "Żaneta: dwadzieścia!"
    assert PL.say_all(ONE_OF_EACH[4:7], names) == ["Zablokowane! Wygrywa Ala: 11 punktów.",
                                                   "Koniec meczu! Wygrywa Ala. Wynik: 105 do 80."]
    assert EN.say(ONE_OF_EACH[-1], ["Ann", "Bob"]) == "Bob shows 6-5, 2-0."
    assert EN.say(Event(1, Kind.DRAW, player=3), ["Ann", "Bob"]) == "Player 4 draws."  # no name for that seat
    assert EN.say(Event(1, Kind.PASS, player=0), ["", "Bob"]) == "Player 1 passes."  # a blank name
    assert EN.say(Event(1, Kind.MATCH_END, winners=(0, 1, 2)), ["A", "B", "C"]) == "Match over! A, B and C win."


def test_every_reason_code_has_its_own_words() -> None:
    assert set(REASONS) == {reason.value for reason in Reason}
    for lang in LANGUAGES:
        phrases = Phrases.load(lang)
        texts = {phrases.say(Event(1, Kind.ILLEGAL, tile="6-5", reason=code, player=0)) for code in REASONS}
        generic = phrases.say(Event(1, Kind.ILLEGAL, tile="6-5", reason="no_such_rule", player=0))
        assert len(texts) == len(REASONS), lang
        assert generic not in texts
        no_player = phrases.say(Event(1, Kind.ILLEGAL, tile="6-5", reason="mismatch"))
        assert no_player and phrases.reason("mismatch", "6-5") in no_player and phrases.player(0) not in no_player
    no_tile = Event(1, Kind.ILLEGAL, reason="mismatch", player=2)
    assert PL.say(no_tile) == "Gracz 3: nieprawidłowy ruch, ta kostka nie pasuje."


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_says_every_kind(lang: str) -> None:
    phrases = Phrases.load(lang)
    assert {event.kind for event in ONE_OF_EACH} == set(Kind)
    texts = [phrases.say(event) for event in ONE_OF_EACH]
    assert all(text and text.strip() == text and "{" not in text for text in texts), texts
    assert len(set(texts)) == len(texts)
    assert phrases.say_all(ONE_OF_EACH)[4] == f"{texts[4]} {texts[5]}"


def _keys(value: object, prefix: str = "") -> set[str]:
    if isinstance(value, dict):
        nested = {k for key, item in value.items() for k in _keys(item, f"{prefix}{key}.")}
        return {f"{prefix}{key}" for key in value} | nested
    return set()


def _texts(value: object, prefix: str = "") -> dict[str, str]:
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in _texts(item, f"{prefix}{key}.").items()}
    if isinstance(value, list):
        return {f"{prefix}{i}": item for i, item in enumerate(value) if isinstance(item, str)}
    return {prefix: value} if isinstance(value, str) else {}


def test_catalogues_have_the_same_keys_and_placeholders() -> None:
    cats = {lang: catalogue(lang) for lang in LANGUAGES}
    keys = {lang: _keys(cat) for lang, cat in cats.items()}
    for lang in LANGUAGES:
        assert keys[lang] == keys["pl"], (lang, keys[lang] ^ keys["pl"])
        assert set(PHRASES) <= keys[lang]
    texts = {lang: _texts(cat) for lang, cat in cats.items()}
    for key, text in texts["pl"].items():
        if key.startswith("point."):
            continue  # the number of forms depends on the plural rule
        for lang in LANGUAGES:
            assert placeholders(texts[lang][key]) == placeholders(text), (lang, key)


def test_catalogues_are_utf8_with_real_letters() -> None:
    folder = Path(__file__).resolve().parents[1] / "referee" / "session" / "lang"
    assert sorted(p.stem for p in folder.glob("*.json")) == sorted(LANGUAGES)
    letters = {"pl": "ąęółśżź", "da": "æøå", "sv": "åäö"}
    for lang, wanted in letters.items():
        text = (folder / f"{lang}.json").read_text(encoding="utf-8")
        assert "\\u" not in text
        assert set(wanted) & set(text), lang


def test_unknown_language() -> None:
    with pytest.raises(ValueError, match=r"no announcements in language 'xx'; available: pl, en, da, sv"):
        Phrases.load("xx")
    with pytest.raises(ValueError, match="available"):
        Phrases.load("../lang/pl")


TILES = st.tuples(st.integers(0, 9), st.integers(0, 9)).map(lambda t: f"{max(t)}-{min(t)}")
SEATS = st.integers(0, 5)
NAMES = st.none() | st.lists(st.text(st.characters(categories=["L"]), max_size=8), max_size=6)
EVENTS = st.builds(
    Event,
    frame=st.integers(0, 10**6),
    kind=st.sampled_from(Kind),
    tile=st.none() | TILES,
    end=st.none() | st.sampled_from(["left", "right", "up", "down"]),
    player=st.none() | SEATS,
    points=st.none() | st.integers(-5, 200),
    reason=st.none() | st.sampled_from([*REASONS, "play", "tiles moved", "bogus"]),
    winner=st.none() | SEATS,
    winners=st.none() | st.lists(SEATS, max_size=4, unique=True).map(tuple),
    scores=st.none() | st.lists(st.integers(0, 300), max_size=4).map(tuple),
    tiles=st.none() | st.lists(TILES, max_size=3).map(tuple),
)


@given(event=EVENTS, lang=st.sampled_from(LANGUAGES), names=NAMES)
def test_any_event_is_said_unless_a_play_scores_nothing(event: Event, lang: str, names: list[str] | None) -> None:
    text = Phrases.load(lang).say(event, names)
    silent = event.kind is Kind.PLAY and (event.points is None or event.points <= 0)
    if silent:
        assert text is None
    else:
        assert text and text.strip() == text and "{" not in text and "\n" not in text


@given(events=st.lists(EVENTS, max_size=8), lang=st.sampled_from(LANGUAGES))
def test_say_all_keeps_every_line(events: list[Event], lang: str) -> None:
    phrases = Phrases.load(lang)
    said = [text for event in events if (text := phrases.say(event)) is not None]
    assert " ".join(phrases.say_all(events)) == " ".join(said)
    merged = sum(1 for a, b in itertools.pairwise(events) if (a.kind, b.kind) == (Kind.BLOCKED, Kind.HAND_END))
    assert len(phrases.say_all(events)) == len(said) - merged


@pytest.mark.parametrize(("change", "message"), [
    (lambda c: c.pop("undo"), "has no text for undo"),
    (lambda c: c["reasons"].pop("must_draw"), "has no text for reasons.must_draw"),
    (lambda c: c["fives"].pop("55"), "has no text for fives.55"),
    (lambda c: c.update(point=["punkt", "punkty"]), "point must list 3 forms for plural rule 'pl'"),
    (lambda c: c.update(plural="klingon"), "plural rule 'klingon'; known: en, pl"),
    (lambda c: c.update(draw="{gracz} dobiera."), "draw uses {gracz}, which is never filled in"),
    (lambda c: c["reasons"].update(mismatch="{player} nie pasuje"), "reasons.mismatch may use only {tile}"),
])
def test_a_broken_catalogue_is_refused(monkeypatch: pytest.MonkeyPatch, change: Callable[[dict[str, Any]], object],
                                       message: str) -> None:
    broken = copy.deepcopy(catalogue("pl"))
    change(broken)
    monkeypatch.setattr(phrases_module, "catalogue", lambda lang: broken)
    phrases_module._load.cache_clear()
    try:
        with pytest.raises(ValueError, match="the pl catalogue") as caught:
            Phrases.load("pl")
        assert message in str(caught.value)
    finally:
        phrases_module._load.cache_clear()
