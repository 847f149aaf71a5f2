"""The records database: every match and hand played, in one SQLite file (opened and checked
by ``sqlfile.py``). Nothing recorded is ever overwritten: recording a hand or a finish again with
the same content is a no-op, and with other content an error.
"""

from __future__ import annotations

import datetime
import json
import unicodedata
import uuid
from collections.abc import Sequence
from typing import Any

from referee.rules.hand import Hand
from referee.rules.record import hand_to_json
from referee.rules.variants import Rules
from referee.session.events import Event
from referee.store.facts import HandFacts, hand_facts, now, to_text
from referee.store.sqlfile import Database, NoRecords, StoreError
from referee.store.stats import MatchSummary, Stats, chosen, compute, match_scores, summaries
from referee.store.transfer import ImportReport, export, import_matches, match_document, read_document, rules_of

__all__ = ["NoRecords", "Store", "StoreError", "canonical", "fold"]


def canonical(value: Any) -> str:
    """JSON text that is equal exactly when the values are (to compare records)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fold(name: str) -> str:
    """A player's name as compared: "Łucja", " łucja" and "ŁUCJA" are one player."""
    return unicodedata.normalize("NFC", name.strip()).casefold()


def check_names(names: Sequence[str] | None, rules: Rules) -> list[str] | None:
    """``names`` stripped, one per seat and all different; StoreError saying what is wrong."""
    if names is None:
        return None
    out = [n.strip() if isinstance(n, str) else n for n in names]
    if len(out) != rules.players or not all(isinstance(n, str) and n for n in out):
        raise StoreError(f"names must give {rules.players} players' names, one per seat, got {list(names)}")
    if len({fold(n) for n in out}) != len(out):
        raise StoreError(f"names must name {rules.players} different players, got {list(names)}")
    return out


class Store(Database):
    """The records database at ``path``: see :class:`referee.store.sqlfile.Database` for opening
    it (``create=False`` reads only what exists and never creates a file)."""

    # -- matches ------------------------------------------------------------------------------------
    def start_match(self, *, names: Sequence[str] | None, rules: Rules, source: str | None = None,
                    key: str | None = None, started: datetime.datetime | None = None) -> int:
        """A new match: its id. ``names`` by seat (None: seats not named). With a ``key`` already
        recorded (a resumed session), that match's id, the match as first recorded."""
        found = self.find_match(key)
        if found is not None:
            return found
        with self.transaction():
            return self.insert_match(uid=uuid.uuid4().hex, key=key, started=started or now(), rules=rules,
                                     names=names, source=source)

    def find_match(self, key: str | None) -> int | None:
        """The id of the match recorded under ``key`` (a live session's), or None."""
        if key is None:
            return None
        found = self.rows("SELECT id FROM matches WHERE key = ?", (key,))
        return int(found[0][0]) if found else None

    def insert_match(self, *, uid: str, key: str | None, started: datetime.datetime, rules: Rules,
                     names: Sequence[str] | None, source: str | None, imported: datetime.datetime | None = None) -> int:
        names = check_names(names, rules)
        match_id = self.run(
            "INSERT INTO matches (uid, key, started, variant, players, rules, source, imported) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (uid, key, to_text(started), rules.variant.value, rules.players, canonical(rules.to_dict()), source,
             None if imported is None else to_text(imported)))
        for seat in range(rules.players):
            player = None if names is None else self._player(names[seat])
            self.run("INSERT INTO seats (match_id, seat, player_id) VALUES (?, ?, ?)", (match_id, seat, player))
        return match_id

    def _player(self, name: str) -> int:
        self.run("INSERT OR IGNORE INTO players (name, folded) VALUES (?, ?)", (name, fold(name)))
        return int(self.rows("SELECT id FROM players WHERE folded = ?", (fold(name),))[0][0])

    def match_rules(self, match_id: int) -> Rules:
        row = self._match_row(match_id, "variant, players, rules")
        try:
            return rules_of(row[0], row[1], self.loads(row[2], f"the rules of match {match_id}"))
        except ValueError as error:
            if isinstance(error, StoreError):
                raise
            raise StoreError(f"{self.path} is corrupt: the rules of match {match_id}: {error}") from None

    def _match_row(self, match_id: int, columns: str) -> Any:
        found = self.rows(f"SELECT {columns} FROM matches WHERE id = ?", (match_id,))
        if not found:
            raise StoreError(f"{self.path} has no match {match_id}")
        return found[0]

    # -- hands --------------------------------------------------------------------------------------
    def add_hand(self, match_id: int, *, hand: Hand, events: Sequence[Event], scores: Sequence[int],
                 started: datetime.datetime | None = None, finished: datetime.datetime | None = None,
                 number: int | None = None) -> int:
        """Record a played hand of the match; its id. ``scores``: the match scores after it.
        ``number`` (1 for the first hand; default: the next) makes it idempotent: recording hand
        ``number`` again with the same actions returns the hand already there (a resumed session);
        with other actions it is a StoreError, and nothing is overwritten."""
        rules = self.match_rules(match_id)
        if hand.rules != rules:
            raise StoreError(f"the hand is played under other rules ({hand.rules}) than match {match_id} ({rules})")
        try:
            facts = hand_facts(hand, scores)
        except ValueError as error:
            raise StoreError(f"hand of match {match_id}: {error}") from None
        deal, boneyard = hand.initial_deal()
        record = hand_to_json(hand, deal, boneyard)
        return self.insert_hand(match_id, number=number, record=record, facts=facts, scores=scores,
                                started=started, finished=finished or now(), events=events)

    def insert_hand(self, match_id: int, *, number: int | None, record: dict[str, Any], facts: HandFacts,
                    scores: Sequence[int], started: datetime.datetime | None, finished: datetime.datetime | None,
                    events: Sequence[Event]) -> int:
        with self.transaction():
            self._match_row(match_id, "id")
            count = int(self.rows("SELECT COUNT(*) FROM hands WHERE match_id = ?", (match_id,))[0][0])
            number = count + 1 if number is None else number
            found = self.rows("SELECT id, record FROM hands WHERE match_id = ? AND number = ?", (match_id, number))
            if found:
                if canonical(self.loads(found[0][1], f"hand {number} of match {match_id}")) != canonical(record):
                    raise StoreError(f"{self.path}: hand {number} of match {match_id} is already recorded with "
                                     "other actions; it was not overwritten")
                return int(found[0][0])
            if number != count + 1:
                raise StoreError(f"{self.path}: hand {number} of match {match_id} cannot be recorded before "
                                 f"hand {count + 1}")
            hand_id = self.run(
                "INSERT INTO hands (match_id, number, started, finished, result, winner, winners, points, scores, "
                "record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (match_id, number, None if started is None else to_text(started),
                 None if finished is None else to_text(finished), facts.result, facts.winner,
                 canonical(list(facts.winners)), facts.points, canonical(list(scores)), canonical(record)))
            for seat in range(len(facts.fives)):
                self.run("INSERT INTO hand_seats (hand_id, seat, fives, scoring_plays, gained) VALUES (?, ?, ?, ?, ?)",
                         (hand_id, seat, facts.fives[seat], facts.scoring_plays[seat], facts.gained[seat]))
            self.insert_events(match_id, hand_id, events)
            return hand_id

    def insert_events(self, match_id: int, hand_id: int | None, events: Sequence[Event]) -> None:
        seq = int(self.rows("SELECT COALESCE(MAX(seq) + 1, 0) FROM events WHERE match_id = ?", (match_id,))[0][0])
        for i, event in enumerate(events):
            self.run("INSERT INTO events (match_id, hand_id, seq, json) VALUES (?, ?, ?, ?)",
                     (match_id, hand_id, seq + i, json.dumps(event.to_json(), ensure_ascii=False)))

    def hand_count(self, match_id: int) -> int:
        self._match_row(match_id, "id")
        return int(self.rows("SELECT COUNT(*) FROM hands WHERE match_id = ?", (match_id,))[0][0])

    # -- the end ------------------------------------------------------------------------------------
    def finish_match(self, match_id: int, *, winners: Sequence[int], scores: Sequence[int],
                     finished: datetime.datetime | None = None, events: Sequence[Event] = ()) -> None:
        """Record the match's end: its winners (seats; both partners) and final scores. Again with
        the same result: nothing changes (``events`` are added if the match has none of its own yet);
        with another: StoreError, nothing overwritten."""
        players = int(self._match_row(match_id, "players")[0])
        if len(scores) != players or not all(isinstance(s, int) and not isinstance(s, bool) for s in scores):
            raise StoreError(f"scores must give {players} whole numbers, one per seat, got {list(scores)}")
        if not all(isinstance(s, int) and 0 <= s < players for s in winners):
            raise StoreError(f"winners must be seats from 0 to {players - 1}, got {list(winners)}")
        result = (canonical(sorted(set(winners))), canonical(list(scores)))
        with self.transaction():
            done, old_winners, old_scores = self._match_row(match_id, "finished, winners, scores")
            if done is not None:
                if (old_winners, old_scores) != result:
                    raise StoreError(f"{self.path}: match {match_id} is already recorded as finished with winners "
                                     f"{old_winners} and scores {old_scores}; it was not overwritten")
                if self.rows("SELECT 1 FROM events WHERE match_id = ? AND hand_id IS NULL LIMIT 1", (match_id,)):
                    return
            else:
                self.run("UPDATE matches SET finished = ?, winners = ?, scores = ? WHERE id = ?",
                         (to_text(finished or now()), *result, match_id))
            self.insert_events(match_id, None, events)

    # -- reading ------------------------------------------------------------------------------------
    def players(self) -> list[str]:
        """Every player's name, alphabetically."""
        return [str(r[0]) for r in self.rows("SELECT name FROM players ORDER BY folded")]

    def matches(self, player: str | None = None, since: datetime.date | None = None) -> list[MatchSummary]:
        """The matches ``player`` sat in (default: all) started on or after ``since``, oldest first."""
        with self.snapshot():
            return summaries(self, chosen(self, player, since))

    def match_scores(self, match_id: int) -> list[tuple[int, ...]]:
        """The match scores after each hand recorded, in order (the "score over a match" chart)."""
        with self.snapshot():
            return match_scores(self, match_id)

    def stats(self, player: str | None = None, since: datetime.date | None = None) -> Stats:
        """The figures over the matches ``player`` sat in (default: all) started on or after ``since``."""
        with self.snapshot():
            return compute(self, player, since)

    # -- moving records -----------------------------------------------------------------------------
    def export(self, match_ids: Sequence[int] | None = None, *, player: str | None = None,
               since: datetime.date | None = None) -> dict[str, Any]:
        """The matches ``match_ids`` (default: those ``player`` and ``since`` choose, all by
        default) as an export document; StoreError for an id not recorded."""
        with self.snapshot():
            if match_ids is None:
                ids = chosen(self, player, since)
            else:
                ids = list(match_ids)
                for match_id in ids:
                    self._match_row(match_id, "id")
            return export(self, ids)

    def match_record(self, match_id: int) -> dict[str, Any]:
        """One match as a game record ``referee check`` reads as it is (with the ``store`` extras)."""
        with self.snapshot():
            self._match_row(match_id, "id")
            return match_document(self, match_id)

    def import_(self, data: Any, *, name: str = "<data>") -> list[int]:
        """Import a decoded export, match or game record (``name``: the file, for messages);
        the ids of its matches. StoreError naming ``name`` and the JSON path, importing nothing,
        when it is malformed."""
        return list(self.import_documents([(name, data)]).matches)

    def import_documents(self, documents: Sequence[tuple[str, Any]]) -> ImportReport:
        """Import several decoded files (name, data) at once: all read and checked first, then
        written in one transaction."""
        incoming = [match for name, data in documents for match in read_document(name, data)]
        return import_matches(self, incoming)
