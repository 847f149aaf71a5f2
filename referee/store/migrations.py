"""The records database's schema, as an ordered list of migrations.

``PRAGMA user_version`` is the number of migrations applied; ``PRAGMA application_id`` marks the
file as ours. A schema change is a new :class:`Migration` appended to :data:`MIGRATIONS`, never an
edit of an old one: a file written by any earlier version is brought up to date by running the
migrations it has not had yet, all in one transaction (a failure leaves it as it was).
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Sequence

#: ``PRAGMA application_id`` of a domino-referee records database ("DomR").
APPLICATION_ID = 0x446F6D52


@dataclasses.dataclass(frozen=True)
class Migration:
    """One step of the schema: ``version`` is the ``user_version`` it leaves behind."""

    version: int
    summary: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "players, matches and their seats, hands, fives per seat, events", (
        f"PRAGMA application_id = {APPLICATION_ID}",
        # ``folded``: the name as compared (NFC, case folded: "Łucja" is "łucja").
        """CREATE TABLE players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    folded TEXT NOT NULL UNIQUE
)""",
        """CREATE TABLE matches (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    key TEXT UNIQUE,
    started TEXT NOT NULL,
    finished TEXT,
    variant TEXT NOT NULL,
    players INTEGER NOT NULL CHECK (players >= 2),
    rules TEXT NOT NULL,
    source TEXT,
    imported TEXT,
    winners TEXT,
    scores TEXT
)""",
        """CREATE TABLE seats (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL CHECK (seat >= 0),
    player_id INTEGER REFERENCES players(id),
    PRIMARY KEY (match_id, seat)
)""",
        """CREATE TABLE hands (
    id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    number INTEGER NOT NULL CHECK (number >= 1),
    started TEXT,
    finished TEXT,
    result TEXT NOT NULL CHECK (result IN ('domino', 'blocked', 'target', 'open')),
    winner INTEGER,
    winners TEXT NOT NULL,
    points INTEGER,
    scores TEXT NOT NULL,
    record TEXT NOT NULL,
    UNIQUE (match_id, number)
)""",
        """CREATE TABLE hand_seats (
    hand_id INTEGER NOT NULL REFERENCES hands(id),
    seat INTEGER NOT NULL CHECK (seat >= 0),
    fives INTEGER NOT NULL,
    scoring_plays INTEGER NOT NULL,
    gained INTEGER NOT NULL,
    PRIMARY KEY (hand_id, seat)
)""",
        """CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    hand_id INTEGER REFERENCES hands(id),
    seq INTEGER NOT NULL,
    json TEXT NOT NULL,
    UNIQUE (match_id, seq)
)""",
        "CREATE INDEX events_hand ON events(hand_id)",
        "CREATE INDEX matches_started ON matches(started)",
    )),
)

#: The schema this code reads and writes.
SCHEMA_VERSION = MIGRATIONS[-1].version


def check_order(migrations: Sequence[Migration]) -> None:
    """Migrations are numbered 1, 2, 3... in order; anything else is a programming error."""
    for i, migration in enumerate(migrations, 1):
        if migration.version != i:
            raise ValueError(f"migration {i} is numbered {migration.version}: number them 1, 2, 3... in order")


def migrate(db: sqlite3.Connection, version: int, migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """Apply the migrations after ``version`` (the file's ``user_version``) inside the caller's
    transaction; returns the version reached."""
    check_order(migrations)
    for migration in migrations[version:]:
        for statement in migration.statements:
            db.execute(statement)
        db.execute(f"PRAGMA user_version = {migration.version}")
        version = migration.version
    return version


def expected_columns(migrations: Sequence[Migration] = MIGRATIONS) -> dict[str, set[str]]:
    """Every table and its columns once all ``migrations`` are applied (worked out on an
    in-memory database, so the check of a file can never drift from the migrations)."""
    db = sqlite3.connect(":memory:")
    try:
        migrate(db, 0, migrations)
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: {row[1] for row in db.execute(f"PRAGMA table_info({t})")} for t in tables}
    finally:
        db.close()
