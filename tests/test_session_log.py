"""The SQLite event log on real files: what is appended reads back after reopening, announced
flags, two open logs on one file, WAL mode, files that are not ours left untouched, missing and
unusable folders, and a writer killed with SIGKILL losing nothing it reported as appended."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from referee.session.eventlog import SCHEMA_VERSION, EventLog, EventLogError
from referee.session.events import Event, Kind
from tests.helpers import sqlite_file

REPO = Path(__file__).resolve().parents[1]

SETTINGS = {"variant": "fives", "players": 2, "language": "pl", "source": "camera:0", "names": ["Ala", "Żaneta"]}

EVENTS = [
    Event(10, Kind.PLAY, tile="5-5", player=0, points=10),
    Event(31, Kind.PLAY, tile="5-0", end="left", player=1, points=0),
    Event(40, Kind.ILLEGAL, tile="6-5", reason="mismatch", player=0, end="right"),
    Event(52, Kind.DRAW, player=0),
    Event(60, Kind.PASS, player=1),
    Event(70, Kind.BLOCKED),
    Event(70, Kind.HAND_END, winner=None, points=None),
    Event(71, Kind.HAND_END, winner=0, points=11),
    Event(90, Kind.MATCH_END, winners=(0, 2), scores=(105, 80)),
    Event(95, Kind.UNFOLLOWED, reason="tiles moved", tiles=("6-3", "2-2")),
    Event(96, Kind.UNDO, reason="play"),
    Event(97, Kind.CORRECTION, tile="6-5", reason="6-6"),
]


def test_append_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite"
    with EventLog(path) as log:
        assert log.latest_session() is None
        session = log.start_session(SETTINGS)
        assert [log.append(session, event) for event in EVENTS] == list(range(len(EVENTS)))
        assert log.events(session) == [(seq, event, False) for seq, event in enumerate(EVENTS)]
        assert log.latest_session() == (session, SETTINGS)


def test_survives_reopening_and_sessions_number_their_own_events(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite"
    with EventLog(path) as log:
        first = log.start_session(SETTINGS)
        log.append(first, EVENTS[0])
    with EventLog(path) as log:
        second = log.start_session({**SETTINGS, "language": "sv"})
        assert second != first
        assert log.append(second, EVENTS[1]) == 0  # seq counts within the session
        assert log.append(first, EVENTS[2]) == 1
    with EventLog(path) as log:
        assert log.latest_session() == (second, {**SETTINGS, "language": "sv"})
        assert [event for _, event, _ in log.events(first)] == [EVENTS[0], EVENTS[2]]
        assert [event for _, event, _ in log.events(second)] == [EVENTS[1]]
        assert [(i, s) for i, _, s in log.sessions()] == [(first, SETTINGS), (second, {**SETTINGS, "language": "sv"})]


def test_announced_flags(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite"
    with EventLog(path) as log:
        session = log.start_session(SETTINGS)
        for event in EVENTS[:4]:
            log.append(session, event)
        log.mark_announced(session, 0)
        log.mark_announced(session, 2)
        log.mark_announced(session, 2)  # twice is harmless
    with EventLog(path) as log:
        assert [announced for _, _, announced in log.events(session)] == [True, False, True, False]
        assert log.unannounced(session) == [(1, EVENTS[1]), (3, EVENTS[3])]
        with pytest.raises(EventLogError, match="no event 9 in session"):
            log.mark_announced(session, 9)


def test_unknown_session(tmp_path: Path) -> None:
    with EventLog(tmp_path / "log.sqlite") as log:
        with pytest.raises(EventLogError, match="no session 5"):
            log.append(5, EVENTS[0])
        with pytest.raises(EventLogError, match="no session 5"):
            log.events(5)


def test_two_logs_on_one_file(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite"
    with EventLog(path) as one, EventLog(path) as two:
        session = one.start_session(SETTINGS)
        assert two.latest_session() == (session, SETTINGS)
        seqs = [log.append(session, event) for log, event in zip([one, two] * 6, EVENTS, strict=True)]
        assert seqs == list(range(len(EVENTS)))
        assert one.events(session) == two.events(session) == [(i, e, False) for i, e in enumerate(EVENTS)]
        two.mark_announced(session, 3)
        assert [seq for seq, _ in one.unannounced(session)] == [i for i in range(len(EVENTS)) if i != 3]


def test_wal_mode_and_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite"
    with EventLog(path) as log:
        assert log._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        other = sqlite3.connect(path)
        try:
            assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert other.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        finally:
            other.close()


def test_empty_file_becomes_a_log(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite"
    path.touch()
    with EventLog(path) as log:
        session = log.start_session({})
        assert log.append(session, EVENTS[0]) == 0


def _refused(path: Path, message: str) -> None:
    before = path.read_bytes()
    with pytest.raises(EventLogError) as caught:
        EventLog(path)
    text = str(caught.value)
    assert "\n" not in text
    assert str(path) in text
    assert message in text
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


NOT_DATABASES = [random.Random(7).randbytes(8192), b"x", b"hello, this is my shopping list\n" * 40, b"SQLite format 2"]


@pytest.mark.parametrize("data", NOT_DATABASES, ids=["random", "one-byte", "text", "almost"])
def test_not_a_database_is_left_alone(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(data)
    _refused(path, "is not a referee event log (sqlite: file is not a database); choose another --log path")


def _database(path: Path, *statements: str) -> None:
    sqlite_file(path, *statements)


def test_newer_schema_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite"
    with EventLog(path) as log:
        log.append(log.start_session(SETTINGS), EVENTS[0])
    _database(path, "PRAGMA journal_mode = DELETE", "PRAGMA user_version = 7")
    _refused(path, f"was written by a newer referee (schema 7, this one knows {SCHEMA_VERSION}); upgrade the referee")


def test_another_programs_database_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "photos.db"
    _database(path, "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)", "INSERT INTO photos VALUES (1, 'a')")
    _refused(path, "is not a referee event log (schema 0, tables photos)")


def test_missing_table_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite"
    _database(path, "CREATE TABLE sessions (id INTEGER PRIMARY KEY, started TEXT, settings TEXT)",
              f"PRAGMA user_version = {SCHEMA_VERSION}")
    _refused(path, "is not a referee event log (no table events)")


def test_missing_folder(tmp_path: Path) -> None:
    folder = tmp_path / "no" / "such"
    with pytest.raises(EventLogError, match=f"folder {folder} does not exist"):
        EventLog(folder / "log.sqlite")
    assert not (tmp_path / "no").exists()


def test_folder_is_a_file_or_path_is_a_folder(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(EventLogError, match="is not a folder"):
        EventLog(tmp_path / "file" / "log.sqlite")
    with pytest.raises(EventLogError, match="it is a folder"):
        EventLog(tmp_path)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc, a folder nobody can create files in")
def test_unwritable_location() -> None:
    with pytest.raises(EventLogError, match=r"cannot use the event log /proc/self/log\.sqlite \(sqlite: "):
        EventLog("/proc/self/log.sqlite")


CHILD = """
import sys
from referee.session.eventlog import EventLog
from referee.session.events import Event, Kind
from tests.helpers import sqlite_file
log = EventLog(sys.argv[1])
session = log.start_session({"source": "crash test"})
frame = 0
while True:
    log.append(session, Event(frame, Kind.PLAY, tile="6-3", player=frame % 2, points=5 * (frame % 4)))
    frame += 1
    print(frame, flush=True)
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_killed_writer_loses_nothing_it_appended(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite"
    wanted = 40
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout is not None
        appended = 0
        while appended < wanted:
            line = child.stdout.readline()
            assert line, f"the writer stopped early: {child.wait(10)} {child.stderr.read() if child.stderr else ''}"
            appended = int(line)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.wait(10)
        for stream in (child.stdout, child.stderr):
            if stream is not None:
                stream.close()
    assert child.returncode == -signal.SIGKILL
    with EventLog(path) as log:
        latest = log.latest_session()
        assert latest is not None
        events = log.events(latest[0])
    assert len(events) >= wanted
    assert [seq for seq, _, _ in events] == list(range(len(events)))
    assert [event.frame for _, event, _ in events] == list(range(len(events)))
