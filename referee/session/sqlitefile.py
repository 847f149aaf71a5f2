"""What the event log and the records database share about their SQLite files: how a SQLite file
starts, how long to wait for another writer, and an SQLite error as one line."""

from __future__ import annotations

import sqlite3
from pathlib import Path

#: How every SQLite database file starts.
HEADER = b"SQLite format 3\x00"
#: Seconds to wait for another connection's write.
BUSY_TIMEOUT = 10.0


def foreign_header(path: Path) -> bool:
    """Whether ``path`` holds something that is not a SQLite database (SQLite itself would take a
    file shorter than its header for an empty database and write over it). A missing or empty
    file is not foreign; an unreadable one raises ``OSError``."""
    try:
        with path.open("rb") as file:
            head = file.read(len(HEADER))
    except FileNotFoundError:
        return False
    return bool(head) and head != HEADER


def first_line(error: sqlite3.Error) -> str:
    """An SQLite error's message on one line (its kind when it has none)."""
    return str(error).splitlines()[0] if str(error) else type(error).__name__
