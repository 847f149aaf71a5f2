"""The live commands with the people at the table, as a user runs them: every match recorded in
the records database (``--db``; ``watch`` by default in the user's data folder), what
``referee stats`` and ``referee export`` then say about it, a resumed session recorded once,
the deployment settings file (``watch --settings``), and the voice failing once, quietly."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO, ok, one_error_line, referee

SAMPLE = REPO / "sample_images" / "sequences" / "sequence-11-000"


def _replay(*extra: str | Path) -> subprocess.CompletedProcess[str]:
    return referee("replay", SAMPLE, "--from-json", "--json", "--opener", "1", "--names", "Ala,Olek", *extra,
                   timeout=120)


def test_a_replayed_match_is_recorded_and_the_records_say_who_won(tmp_path: Path) -> None:
    db = tmp_path / "records.sqlite"
    result = _replay("--db", db, "--target", "5")  # the hand reaches the target: the match ends with it
    ok(result)
    events = [json.loads(line) for line in result.stdout.splitlines()]
    match_end = next(e for e in events if e["event"] == "match_end")

    stats = referee("stats", "--db", db, "--json")
    ok(stats)
    figures = json.loads(stats.stdout)
    assert (figures["matches"], figures["finished"], figures["hands"]) == (1, 1, 1)
    players = {p["name"]: p for p in figures["players"]}
    winner = ["Ala", "Olek"][match_end["winners"][0]]
    assert players[winner]["wins"] == 1 and sum(p["wins"] for p in players.values()) == 1
    fives = {seat: sum(e["points"] for e in events if e["event"] == "play" and e["player"] == seat) for seat in (0, 1)}
    assert [players["Ala"]["fives"], players["Olek"]["fives"]] == [fives[0], fives[1]]

    # The match exported alone is a game record referee check audits to the same result.
    record = tmp_path / "match.json"
    ok(referee("export", "--db", db, "--match", "1", "--out", record))
    check = referee("check", record, "--json")
    ok(check)
    judged = json.loads(check.stdout)
    assert judged["scores"] == match_end["scores"] and judged["match_winners"] == match_end["winners"]
    assert all(a["legal"] for a in judged["hands"][0]["actions"])


def test_a_resumed_session_is_recorded_once(tmp_path: Path) -> None:
    db, log = tmp_path / "records.sqlite", tmp_path / "events.sqlite"
    ok(_replay("--db", db, "--log", log))
    ok(_replay("--db", db, "--log", log, "--resume"))
    figures = json.loads(referee("stats", "--db", db, "--json").stdout)
    assert (figures["matches"], figures["hands"]) == (1, 1)
    ok(_replay("--db", db))  # a new session without the log: a new match
    assert json.loads(referee("stats", "--db", db, "--json").stdout)["matches"] == 2


def test_a_records_file_that_is_not_ours_stops_the_replay_and_is_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "notes.sqlite"
    db.write_bytes(b"family notes, not a database\n" * 20)
    before = db.read_bytes()
    assert str(db) in one_error_line(_replay("--db", db))
    assert db.read_bytes() == before


def _watch(args: list[str | Path], home: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "referee.cli", "watch", *map(str, args)], cwd=REPO, env=env,
                          input=stdin, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def few_frames(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample hand's first frames: a short 'camera' for watch."""
    folder = tmp_path_factory.mktemp("frames")
    for name in ("frame-0000.jpg", "frame-0001.jpg", "frame-0002.jpg"):
        shutil.copy(SAMPLE / name, folder / name)
    return folder


def test_watch_records_in_the_users_data_folder_unless_told_not_to(tmp_path: Path, few_frames: Path) -> None:
    records = tmp_path / "data" / "domino-referee" / "records.sqlite"
    ok(_watch(["--source", few_frames, "--mute", "--no-records"], tmp_path))
    assert not records.exists()
    chosen = tmp_path / "chosen.sqlite"
    ok(_watch(["--source", few_frames, "--mute", "--db", chosen, "--no-records"], tmp_path))  # --no-records wins
    assert not chosen.exists()
    ok(_watch(["--source", few_frames, "--mute", "--names", "Ala,Olek"], tmp_path))
    assert records.exists()
    # No hand ended in these frames: no empty match is left behind (a service restarting
    # because its camera will not open must not fill the records with them).
    assert json.loads(referee("export", "--db", records).stdout)["matches"] == []


def _logged_settings(log: Path) -> dict[str, object]:
    from referee.session.eventlog import EventLog
    with EventLog(log) as opened:
        latest = opened.latest_session()
    assert latest is not None
    return latest[1]


def test_watch_takes_its_options_from_a_settings_file(tmp_path: Path, few_frames: Path) -> None:
    log = tmp_path / "events.sqlite"
    settings = tmp_path / "config.toml"
    settings.write_text(f'[camera]\nsource = 0\n[table]\nvariant = "block"\nplayers = 3\n'
                        'names = ["Ala", "Olek", "Ewa"]\nlanguage = "en"\nseats = ["bottom", "left", "top"]\n'
                        f'[server]\nserve = false\n[sound]\nmute = true\n[records]\nlog = "{log}"\n')
    # the file names camera 0; a source typed on the command line replaces it
    ok(_watch(["--settings", settings, "--source", few_frames, "--no-records"], tmp_path))
    logged = _logged_settings(log)
    assert (logged["variant"], logged["players"], logged["language"]) == ("block", 3, "en")
    assert logged["names"] == ["Ala", "Olek", "Ewa"] and logged["source"] == str(few_frames)
    ok(_watch(["--settings", settings, "--source", few_frames, "--no-records", "--variant", "draw"], tmp_path))
    assert _logged_settings(log)["variant"] == "draw"  # typed after the file: wins

    settings.write_text(settings.read_text().replace('players = 3', 'players = "three"'))
    line = one_error_line(_watch(["--settings", settings], tmp_path))
    assert str(settings) in line and "table.players" in line
    # an abbreviated --settings is not taken for another option, nor silently ignored
    assert "--setting" in one_error_line(_watch(["--setting", settings], tmp_path))


def test_the_dashboard_token_comes_from_the_settings_file(tmp_path: Path, few_frames: Path) -> None:
    token = "family-table-0123456789"
    settings = tmp_path / "config.toml"
    settings.write_text(f'[camera]\nsource = "{few_frames}"\n[table]\nnames = ["Ala", "Olek"]\n'
                        f'[server]\nserve = true\nhost = "0.0.0.0"\ntoken = "{token}"\n'
                        '[sound]\nmute = true\n')
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    process = subprocess.Popen([sys.executable, "-m", "referee.cli", "watch", "--settings", str(settings),
                                "--port", "0"], cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # first what is watched, then where the dashboard is
        while line and "dashboard" not in line:
            line = process.stderr.readline()
        url = re.search(r"http://\S+", line)
        assert url and url.group(0).endswith(f"?token={token}"), line
        assert token not in " ".join(process.args)  # never on the command line, where ps shows it
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=15)
        assert "Traceback" not in err
    finally:
        process.kill()


def test_a_voice_that_cannot_play_says_so_once_and_the_referee_goes_on(tmp_path: Path) -> None:
    if shutil.which("espeak-ng") is None or shutil.which("aplay") is None:
        pytest.fail("needs the Debian packages espeak-ng and alsa-utils (scripts/setup installs them as root)")
    result = _replay("--speak", "--player", "aplay", "--audio-device", "no-such-device")
    ok(result)
    sound = [line for line in result.stderr.splitlines() if "sound" in line]
    assert len(sound) == 1 and "aplay" in sound[0], result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[-1]["event"] == "hand_end"


def test_a_bad_frame_size_is_one_line(tmp_path: Path, few_frames: Path) -> None:
    assert "--size" in one_error_line(_watch(["--source", few_frames, "--mute", "--size", "big"], tmp_path))


def _sessions(log: Path) -> int:
    from referee.session.eventlog import EventLog
    with EventLog(log) as opened:
        return len(opened.sessions())


def test_a_restarted_referee_goes_on_with_an_unfinished_match_only(tmp_path: Path) -> None:
    """What the service does after a crash or a power cut (records.resume in the settings)."""
    log = tmp_path / "events.sqlite"
    ok(_replay("--log", log, "--target", "1000"))  # the hand ends, the match goes on
    ok(_replay("--log", log, "--target", "1000", "--resume-unfinished"))
    assert _sessions(log) == 1  # went on with it
    ok(_replay("--log", log, "--target", "500", "--resume-unfinished"))
    assert _sessions(log) == 2  # other rules: a new match
    finished = tmp_path / "finished.sqlite"
    ok(_replay("--log", finished, "--target", "5"))  # the match is over
    ok(_replay("--log", finished, "--target", "5", "--resume-unfinished"))
    assert _sessions(finished) == 2  # nothing to go on with: a new match


def test_a_service_stopped_with_sigterm_stops_cleanly_within_seconds(tmp_path: Path) -> None:
    """systemd stops the service with SIGTERM: the referee stops as on Ctrl-C."""
    import time
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    process = subprocess.Popen([sys.executable, "-m", "referee.cli", "replay", str(SAMPLE), "--from-json",
                                "--opener", "1", "--serve", "--port", "0", "--pace", "0",
                                "--db", str(tmp_path / "r.sqlite")],
                               cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        lines = [process.stderr.readline() for _ in range(2)]
        assert "the source has ended" in lines[1], lines
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=15)
        assert time.monotonic() - started < 5 and process.returncode == 0, (process.returncode, err)
        assert "Traceback" not in err
    finally:
        process.kill()
