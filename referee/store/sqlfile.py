"""The records database file: opening it safely, running SQL, transactions.

Opening a file first checks that it is ours, readable and not newer than this program, without
writing anything: a file that is not a SQLite database, another program's database, a damaged
one or one written by a newer version is refused with one line naming it and is never touched.
An older one is brought up to date by the migrations (``migrations.py``) in one transaction.
Every write is one transaction, committed (``synchronous=FULL``, WAL) before the call returns.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from referee.session.sqlitefile import BUSY_TIMEOUT, first_line, foreign_header
from referee.store.migrations import APPLICATION_ID, MIGRATIONS, Migration, check_order, expected_columns, migrate


class StoreError(ValueError):
    """The records database cannot be opened or used, or a write would overwrite something
    recorded; the message is one line naming the file."""


class NoRecords(StoreError):
    """Opening for reading a database that does not exist (or holds nothing) yet."""


class Database:
    """A records database file at ``path``. ``create=False`` opens for reading only what exists:
    :class:`NoRecords` when there is no file (nothing is created). The folder must exist.
    ``migrations``: the schema this program knows (tests add later ones).

    One object belongs to the thread that opened it; several (in one process or several) may
    have the same file open, one writing while others read.
    """

    def __init__(self, path: str | Path, *, create: bool = True, migrations: Sequence[Migration] = MIGRATIONS) -> None:
        self.path = Path(path)
        check_order(migrations)
        self.migrations = tuple(migrations)
        self.schema = len(self.migrations)
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
            self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None)
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
            foreign = foreign_header(self.path)
        except OSError as error:
            raise StoreError(f"cannot read the records database {self.path}: {error.strerror}") from None
        if foreign:
            raise self._not_ours("not a SQLite file")

    def _error(self, error: sqlite3.Error) -> StoreError:
        text = first_line(error)
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
        if version > self.schema:
            raise StoreError(f"{self.path} was written by a newer version (schema {version}, this program knows "
                             f"{self.schema}); it was not touched")
        try:
            problems = [str(r[0]) for r in self._db.execute("PRAGMA quick_check")]
        except sqlite3.Error as error:
            raise self._error(error) from None
        if problems != ["ok"]:
            lines = [line for row in problems for line in row.splitlines() if line.strip() and "***" not in line]
            raise StoreError(f"{self.path} is corrupt: {(lines or ['quick_check failed'])[0]}; it was not touched")
        return version

    def _open(self, create: bool) -> None:
        version = self._inspect()
        if version is None and not create:
            raise NoRecords(f"there are no records yet: {self.path} holds none")
        if version is None or version < self.schema:
            with self.transaction():
                version = self._inspect()  # nobody else got there meanwhile
                migrate(self._db, version or 0, self.migrations)
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
        for table, columns in expected_columns(self.migrations).items():
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

    def loads(self, text: str, what: str) -> Any:
        """A JSON value the store wrote; a damaged one is a StoreError saying where."""
        try:
            return json.loads(text)
        except (TypeError, ValueError):
            raise StoreError(f"{self.path} is corrupt: {what} is not the JSON the store wrote") from None

    def run(self, sql: str, args: Sequence[Any] = ()) -> int:
        """One statement; returns the row id it inserted (if any)."""
        try:
            cursor = self._db.execute(sql, tuple(args))
        except sqlite3.Error as error:
            raise self._error(error) from None
        return int(cursor.lastrowid or 0)

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Several reads that see one state of the file, whatever another connection writes
        meanwhile (a read transaction). Inside a transaction it simply joins it."""
        if self._db.in_transaction:
            yield
            return
        try:
            self._db.execute("BEGIN DEFERRED")
            try:
                yield
            finally:
                if self._db.in_transaction:
                    self._db.execute("COMMIT")
        except sqlite3.Error as error:
            raise self._error(error) from None

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

    # -- closing ------------------------------------------------------------------------------------
    def close(self) -> None:
        """Close the file (again: nothing)."""
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"
