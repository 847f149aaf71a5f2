"""The live referee's commands as a user runs them: replay, watch, demo, the event log, resuming
after the referee was killed, and every user error as one line with exit code 2."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO, ok, one_error_line, referee

SAMPLE = REPO / "sample_images" / "sequences" / "sequence-11-000"
BLOCKED = REPO / "sample_images" / "sequences" / "sequence-259-000"


def _truth(folder: Path) -> list[dict[str, object]]:
    events: list[dict[str, object]] = json.loads((folder / "sequence.json").read_text())["events"]
    return events


def _lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_replay_prints_the_hands_events_as_json_lines() -> None:
    result = referee("replay", SAMPLE, "--from-json", "--json", "--opener", "1")
    ok(result)
    got = _lines(result.stdout)
    truth = _truth(SAMPLE)
    plays = [(e["tile"], e["points"], e["player"]) for e in got if e["event"] == "play"]
    assert plays == [(e["tile"], e["points"], e["player"]) for e in truth if e["event"] == "play"]
    illegal = [e for e in got if e["event"] == "illegal"]
    assert [(e["tile"], e["reason"]) for e in illegal] == [("6-5", "mismatch")]
    end = [e for e in got if e["event"] == "hand_end"]
    assert end and end[0]["winner"] == 1 and end[0]["points"] == 10


def test_replay_announces_in_the_tables_language() -> None:
    polish = referee("replay", SAMPLE, "--from-json", "--opener", "1")
    ok(polish)
    assert "Gracz 2: piętnaście!" in polish.stdout
    english = referee("replay", SAMPLE, "--from-json", "--opener", "1", "--lang", "en")
    ok(english)
    assert "Player 2: fifteen!" in english.stdout


def test_the_referees_tolerances_come_from_a_file(tmp_path: Path) -> None:
    # How far apart two halves may lie and still touch (reach, in tile widths) is the table's
    # to tune (--referee-config, or referee_config in the settings). Far tighter than the
    # rendered sample's gaps, the tiles laid against the line no longer touch it: fewer plays
    # are followed, and none is made up.
    tight = tmp_path / "referee.json"
    tight.write_text(json.dumps({"reach": 0.05}))
    usual_run = referee("replay", SAMPLE, "--from-json", "--json", "--opener", "1")
    tight_run = referee("replay", SAMPLE, "--from-json", "--json", "--opener", "1", "--referee-config", tight)
    ok(usual_run)
    ok(tight_run)
    usual = [e["tile"] for e in _lines(usual_run.stdout) if e["event"] == "play"]
    seen = [e["tile"] for e in _lines(tight_run.stdout) if e["event"] == "play"]
    assert len(usual) == 13 and 0 < len(seen) < len(usual)
    assert set(seen) < set(usual)


@pytest.mark.parametrize(("content", "needle"), [
    ('{"illegal_votes": 0}', "illegal_votes"),
    ('{"doubled": 1.5}', "doubled"),
    ('{"opener": 1}', "'opener'"),
    ('{"slack": 1}', "'slack'"),
    ('[1, 2]', "JSON object"),
    ('{"illegal_votes": ', "not valid JSON"),
])
def test_a_bad_referee_config_is_named_in_one_line(tmp_path: Path, content: str, needle: str) -> None:
    path = tmp_path / "referee.json"
    path.write_text(content)
    line = one_error_line(referee("replay", SAMPLE, "--from-json", "--referee-config", path))
    assert str(path) in line and needle in line


def test_a_blocked_hand_is_called_and_scored() -> None:
    result = referee("replay", BLOCKED, "--from-json", "--json", "--variant", "draw", "--opener", "1")
    ok(result)
    got = _lines(result.stdout)
    kinds = [e["event"] for e in got]
    assert "blocked" in kinds and kinds.index("blocked") < kinds.index("hand_end")
    assert next(e for e in got if e["event"] == "hand_end")["points"] == 6


def test_passes_undo_and_corrections_come_in_by_hand(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text('{"frame": 10, "input": "correct", "old": "6-4", "new": "6-4"}\n'
                      '{"frame": 13, "input": "undo"}\n')
    result = referee("replay", SAMPLE, "--from-json", "--json", "--opener", "1", "--inputs", inputs)
    ok(result)
    got = _lines(result.stdout)
    undo = [e for e in got if e["event"] == "undo"]
    assert undo and undo[0]["tile"] == "1-0"  # the last play before frame 13 was 1-0
    assert any(e["event"] == "correction" for e in got)


def test_a_play_entered_by_hand_counts_once_when_the_camera_reads_it_later(tmp_path: Path) -> None:
    # Player 1's 6-4 is typed in before the camera reads it (frame 8; it shows from frame 9),
    # without its end (it fits only one): the play is the hand entry, marked by_hand, and the
    # tile seen later is not played again.
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text('{"frame": 8, "input": "play", "tile": "6-4"}\n')
    result = referee("replay", SAMPLE, "--from-json", "--json", "--opener", "1", "--inputs", inputs)
    ok(result)
    got = _lines(result.stdout)
    plays = [(e["tile"], e["points"], e["player"]) for e in got if e["event"] == "play"]
    assert plays == [(e["tile"], e["points"], e["player"]) for e in _truth(SAMPLE) if e["event"] == "play"]
    by_hand = [e for e in got if e.get("by_hand")]
    assert by_hand == [{"frame": 8, "event": "play", "tile": "6-4", "end": "right", "player": 1, "points": 5,
                        "by_hand": True}]


def test_a_play_by_hand_the_rules_refuse_is_named_and_not_recorded(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text('{"frame": 8, "input": "play", "tile": "2-2"}\n')
    result = referee("replay", SAMPLE, "--from-json", "--json", "--opener", "1", "--inputs", inputs)
    ok(result)
    assert "play 2-2: 2-2 cannot be played: mismatch" in result.stderr
    assert not any(e.get("by_hand") or e.get("tile") == "2-2" for e in _lines(result.stdout))


def test_the_event_log_keeps_every_event_announced_once(tmp_path: Path) -> None:
    log = tmp_path / "events.sqlite"
    result = referee("replay", SAMPLE, "--from-json", "--json", "--opener", "1", "--log", log)
    ok(result)
    printed = _lines(result.stdout)
    from referee.session.eventlog import EventLog
    with EventLog(log) as opened:
        latest = opened.latest_session()
        assert latest is not None
        rows = opened.events(latest[0])
    assert [e.to_json() for _, e, _ in rows] == printed
    assert all(announced for _, _, announced in rows)


def _killed(args: list[str], crash: str) -> str:
    """Run the referee with a SIGKILL at a crash point (referee.session.loop); what it printed."""
    env = dict(os.environ, PYTHONPATH=str(REPO), REFEREE_CRASH_AT=crash)
    result = subprocess.run([sys.executable, "-m", "referee.cli", *args], cwd=REPO, env=env, capture_output=True,
                            text=True, timeout=600, check=False)
    assert result.returncode == -signal.SIGKILL, (crash, result.returncode, result.stderr)
    return result.stdout


@pytest.mark.parametrize("crashes", [("saved:0", "said:3", "saved:7"), ("said:1", "said:2", "saved:9", "said:12"),
                                     ("saved:13",)])
def test_killed_mid_hand_and_resumed_loses_no_event_and_says_none_twice(tmp_path: Path,
                                                                        crashes: tuple[str, ...]) -> None:
    full = referee("replay", SAMPLE, "--from-json", "--json", "--opener", "1")
    ok(full)
    expected = _lines(full.stdout)
    log = tmp_path / "events.sqlite"
    args = ["replay", str(SAMPLE), "--from-json", "--json", "--opener", "1", "--log", str(log)]
    printed = ""
    for i, crash in enumerate(crashes):
        printed += _killed([*args, "--resume"] if i else args, crash)
    last = referee(*args, "--resume")
    ok(last)
    printed += last.stdout
    said = _lines(printed)
    assert said == expected  # every event, in order, each said exactly once
    from referee.session.eventlog import EventLog
    with EventLog(log) as opened:
        latest = opened.latest_session()
        assert latest is not None and len(opened.sessions()) == 1
        rows = opened.events(latest[0])
    assert [e.to_json() for _, e, _ in rows] == expected
    assert all(announced for _, _, announced in rows)


def _run_until_killed(args: list[str], kill_after: int) -> str:
    """Start the referee, SIGKILL it from outside once it has printed ``kill_after`` lines."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", *args], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if len(lines) >= kill_after:
            proc.send_signal(signal.SIGKILL)
            break
    rest, _ = proc.communicate(timeout=120)
    return "".join(lines) + rest


def test_killed_from_outside_at_any_moment_loses_no_event_and_says_none_twice(tmp_path: Path) -> None:
    """A kill from outside lands wherever the referee is; a saying can be lost only in the
    instant between marking an event said and saying it, so the check here is that nothing is
    lost from the log and nothing is said twice."""
    full = referee("replay", SAMPLE, "--from-json", "--json", "--opener", "1")
    ok(full)
    expected = _lines(full.stdout)
    log = tmp_path / "events.sqlite"
    args = ["replay", str(SAMPLE), "--from-json", "--json", "--opener", "1", "--log", str(log)]
    printed = _run_until_killed(args, 2)
    for n in (3, 2, 4):
        printed += _run_until_killed([*args, "--resume"], n)
    last = referee(*args, "--resume")
    ok(last)
    said = _lines(printed + last.stdout)
    assert len({json.dumps(e, sort_keys=True) for e in said}) == len(said)  # none twice
    assert all(e in expected for e in said)
    from referee.session.eventlog import EventLog
    with EventLog(log) as opened:
        latest = opened.latest_session()
        assert latest is not None
        assert [e.to_json() for _, e, _ in opened.events(latest[0])] == expected


def test_demo_runs_the_sample_hand_through_the_whole_pipeline() -> None:
    result = referee("demo", timeout=900)
    ok(result)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Replaying the sample hand in sample_images/sequences/sequence-11-000")
    assert "The hand had 13 plays; the referee followed" in result.stdout
    assert "made 0 false calls" in result.stdout
    events = [line for line in lines if line.startswith("frame")]
    assert events and all(" play " in e or " draw " in e or " unfollowed " in e or "6-5" in e or " hand_end " in e
                          for e in events)
    # The last tile laid wins the hand for the player who laid it; the loser's tile left in
    # hand may be unreadable (then the points are not guessed).
    ends = [e for e in events if " hand_end " in e]
    plays = [e for e in events if " play " in e]
    if ends:
        assert len(ends) == 1 and ends[0].split("winner=")[1].split()[0] == plays[-1].split("player=")[1].split()[0]
    # Points left unscored are said to be, with how to enter them.
    assert ("points=None" in result.stdout) == ("left unscored, not guessed" in result.stdout)


@pytest.mark.parametrize(("args", "needle"), [
    (["watch", "--camera", "9"], "camera 9"),
    (["watch", "--camera", "9", "--serve", "--port", "0", "--mute", "--no-records"], "camera 9"),  # no URL first
    (["demo", "--serve", "--port", "-5"], "--port"),
    (["watch", "--source", "/nonexistent/frames"], "/nonexistent/frames"),
    (["watch"], "--camera"),
    (["replay", "/nonexistent/frames"], "/nonexistent/frames"),
    (["replay", str(SAMPLE), "--resume"], "--log"),
    (["replay", str(SAMPLE), "--lang", "xx"], "xx"),
    (["demo", "--lang", "xx"], "xx"),
    (["replay", str(SAMPLE), "--opener", "5"], "--opener"),
    (["replay", str(SAMPLE), "--seats", "bottom,nowhere"], "nowhere"),
    (["replay", str(SAMPLE), "--workers", "0"], "--workers"),
    (["replay", str(SAMPLE), "--referee-config", "/nonexistent/referee.json"], "/nonexistent/referee.json"),
])
def test_user_errors_are_one_line(args: list[str], needle: str) -> None:
    assert needle in one_error_line(referee(*args))


@pytest.mark.parametrize(("bad", "needle"), [
    ('{"frame": 2, "input": "dance"}', "dance"),
    ('{"frame": 2, "input": "play"}', "needs the tile"),
    ('{"frame": 2, "input": "play", "tile": "6-4", "end": "sideways"}', "sideways"),
    ('{"frame": 2, "input": "play", "tile": 64}', "'tile' must be text"),
    ('{"frame": 2, "input": "reveal"}', "needs the tiles"),
    ('{"frame": 2, "input": "reveal", "tiles": "5-3"}', "'tiles' must be a list"),
    ('{"frame": 2, "input": "reveal", "tiles": ["5-3"], "seat": "one"}', "'seat' must be"),
    ('{"frame": 2, "input": "reveal", "tiles": ["five-three"]}', "five-three"),
])
def test_a_bad_inputs_line_is_named(tmp_path: Path, bad: str, needle: str) -> None:
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text('{"frame": 1, "input": "pass"}\n' + bad + "\n")
    line = one_error_line(referee("replay", SAMPLE, "--from-json", "--inputs", inputs))
    assert "line 2" in line and needle in line


def test_a_log_that_is_not_ours_is_refused_and_left_alone(tmp_path: Path) -> None:
    log = tmp_path / "notes.sqlite"
    log.write_bytes(b"my notes, not a database\n" * 10)
    before = log.read_bytes()
    line = one_error_line(referee("replay", SAMPLE, "--from-json", "--log", log))
    assert str(log) in line
    assert log.read_bytes() == before


def test_an_unreadable_frame_is_named(tmp_path: Path) -> None:
    (tmp_path / "frame-0000.jpg").write_bytes((SAMPLE / "frame-0000.jpg").read_bytes())
    (tmp_path / "frame-0001.jpg").write_bytes(b"not an image")
    line = one_error_line(referee("replay", tmp_path))
    assert "frame-0001.jpg" in line


def test_replay_with_workers_says_what_one_process_says(tmp_path: Path) -> None:
    """Frames read side by side in two processes give the same events as one process."""
    for index in range(14):
        name = f"frame-{index:04d}.jpg"
        (tmp_path / name).write_bytes((SAMPLE / name).read_bytes())
    one = referee("replay", tmp_path, "--json", "--opener", "1")
    two = referee("replay", tmp_path, "--json", "--opener", "1", "--workers", "2")
    ok(one)
    ok(two)
    assert two.stdout == one.stdout
    assert any(e["event"] == "play" for e in _lines(one.stdout))


def test_keys_typed_in_watch_reach_the_referee(capsys: pytest.CaptureFixture[str]) -> None:
    import queue

    from referee.cli_session import _keys
    from referee.rules import Rules, Variant
    from referee.session.loop import Session
    from referee.vision.types import Detection

    def never(image: object) -> Detection:
        raise AssertionError("no frames in this test")

    session = Session(Rules(Variant.FIVES, players=2), never)
    keys: queue.Queue[str] = queue.Queue()
    for line in ("p", "dance", "u", "c 6-6 6-5", "q", "p"):
        keys.put(line)
    assert _keys(session, keys, 7) is True  # q stops; the key after it is left
    kinds = [e.kind.value for e in session.events]
    assert kinds == ["illegal"]  # a pass before the opening: must_play; undo with nothing to undo: nothing
    assert session.events[0].reason == "must_play" and session.events[0].frame == 7
    err = capsys.readouterr().err
    assert "keys:" in err  # the unknown key got the list of keys
    assert "not on the table" in err  # the correction of a tile nobody played was refused, one line
    assert keys.get_nowait() == "p"


def test_watch_keys_enter_a_play_the_camera_cannot_read(capsys: pytest.CaptureFixture[str]) -> None:
    # What a player types in watch: t TILE [END]; a play the rules refuse and a key that means
    # nothing are named on stderr, and change nothing.
    import queue

    from referee.cli_session import _keys
    from referee.rules import Rules, Variant
    from referee.session.events import Kind
    from referee.session.loop import Session
    from referee.session.referee import RefereeConfig

    session = Session(Rules(Variant.FIVES, players=2), lambda image: image, referee_config=RefereeConfig(opener=1))
    keys: queue.Queue[str] = queue.Queue()
    for line in ("t 6-6", "t 2-3 left", "t 6-x", "t 6-2 sideways", "t", "dance"):
        keys.put(line)
    assert _keys(session, keys, 4) is False
    assert [(e.kind, e.tile, e.player, e.by_hand) for e in session.events] == [(Kind.PLAY, "6-6", 1, True)]
    err = capsys.readouterr().err
    assert "play 2-3 left: 3-2 cannot be played at the left end: mismatch" in err
    assert "'6-x'" in err and "'sideways'" in err
    assert err.count("t TILE [END]") == 2
    keys.put("q")
    assert _keys(session, keys, 5) is True


def test_watch_keys_enter_a_reveal_the_camera_cannot_read(capsys: pytest.CaptureFixture[str]) -> None:
    # A blocked hand (each player passed, nothing to draw): both players hold tiles, so each
    # reveal names the player, numbered from 1 as announced; a reveal without one is refused.
    import queue

    from referee.cli_session import _keys
    from referee.rules import Rules, Variant
    from referee.session.events import Kind
    from referee.session.loop import Input, Session

    session = Session(Rules(Variant.BLOCK, players=2, hand_size=2), lambda image: image)
    keys: queue.Queue[str] = queue.Queue()
    for line in ("t 6-3", "p", "p"):
        keys.put(line)
    _keys(session, keys, 1)
    assert session.referee.waiting_reveal
    for line in ("r 1-0", "r 1 1-0", "r 2 5-4 5-x", "r 2 5-4 5-2"):
        keys.put(line)
    _keys(session, keys, 2)
    end = session.events[-1]
    assert (end.kind, end.reveal, end.points) == (Kind.HAND_END, (("1-0",), ("5-4", "5-2")), 15)
    err = capsys.readouterr().err
    assert "players 1, 2 hold tiles: name the player" in err and "'5-x'" in err
    # The first reveal is an event of its own, said and logged as it comes.
    (shown,) = [e for e in session.events if e.kind is Kind.REVEAL]
    assert (shown.player, shown.tiles) == (0, ("1-0",))
    assert session.phrases.say(shown) == "Gracz 1 pokazuje: 1-0."
    with pytest.raises(ValueError, match="needs the tiles"):
        Input(3, "reveal")


def _unread_reveal(tmp_path: Path) -> Path:
    """The sample hand, its frames' detections with the loser's revealed tile (5-3) read
    doubtfully in every frame: the camera cannot read the reveal."""
    folder = tmp_path / "hand"
    folder.mkdir()
    for path in SAMPLE.iterdir():
        if path.suffix == ".json" and path.name.startswith("frame-"):
            data = json.loads(path.read_text())
            for t in data["tiles"]:
                if sorted(t["pips"]) == [3, 5]:
                    t["uncertain"] = True
            (folder / path.name).write_text(json.dumps(data))
        else:
            (folder / path.name).symlink_to(path)
    return folder


def test_a_reveal_the_camera_cannot_read_is_entered_in_the_inputs_file(tmp_path: Path) -> None:
    hand = _unread_reveal(tmp_path)
    unread = referee("replay", hand, "--from-json", "--json", "--opener", "1")
    ok(unread)
    (end,) = [e for e in _lines(unread.stdout) if e["event"] == "hand_end"]
    assert end["winner"] == 1 and end["points"] is None  # never guessed
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text('{"frame": 47, "input": "reveal", "tiles": ["5-3"]}\n')
    entered = referee("replay", hand, "--from-json", "--json", "--opener", "1", "--inputs", inputs)
    ok(entered)
    (end,) = [e for e in _lines(entered.stdout) if e["event"] == "hand_end"]
    assert (end["winner"], end["points"], end["reveal"]) == (1, 10, [["5-3"], []])


def test_a_reveal_that_contradicts_the_hand_is_refused_in_one_line(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text('{"frame": 47, "input": "reveal", "tiles": ["6-6"]}\n')
    result = referee("replay", _unread_reveal(tmp_path), "--from-json", "--json", "--opener", "1", "--inputs", inputs)
    ok(result)
    assert result.stderr.strip() == "referee: reveal 6-6: 6-6 is on the table"
    (end,) = [e for e in _lines(result.stdout) if e["event"] == "hand_end"]
    assert end["points"] is None


def test_watch_says_a_pass_waits_for_the_table_and_an_undo_takes_it_back(capsys: pytest.CaptureFixture[str]) -> None:
    # The keys typed in ``watch`` (and the --inputs of ``replay``) go through one function: a
    # pass that waits for the table to settle (an arm over it, a tile left to draw) is answered
    # at once, so nobody types it again.
    from referee.cli_session import _apply
    from referee.session.loop import Input, Session
    from tests.test_session_referee import LAST_ONE, OCCLUDED, OPEN_63, detection
    session = Session(LAST_ONE, None)
    for frame in (0, 1):
        session.frame(frame, detection=detection(OPEN_63, down=14))
    session.frame(2, detection=OCCLUDED)
    _apply(session, Input(2, "pass"))
    _apply(session, Input(2, "undo"))
    assert capsys.readouterr().err.splitlines() == [
        "referee: pass noted: it is said once the table settles (the camera may yet show a draw)",
        "referee: the pass waiting for the table is taken back"]
    assert session.referee.passes_waiting == 0 and session.events[1:] == []
