"""The records database: every match and hand played, in one SQLite file.

Opening a file first checks that it is ours, readable and not newer than this program, without
writing anything: a file that is not a SQLite database, another program's database, a damaged
one or one written by a newer version is refused with one line naming it and is never touched.
An older one is brought up to date by the migrations (``migrations.py``) in one transaction.
Every write is one transaction, committed (``synchronous=FULL``, WAL) before the call returns;
nothing recorded is ever overwritten: recording a hand or a finish again with the same content is
a no-op, and with other content an error.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import sqlite3
import unicodedata
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from referee.rules.hand import Hand
from referee.rules.record import hand_to_json
from referee.rules.variants import Rules
from referee.session.events import Event
from referee.store.facts import HandFacts, hand_facts, now, to_text
from referee.store.migrations import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, expected_columns, migrate
from referee.store.stats import MatchSummary, Stats, chosen, compute, match_scores, summaries
from referee.store.transfer import ImportReport, export, import_matches, match_document, read_document, rules_of

_HEADER = b"SQLite format 3\x00"  # how every SQLite database file starts
_BUSY_TIMEOUT = 10.0  # seconds to wait for another connection's write


class StoreError(ValueError):
    """The records database cannot be opened or used, or a write would overwrite something
    recorded; the message is one line naming the file."""


class NoRecords(StoreError):
    """Opening for reading a database that does not exist (or holds nothing) yet."""


def canonical(value: Any) -> str:
    """JSON text that is equal exactly when the values are (to compare records)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fold(name: str) -> str:
    """A player's name as compared: "Łucja", " łucja" and "ŁUCJA" are one player."""
    return unicodedata.normalize("NFC", name.strip()).casefold()


class Store:
    """The records database at ``path``. ``create=False`` opens for reading only what exists:
    :class:`NoRecords` when there is no file (nothing is created). The folder must exist.

    One object belongs to the thread that opened it; several (in one process or several) may
    have the same file open, one writing while others read.
    """

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise StoreError(f"cannot use {self.path} as the records database: it is a folder")
        if not self.path.exists():
            if not create:
                raise NoRecords(f"there are no records yet: {self.path} does not exist")
            folder = self.path.parent
            if not folder.is_dir():
                raise StoreError(f"cannot create the records database {self.path}: folder {folder} does not exist")
        self._check_header()
        try:
            self._db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT, isolation_level=None)
        except sqlite3.Error as error:
            raise self._error(error) from None
        try:
            self._open(create)
        except BaseException:
            self._db.close()
            raise

    # -- opening ----------------------------------------------------------------------------------
    def _check_header(self) -> None:
        """Refuse a file that does not start as a SQLite database does (SQLite would take a file
        shorter than its header for an empty database and write over it)."""
        try:
            with self.path.open("rb") as file:
                head = file.read(len(_HEADER))
        except FileNotFoundError:
            return
        except OSError as error:
            raise StoreError(f"cannot read the records database {self.path}: {error.strerror}") from None
        if head and head != _HEADER:
            raise self._not_ours("not a SQLite file")

    def _error(self, error: sqlite3.Error) -> StoreError:
        text = str(error).splitlines()[0] if str(error) else type(error).__name__
        if isinstance(error, sqlite3.OperationalError) or not isinstance(error, sqlite3.DatabaseError):
            return StoreError(f"cannot use the records database {self.path} (sqlite: {text})")
        return StoreError(f"{self.path} is corrupt: {text}; it was not touched")

    def _not_ours(self, why: str) -> StoreError:
        return StoreError(f"{self.path} is not a domino-referee database ({why}); it was not touched")

    def _inspect(self) -> int | None:
        """The file's schema version, None when it is empty; raises for anything not ours, newer
        or damaged. Only reads."""
        try:
            app = int(self._db.execute("PRAGMA application_id").fetchone()[0])
            version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
            tables = sorted(r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
        except sqlite3.Error as error:
            raise self._error(error) from None
        if not tables and version == 0 and app in (0, APPLICATION_ID):
            return None
        if app != APPLICATION_ID:
            raise self._not_ours(f"application id {app:#x}" if app else
                                 f"tables {', '.join(tables)}" if tables else f"user version {version}")
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path} was written by a newer version (schema {version}, this program knows "
                             f"{SCHEMA_VERSION}); it was not touched")
        try:
            problems = [str(r[0]) for r in self._db.execute("PRAGMA quick_check")]
        except sqlite3.Error as error:
            raise self._error(error) from None
        if problems != ["ok"]:
            raise StoreError(f"{self.path} is corrupt: {problems[0]}; it was not touched")
        return version

    def _open(self, create: bool) -> None:
        version = self._inspect()
        if version is None and not create:
            raise NoRecords(f"there are no records yet: {self.path} holds none")
        if version is None or version < SCHEMA_VERSION:
            with self.transaction():
                version = self._inspect()  # nobody else got there meanwhile
                migrate(self._db, version or 0, MIGRATIONS)
        self._check_tables()
        try:
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db.execute("PRAGMA synchronous = FULL")
            if create:
                mode = str(self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
                if mode != "wal":
                    raise StoreError(f"cannot use the records database {self.path}: sqlite would not use WAL mode "
                                     f"there (journal mode {mode}); choose a file on a local disk")
        except sqlite3.Error as error:
            raise self._error(error) from None

    def _check_tables(self) -> None:
        for table, columns in expected_columns().items():
            have = {r[1] for r in self.rows(f"PRAGMA table_info({table})")}
            if not have:
                raise StoreError(f"{self.path} is corrupt: table {table} is missing; it was not touched")
            if not columns <= have:
                raise StoreError(f"{self.path} is corrupt: table {table} has no column "
                                 f"{sorted(columns - have)[0]}; it was not touched")

    # -- running SQL --------------------------------------------------------------------------------
    def rows(self, sql: str, args: Sequence[Any] | Mapping[str, Any] = ()) -> list[Any]:
        """Every row of a query; SQLite errors become one-line StoreErrors."""
        try:
            return self._db.execute(sql, args if isinstance(args, Mapping) else tuple(args)).fetchall()
        except sqlite3.Error as error:
            raise self._error(error) from None

    def run(self, sql: str, args: Sequence[Any] = ()) -> int:
        """One statement; returns the row id it inserted (if any)."""
        try:
            cursor = self._db.execute(sql, tuple(args))
        except sqlite3.Error as error:
            raise self._error(error) from None
        return int(cursor.lastrowid or 0)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction (taken at once, so writers queue), committed on success and
        rolled back on any error. Inside another one it simply joins it."""
        if self._db.in_transaction:
            yield
            return
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
                self._db.execute("COMMIT")
            finally:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
        except sqlite3.Error as error:
            raise self._error(error) from None

    # -- matches ------------------------------------------------------------------------------------
    def start_match(self, *, names: Sequence[str] | None, rules: Rules, source: str | None = None,
                    key: str | None = None, started: datetime.datetime | None = None) -> int:
        """A new match: its id. ``names`` by seat (None: seats not named). With a ``key`` already
        recorded (a resumed session), that match's id, the match as first recorded."""
        if key is not None:
            found = self.rows("SELECT id FROM matches WHERE key = ?", (key,))
            if found:
                return int(found[0][0])
        with self.transaction():
            return self.insert_match(uid=uuid.uuid4().hex, key=key, started=started or now(), rules=rules,
                                     names=names, source=source)

    def insert_match(self, *, uid: str, key: str | None, started: datetime.datetime, rules: Rules,
                     names: Sequence[str] | None, source: str | None, imported: datetime.datetime | None = None) -> int:
        if names is not None:
            names = [n.strip() if isinstance(n, str) else n for n in names]
            if len(names) != rules.players or not all(isinstance(n, str) and n for n in names):
                raise StoreError(f"names must give {rules.players} players' names, one per seat, got {list(names)}")
            if len({fold(n) for n in names}) != len(names):
                raise StoreError(f"names must name {rules.players} different players, got {list(names)}")
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
        return rules_of(row[0], row[1], json.loads(row[2]))

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
                if canonical(json.loads(found[0][1])) != canonical(record):
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
        return summaries(self, chosen(self, player, since))

    def match_scores(self, match_id: int) -> list[tuple[int, ...]]:
        """The match scores after each hand recorded, in order (the "score over a match" chart)."""
        return match_scores(self, match_id)

    def stats(self, player: str | None = None, since: datetime.date | None = None) -> Stats:
        """The figures over the matches ``player`` sat in (default: all) started on or after ``since``."""
        return compute(self, player, since)

    # -- moving records -----------------------------------------------------------------------------
    def export(self, match_ids: Sequence[int] | None = None, *, player: str | None = None,
               since: datetime.date | None = None) -> dict[str, Any]:
        """The matches ``match_ids`` (default: those ``player`` and ``since`` choose, all by
        default) as an export document; StoreError for an id not recorded."""
        if match_ids is None:
            ids = chosen(self, player, since)
        else:
            ids = list(match_ids)
            for match_id in ids:
                self._match_row(match_id, "id")
        return export(self, ids)

    def match_record(self, match_id: int) -> dict[str, Any]:
        """One match as a game record ``referee check`` reads as it is (with the ``store`` extras)."""
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

    # -- closing ------------------------------------------------------------------------------------
    def close(self) -> None:
        """Close the file (again: nothing)."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"
