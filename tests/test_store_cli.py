"""``referee stats``, ``referee export`` and ``referee import`` run as real subprocesses, on real
SQLite files: the figures of simulated matches imported from ``referee simulate --records``,
exported matches audited by ``referee check``, round trips, and every user error one line with
exit code 2 that leaves the files as they were."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, ok, one_error_line, sqlite_file

# The hand-worked All Fives hand of tests/test_store.py (Olek wins 25 to 20 in one hand).
from test_store import FIVES_RECORD


def referee(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m referee.cli ARGS`` with this checkout first on the path, data in ``env``'s folders."""
    full = {**os.environ, **(env or {})}
    full["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "referee.cli", *map(str, args)], cwd=REPO, env=full,
                          capture_output=True, text=True, timeout=120, check=False)


def stats_json(db: Path, *args: str) -> dict[str, Any]:
    result = referee("stats", "--db", db, "--json", *args)
    ok(result)
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """Five matches of All Fives for three, written by ``referee simulate --records``, imported
    into a database: (records folder, database, the simulation's own summary)."""
    folder = tmp_path_factory.mktemp("simulated")
    records = folder / "records"
    result = referee("simulate", "--variant", "fives", "--players", "3", "--games", "5", "--seed", "3",
                     "--bot", "greedy", "--records", records, "--json", "--quiet")
    ok(result)
    summary = json.loads(result.stdout)
    db = folder / "records.sqlite"
    result = referee("import", "--db", db, *sorted(records.glob("*.json")))
    ok(result)
    assert result.stdout == f"imported 5 new matches and {summary['hands']} hands into {db}\n"
    return records, db, summary


def test_imported_simulations_give_the_simulations_figures(simulated: tuple[Path, Path, dict[str, Any]]) -> None:
    records, db, summary = simulated
    files = sorted(db.parent.iterdir())
    stats = stats_json(db)
    assert sorted(db.parent.iterdir()) == files  # reading leaves no file behind
    assert (stats["matches"], stats["finished"], stats["hands"]) == (5, 5, summary["hands"])
    assert stats["blocked_share"] == summary["blocked_share"]
    assert stats["average_points_per_hand"] == summary["average_points_per_hand"]
    assert stats["variants"] == [{"variant": "fives", "matches": 5, "hands": summary["hands"]}]
    assert stats["players"] == []  # simulated seats have no names
    again = referee("import", "--db", db, *sorted(records.glob("*.json")))
    ok(again)
    assert again.stdout == f"imported 0 new matches and 0 hands into {db}; 5 matches were already recorded\n"
    assert stats_json(db) == stats


def test_an_exported_match_passes_referee_check(simulated: tuple[Path, Path, dict[str, Any]], tmp_path: Path) -> None:
    records, db, _ = simulated
    out = tmp_path / "match-2.json"
    result = referee("export", "--db", db, "--match", "2", "--out", out)
    ok(result)
    assert result.stderr == f"exported 1 match to {out}\n"
    check = referee("check", out, "--json", "--strict")
    ok(check)
    original = referee("check", records / "match-00002.json", "--json")
    assert json.loads(check.stdout) == json.loads(original.stdout)
    before = out.read_bytes()
    line = one_error_line(referee("export", "--db", db, "--match", "1", "--out", out))
    assert line == f"referee export: {out} already exists: export never overwrites a file; choose another --out"
    assert out.read_bytes() == before


def test_export_and_import_move_every_match(simulated: tuple[Path, Path, dict[str, Any]], tmp_path: Path) -> None:
    _, db, _ = simulated
    result = referee("export", "--db", db)
    ok(result)
    exported = tmp_path / "club.json"
    exported.write_text(result.stdout, encoding="utf-8")
    assert [m["store"]["uid"] for m in json.loads(result.stdout)["matches"]] != []
    other = tmp_path / "other.sqlite"
    ok(referee("import", "--db", other, exported))
    assert stats_json(other) == stats_json(db)
    assert stats_json(other, "--since", "2000-01-01") == {**stats_json(db), "since": "2000-01-01"}


def test_the_readable_report(tmp_path: Path) -> None:
    record = tmp_path / "evening.json"
    record.write_text(json.dumps(FIVES_RECORD), encoding="utf-8")
    db = tmp_path / "records.sqlite"
    ok(referee("import", "--db", db, record))
    result = referee("stats", "--db", db)
    ok(result)
    lines = result.stdout.splitlines()
    assert lines[0] == f"{db}: 1 match (1 finished), 1 hand"
    assert lines[2:6] == [
        "Who wins most often",
        "      player  matches  won  win rate  hands  won  points  per hand  fives  scoring plays",
        "  1.  Olek          1    1      100%      1    1      25      25.0     15              2",
        "  2.  Ala           1    0        0%      1    0      20      20.0     20              2",
    ]
    assert "Average points per hand: 45.0 (over 1 hand whose points are known)" in lines
    assert lines[-1] == "Blocked hands: 0 of 1 (0%)"
    ala = referee("stats", "--db", db, "--player", "ALA")
    ok(ala)
    assert ala.stdout.splitlines()[0] == f"{db}: 1 match with Ala (1 finished), 1 hand"
    assert "  1.  Olek" not in ala.stdout and "  1.  Ala" in ala.stdout


def test_no_records_yet_and_nothing_created_by_reading(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    result = referee("stats", env=env)
    ok(result)
    default = tmp_path / "data" / "domino-referee" / "records.sqlite"
    assert result.stdout.startswith(f"there are no records yet: {default} does not exist")
    empty = referee("stats", "--json", "--player", "Ala", env=env)
    ok(empty)
    assert json.loads(empty.stdout)["matches"] == 0 and json.loads(empty.stdout)["player"] == "Ala"
    line = one_error_line(referee("export", env=env))
    assert line == f"referee export: there are no records yet: {default} does not exist"
    assert list(tmp_path.iterdir()) == []
    record = tmp_path / "evening.json"
    record.write_text(json.dumps(FIVES_RECORD), encoding="utf-8")
    ok(referee("import", record, env=env))  # the first import creates the default database
    assert stats_json(default)["matches"] == 1


def test_files_that_are_not_ours_are_refused_and_left_alone(tmp_path: Path) -> None:
    record = tmp_path / "evening.json"
    record.write_text(json.dumps(FIVES_RECORD), encoding="utf-8")
    noise = tmp_path / "noise.sqlite"
    noise.write_bytes(random.Random(1).randbytes(4096))
    photos = sqlite_file(tmp_path / "photos.sqlite", "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    newer = tmp_path / "newer.sqlite"
    ok(referee("import", "--db", newer, record))
    sqlite_file(newer, "PRAGMA user_version = 3")
    cases = [(noise, "is not a domino-referee database (not a SQLite file); it was not touched"),
             (photos, "is not a domino-referee database (tables photos); it was not touched"),
             (newer, "was written by a newer version (schema 3, this program knows 1); it was not touched")]
    for path, message in cases:
        before = path.read_bytes()
        for command in (["stats"], ["export"], ["import", record]):
            line = one_error_line(referee(*command, "--db", path))
            assert line == f"referee {command[0]}: {path} {message}"
        assert path.read_bytes() == before


MALFORMED = [
    ('{"hands": [{"actions": [{"player": 0, "play": "6-x"}]}]}',
     "bad.json: $.hands[0].actions[0].play: expected a tile like \"6-3\", got '6-x'"),
    ('{"matches": [{"hands": []}, {"variant": "chess", "hands": []}]}',
     'bad.json: $.matches[1].variant: expected one of draw, block, fives, partners, got "chess"'),
    ('{"hands": [], "store": {"uid": "x", "finished": 5}}',
     'bad.json: $.store.finished: expected a date and time like "2024-05-01T18:30:00+00:00", got 5'),
    ('{"hands": [', "bad.json: $: not JSON: Expecting value at line 1 column 12"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED)
def test_a_malformed_import_is_one_line_and_imports_nothing(tmp_path: Path, text: str, message: str) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(FIVES_RECORD), encoding="utf-8")
    db = tmp_path / "records.sqlite"
    ok(referee("import", "--db", db, good))
    before = db.read_bytes()
    bad = tmp_path / "bad.json"
    bad.write_text(text, encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**FIVES_RECORD, "names": ["Zosia", "Bartek"]}), encoding="utf-8")
    line = one_error_line(referee("import", "--db", db, other, bad))
    assert line.startswith(f"referee import: {tmp_path / message.split(':')[0]}:"), line
    assert line.endswith(message.split(": ", 1)[1]), line
    assert db.read_bytes() == before  # not even other.json's match
    assert stats_json(db)["matches"] == 1


def test_user_errors_are_one_line(simulated: tuple[Path, Path, dict[str, Any]], tmp_path: Path) -> None:
    _, db, _ = simulated
    cases = [
        (["stats", "--db", db, "--since", "2024-02-30"],
         "referee stats: argument --since: expected a date like 2024-05-01, got '2024-02-30' (see --help)"),
        (["stats", "--db", db, "--player", "Nobody"],
         f"referee stats: {db} has no player named 'Nobody' (no player is named there yet)"),
        (["export", "--db", db, "--match", "42"], f"referee export: {db} has no match 42"),
        (["export", "--db", db, "--match", "1", "--player", "Ala"],
         "referee export: --match chooses matches by number: give it without --player and --since"),
        (["import", "--db", db, tmp_path / "missing.json"],
         f"referee import: cannot read {tmp_path / 'missing.json'}: No such file or directory"),
        (["stats", "--db", tmp_path], f"referee stats: cannot use {tmp_path} as the records database: it is a folder"),
    ]
    before = db.read_bytes()
    for args, message in cases:
        assert one_error_line(referee(*args)) == message
    assert db.read_bytes() == before
