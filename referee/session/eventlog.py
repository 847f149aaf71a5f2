"""The event log: every event of every session, appended to one SQLite file, so that a session
can be resumed (``--resume``) and announcements that were never made can be made after a crash.

Each ``append`` commits before it returns, with ``synchronous=FULL`` in
WAL mode: once it returns, the row survives a killed process and a power cut. A file that is not
ours (not SQLite, another program's database, a newer schema) is never written to.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from referee.session.events import Event
from referee.session.sqlitefile import BUSY_TIMEOUT, first_line, foreign_header

#: The schema this code writes and reads (``PRAGMA user_version``).
SCHEMA_VERSION = 1

_SCHEMA = (
    """CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    started TEXT NOT NULL,
    settings TEXT NOT NULL
)""",
    """CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    frame INTEGER NOT NULL,
    json TEXT NOT NULL,
    announced INTEGER NOT NULL DEFAULT 0 CHECK (announced IN (0, 1)),
    written TEXT NOT NULL,
    UNIQUE (session_id, seq)
)""",
)

_COLUMNS = {
    "sessions": {"id", "started", "settings"},
    "events": {"id", "session_id", "seq", "frame", "json", "announced", "written"},
}



class EventLogError(Exception):
    """The event log cannot be opened or used; the message is one line naming the file and what
    to do."""


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


class EventLog:
    """An append-only log of sessions and their events in the SQLite file ``path``.

    Several ``EventLog`` objects (in one process or several) may have the same file open; what
    one appends, the others read. One object belongs to the thread that opened it (as its SQLite
    connection does): a second thread opens its own.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        folder = self.path.parent
        if not folder.exists():
            raise EventLogError(f"cannot open the event log {self.path}: folder {folder} does not exist; "
                                "create it or choose another --log path")
        if not folder.is_dir():
            raise EventLogError(f"cannot open the event log {self.path}: {folder} is not a folder; "
                                "choose another --log path")
        if self.path.is_dir():
            raise EventLogError(f"cannot open the event log {self.path}: it is a folder; choose another --log path")
        self._check_header()
        try:
            self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None)
        except sqlite3.Error as error:
            raise self._error(error) from None
        try:
            self._open()
        except BaseException:
            self._db.close()
            raise

    def _check_header(self) -> None:
        """Refuse a file that does not start as a SQLite database does (SQLite itself would take
        a file shorter than its header for an empty database and write over it)."""
        try:
            foreign = foreign_header(self.path)
        except OSError as error:
            raise EventLogError(f"cannot read the event log {self.path} ({error.strerror}); "
                                "check its permissions or choose another --log path") from None
        if foreign:
            raise self._not_ours("sqlite: file is not a database")

    def _error(self, error: sqlite3.Error) -> EventLogError:
        return EventLogError(f"cannot use the event log {self.path} (sqlite: {first_line(error)}); "
                             "check that it can be written or choose another --log path")

    def _not_ours(self, why: str) -> EventLogError:
        return EventLogError(f"{self.path} is not a referee event log ({why}); choose another --log path")

    def _check(self) -> bool:
        """Whether the file already holds our schema (False: it is empty); raises for anything else.
        Only reads."""
        try:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.OperationalError as error:  # cannot open or read it (locked, no permission...)
            raise self._error(error) from None
        except sqlite3.DatabaseError as error:  # not a database, or damaged
            raise self._not_ours(f"sqlite: {error}") from None
        if version > SCHEMA_VERSION:
            raise EventLogError(f"{self.path} was written by a newer referee (schema {version}, this one knows "
                                f"{SCHEMA_VERSION}); upgrade the referee")
        if version == 0 and not tables:
            return False
        if version != SCHEMA_VERSION:
            raise self._not_ours(f"schema {version}, tables {', '.join(sorted(tables))}")
        for table, columns in _COLUMNS.items():
            if table not in tables:
                raise self._not_ours(f"no table {table}")
            have = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
            if not columns <= have:
                raise self._not_ours(f"table {table} has no column {sorted(columns - have)[0]}")
        return True

    def _open(self) -> None:
        if not self._check():
            with self._transaction():
                if not self._check():  # nobody else created it meanwhile
                    for statement in _SCHEMA:
                        self._db.execute(statement)
                    self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        try:
            mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as error:
            raise self._error(error) from None
        if str(mode).lower() != "wal":
            raise EventLogError(f"cannot use the event log {self.path}: sqlite would not use WAL mode there "
                                f"(journal mode {mode}); choose another --log path on a local disk")

    def _run(self, sql: str, args: tuple[Any, ...]) -> sqlite3.Cursor:
        try:
            return self._db.execute(sql, args)
        except sqlite3.Error as error:
            raise self._error(error) from None

    # -- sessions -------------------------------------------------------------------------------

    def start_session(self, settings: dict[str, Any]) -> int:
        """A new session with these settings (variant, players, language, source...): its id."""
        if not isinstance(settings, dict):
            raise TypeError(f"session settings must be a dict, got {type(settings).__name__}")
        text = json.dumps(settings, ensure_ascii=False, sort_keys=True)
        cursor = self._run("INSERT INTO sessions (started, settings) VALUES (?, ?)", (_now(), text))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def latest_session(self) -> tuple[int, dict[str, Any]] | None:
        """The most recently started session (id, settings), or None when there is none."""
        row = self._run("SELECT id, settings FROM sessions ORDER BY id DESC LIMIT 1", ()).fetchone()
        if row is None:
            return None
        return int(row[0]), self._settings(row[1])

    def sessions(self) -> list[tuple[int, str, dict[str, Any]]]:
        """Every session, oldest first: (id, started, settings)."""
        rows = self._run("SELECT id, started, settings FROM sessions ORDER BY id", ()).fetchall()
        return [(int(i), str(started), self._settings(text)) for i, started, text in rows]

    def _settings(self, text: str) -> dict[str, Any]:
        value = json.loads(text)
        if not isinstance(value, dict):
            raise EventLogError(f"{self.path}: session settings are damaged ({text!r}); choose another --log path")
        return value

    def _session_exists(self, session_id: int) -> None:
        if self._run("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
            raise EventLogError(f"{self.path} has no session {session_id}")

    # -- events ---------------------------------------------------------------------------------

    def append(self, session_id: int, event: Event, announced: bool = False) -> int:
        """Append ``event`` to the session and commit; returns its seq (0, 1, ... in the session).
        ``announced=True`` records, in the same commit, that it is about to be announced: a crash
        can then cost at most the saying of it, never a second saying."""
        text = json.dumps(event.to_json(), ensure_ascii=False)
        with self._transaction():
            self._session_exists(session_id)
            row = self._db.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM events WHERE session_id = ?",
                                   (session_id,)).fetchone()
            seq = int(row[0])
            self._db.execute("INSERT INTO events (session_id, seq, frame, json, announced, written) "
                             "VALUES (?, ?, ?, ?, ?, ?)", (session_id, seq, event.frame, text, int(announced), _now()))
        return seq

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction (taken at once, so writers queue), committed on success and
        rolled back on any error; SQLite errors become one-line EventLogErrors."""
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

    def mark_announced(self, session_id: int, seq: int) -> None:
        """Record that event ``seq`` of the session is being announced; commits. The mark is
        written without waiting for the disk (``synchronous=NORMAL`` for this one commit): it
        survives a killed process at once, and costs microseconds rather than a flush, so a
        caller can mark just before it speaks and leave almost no instant where a kill would
        lose the saying. After a power cut an event may be said again; it is never lost."""
        try:
            self._db.execute("PRAGMA synchronous = NORMAL")
            try:
                cursor = self._run("UPDATE events SET announced = 1 WHERE session_id = ? AND seq = ?",
                                   (session_id, seq))
            finally:
                self._db.execute("PRAGMA synchronous = FULL")
        except sqlite3.Error as error:
            raise self._error(error) from None
        if cursor.rowcount == 0:
            raise EventLogError(f"{self.path} has no event {seq} in session {session_id}")

    def events(self, session_id: int) -> list[tuple[int, Event, bool]]:
        """The session's events in order: (seq, event, announced)."""
        self._session_exists(session_id)
        rows = self._run("SELECT seq, json, announced FROM events WHERE session_id = ? ORDER BY seq",
                           (session_id,)).fetchall()
        return [(int(seq), self._event(session_id, seq, text), bool(announced)) for seq, text, announced in rows]

    def unannounced(self, session_id: int) -> list[tuple[int, Event]]:
        """The session's events not yet marked announced, in order: (seq, event)."""
        return [(seq, event) for seq, event, announced in self.events(session_id) if not announced]

    def _event(self, session_id: int, seq: int, text: str) -> Event:
        try:
            return Event.from_json(json.loads(text))
        except ValueError as error:  # json.JSONDecodeError is a ValueError
            raise EventLogError(f"{self.path}: event {seq} of session {session_id} is damaged ({error})") from None

    # -- closing --------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the file (again: nothing)."""
        self._db.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"EventLog({str(self.path)!r})"
