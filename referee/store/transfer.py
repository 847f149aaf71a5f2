"""Moving matches between tables: export to JSON and import from it (see docs/records.md,
"Exported records").

An export is ``{"format": "domino-referee records", "version": 1, "exported": TIME, "matches":
[MATCH, ...]}``; each MATCH is a complete game record in the shape ``referee check`` reads, plus
one more top-level key, ``"store"``: the match's identity (``uid``), its times, source and events,
which ``referee check`` ignores. Importing accepts such an export, one MATCH alone, or a plain
game record (``referee simulate --records``). Everything is read and checked before anything is
written, and all of it goes in one transaction: a malformed file imports nothing. A match already
there (the same ``uid``; a plain record's ``uid`` is the hash of its content) is not duplicated:
only hands it does not have yet are added, and a match that differs from the one recorded is
refused, so nothing recorded is overwritten.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import hashlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from referee.rules.check import judge
from referee.rules.match import Match
from referee.rules.record import GameRecord, parse_record, record_errors, record_to_json
from referee.rules.variants import Rules
from referee.session.events import Event
from referee.store.facts import HandFacts, from_text, hand_facts, now, to_text

if TYPE_CHECKING:
    from referee.store.db import Store

FORMAT = "domino-referee records"
FORMAT_VERSION = 1
_STORE_KEYS = ("uid", "started", "finished", "source", "imported", "hands", "events")
_HAND_KEYS = ("started", "finished", "events")


def rules_of(variant: str, players: int, rules: dict[str, Any]) -> Rules:
    """The Rules a stored match was played under (read as a record's are)."""
    return parse_record({"variant": variant, "players": players, "rules": rules, "hands": []}).rules


# -- export -------------------------------------------------------------------------------------
def export(store: Store, ids: Sequence[int]) -> dict[str, Any]:
    return {"format": FORMAT, "version": FORMAT_VERSION, "exported": to_text(now()),
            "matches": [match_document(store, i) for i in ids]}


def match_document(store: Store, match_id: int) -> dict[str, Any]:
    """One match: its game record (``referee check`` reads it as it is) with the ``store`` extras."""
    from referee.store.stats import seat_names
    uid, started, finished, source, imported = store.rows(
        "SELECT uid, started, finished, source, imported FROM matches WHERE id = ?", (match_id,))[0]
    names = seat_names(store, [match_id])[match_id]
    events: dict[int | None, list[Any]] = {}
    for hand_id, text in store.rows("SELECT hand_id, json FROM events WHERE match_id = ? ORDER BY seq", (match_id,)):
        events.setdefault(hand_id, []).append(store.loads(text, f"an event of match {match_id}"))
    hands = store.rows("SELECT id, started, finished, record FROM hands WHERE match_id = ? ORDER BY number",
                       (match_id,))
    all_named = all(n is not None for n in names)
    doc = record_to_json(store.match_rules(match_id), [store.loads(h[3], f"a hand of match {match_id}") for h in hands],
                         [n for n in names if n is not None] if all_named else None)
    doc["store"] = {"uid": uid, "started": started, "finished": finished, "source": source, "imported": imported,
                    "hands": [{"started": h[1], "finished": h[2], "events": events.get(h[0], [])} for h in hands],
                    "events": events.get(None, [])}
    return doc


# -- reading an import --------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class IncomingHand:
    record: dict[str, Any]
    facts: HandFacts
    scores: tuple[int, ...]
    started: datetime.datetime | None
    finished: datetime.datetime | None
    events: tuple[Event, ...]


@dataclasses.dataclass(frozen=True)
class Incoming:
    """One match read from a file, checked and scored by the rules engine."""

    where: str  # "FILE: $.matches[2]", for messages
    uid: str
    rules: Rules
    names: tuple[str, ...] | None
    hands: tuple[IncomingHand, ...]
    started: datetime.datetime | None
    finished: datetime.datetime | None
    source: str | None
    winners: tuple[int, ...]  # empty while the match goes on
    scores: tuple[int, ...]
    events: tuple[Event, ...]


class _Bad(ValueError):
    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


def read_document(name: str, data: Any) -> list[Incoming]:
    """Every match of one decoded file; ``StoreError`` naming the file and the JSON path."""
    from referee.store.db import StoreError
    try:
        if isinstance(data, dict) and "matches" in data:
            if data.get("format", FORMAT) != FORMAT:
                raise _Bad("$.format", f"expected {FORMAT!r}, got {json.dumps(data['format'])[:60]}")
            version = data.get("version", FORMAT_VERSION)
            if not isinstance(version, int) or isinstance(version, bool) or version < 1:
                raise _Bad("$.version", f"expected a whole number, got {json.dumps(version)[:40]}")
            if version > FORMAT_VERSION:
                raise _Bad("$.version", f"written by a newer version (export format {version}, this program "
                                        f"reads {FORMAT_VERSION})")
            if not isinstance(data["matches"], list):
                raise _Bad("$.matches", "expected a list of matches")
            return [_read_match(name, item, f"$.matches[{i}]") for i, item in enumerate(data["matches"])]
        return [_read_match(name, data, "$")]
    except _Bad as error:
        raise StoreError(f"{name}: {error.path}: {error}") from None


def _read_match(name: str, data: Any, path: str) -> Incoming:
    plain = {k: v for k, v in data.items() if k != "store"} if isinstance(data, dict) else data
    record, errors = record_errors(plain)
    if errors:
        first = errors[0]
        raise _Bad(path + first.path[1:], str(first)[len(first.path) + 2:])
    assert record is not None
    if record.names is not None:
        from referee.store.db import fold
        if not all(n.strip() for n in record.names) or len({fold(n) for n in record.names}) != len(record.names):
            raise _Bad(f"{path}.names", f"expected {record.rules.players} different players' names, "
                                        f"got {json.dumps(list(record.names), ensure_ascii=False)[:60]}")
    played = _replay(record)
    extras = data.get("store") if isinstance(data, dict) else None
    if extras is None:
        digest = hashlib.sha256(_content(record, plain).encode()).hexdigest()
        extras = {"uid": f"sha256:{digest}"}
    store = _extras(extras, f"{path}.store", len(record.hands))
    hand_extras = store["hands"] or [{}] * len(record.hands)
    hands = tuple(IncomingHand(h, facts, scores, x.get("started"), x.get("finished"), x.get("events", ()))
                  for h, (facts, scores), x in zip(plain["hands"], played[0], hand_extras, strict=True))
    match: Match = played[1]
    return Incoming(f"{name}: {path}", store["uid"], record.rules, record.names, hands, store["started"],
                    store["finished"], store["source"], tuple(match.winners()), tuple(match.scores), store["events"])


def _content(record: GameRecord, plain: dict[str, Any]) -> str:
    from referee.store.db import canonical
    return canonical({"variant": record.rules.variant.value, "players": record.rules.players,
                      "rules": record.rules.to_dict(), "names": plain.get("names"), "hands": plain["hands"]})


def _replay(record: GameRecord) -> tuple[list[tuple[HandFacts, tuple[int, ...]]], Match]:
    """Each hand as ``referee check`` judges it (illegal actions not applied): facts, scores after."""
    match = Match(record.rules)
    out = []
    for recorded in record.hands:
        if match.is_over():
            out.append((HandFacts.unplayed(record.rules.players), tuple(match.scores)))
            continue
        hand = match.new_hand(recorded.deal, recorded.boneyard)
        for action in recorded.actions:
            judge(hand, action)
        for seat, tiles in enumerate(recorded.reveal or ()):
            if tiles is not None:
                # A reveal that contradicts the game: referee check lists it; the hand stands.
                with contextlib.suppress(ValueError):
                    hand.reveal(seat, tiles)
        match.finish_hand()
        out.append((hand_facts(hand, match.scores), tuple(match.scores)))
    return out, match


def _time(value: Any, path: str) -> datetime.datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise _Bad(path, f"expected a date and time like \"2024-05-01T18:30:00+00:00\", got {json.dumps(value)[:40]}")
    try:
        return from_text(value)
    except ValueError as error:
        raise _Bad(path, str(error)) from None


def _events(value: Any, path: str) -> tuple[Event, ...]:
    if not isinstance(value, list):
        raise _Bad(path, "expected a list of events")
    out = []
    for i, item in enumerate(value):
        try:
            out.append(Event.from_json(item))
        except ValueError as error:
            raise _Bad(f"{path}[{i}]", str(error)) from None
    return tuple(out)


def _extras(data: Any, path: str, hands: int) -> dict[str, Any]:
    """The ``store`` object of an exported match, checked."""
    if not isinstance(data, dict):
        raise _Bad(path, "expected an object")
    for key in data:
        if key not in _STORE_KEYS:
            raise _Bad(f"{path}.{key}", f"unknown key; the store keeps {', '.join(_STORE_KEYS)}")
    uid = data.get("uid")
    if not isinstance(uid, str) or not uid.strip():
        raise _Bad(f"{path}.uid", f"expected the match's identity (a string), got {json.dumps(uid)[:40]}")
    source = data.get("source")
    if source is not None and not isinstance(source, str):
        raise _Bad(f"{path}.source", f"expected a string or null, got {json.dumps(source)[:40]}")
    out: dict[str, Any] = {"uid": uid, "source": source, "hands": [],
                           "started": _time(data.get("started"), f"{path}.started"),
                           "finished": _time(data.get("finished"), f"{path}.finished"),
                           "events": _events(data.get("events", []), f"{path}.events")}
    _time(data.get("imported"), f"{path}.imported")
    raw = data.get("hands")
    if raw is None:
        return out
    if not isinstance(raw, list) or len(raw) != hands:
        raise _Bad(f"{path}.hands", f"expected a list with one object per hand of the record ({hands})")
    for i, item in enumerate(raw):
        where = f"{path}.hands[{i}]"
        if not isinstance(item, dict):
            raise _Bad(where, "expected an object")
        for key in item:
            if key not in _HAND_KEYS:
                raise _Bad(f"{where}.{key}", f"unknown key; a hand keeps {', '.join(_HAND_KEYS)}")
        out["hands"].append({"started": _time(item.get("started"), f"{where}.started"),
                             "finished": _time(item.get("finished"), f"{where}.finished"),
                             "events": _events(item.get("events", []), f"{where}.events")})
    return out


# -- writing an import --------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class ImportReport:
    """``matches``: the id of every match read, in order (already there or new); ``new``: the
    matches created; ``hands``: hands added (to new matches or ones already there)."""

    matches: tuple[int, ...]
    new: tuple[int, ...]
    hands: int


def import_matches(store: Store, incoming: Sequence[Incoming]) -> ImportReport:
    """Write matches read by :func:`read_document`, all in one transaction."""
    from referee.store.db import StoreError, canonical
    ids, new, added = [], [], 0
    when = now()
    with store.transaction():
        for match in incoming:
            found = store.rows("SELECT id FROM matches WHERE uid = ?", (match.uid,))
            if found:
                match_id = int(found[0][0])
                old = [canonical(store.loads(r[0], f"a hand of match {match_id}")) for r in
                       store.rows("SELECT record FROM hands WHERE match_id = ? ORDER BY number", (match_id,))]
                same = store.match_rules(match_id) == match.rules and all(
                    canonical(h.record) == o for h, o in zip(match.hands, old, strict=False))
                if not same:
                    raise StoreError(f"{match.where}: match {match.uid} is already recorded (match {match_id}) "
                                     "with other rules or hands; nothing was imported")
                start = len(old)
            else:
                match_id = store.insert_match(uid=match.uid, key=None, started=match.started or when,
                                              rules=match.rules, names=match.names, source=match.source,
                                              imported=when)
                new.append(match_id)
                start = 0
            ids.append(match_id)
            for number, hand in enumerate(match.hands[start:], start + 1):
                store.insert_hand(match_id, number=number, record=hand.record, facts=hand.facts, scores=hand.scores,
                                  started=hand.started, finished=hand.finished, events=hand.events)
                added += 1
            if match.winners:
                last = match.hands[-1].finished if match.hands else None
                store.finish_match(match_id, winners=match.winners, scores=match.scores,
                                   finished=match.finished or last or when, events=match.events)
            elif start == 0 and match.events:
                store.insert_events(match_id, None, match.events)
    return ImportReport(tuple(ids), tuple(new), added)
