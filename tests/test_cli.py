"""The ``referee`` command run as a real subprocess: ``check`` and ``simulate``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import helpers
import pytest
from helpers import REPO

from referee.rules import Rules, Variant
from referee.rules.bots import BOTS
from referee.rules.simulate import match_record, simulate


def referee(*args: str | Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return helpers.referee(*args, stdin=stdin, timeout=120)


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The single line a user error prints, ending in a newline."""
    assert result.stderr.endswith("\n"), result.stderr
    return helpers.one_error_line(result)


def write(path: Path, data: Any) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


# -- records -------------------------------------------------------------------------------------
# A two-player All Fives hand, three tiles each, worked out by hand:
#  1. 5-5 opens (a lone double counts once): 10.  2. 5-0 on the left: 0 + 5-5 crosswise: 10.
#  3. 0-0 on the left: 0 + 10: 10.  4. 5-3 on the right: 0 + 3 = 3, and the spinner opens: 0.
#  5. player 0 holds only 6-2: playing it is a mismatch, passing with tiles to draw is must_draw.
#  7. draws 5-1.  8. 5-1 on the spinner's up arm: 0 + 3 + 1 (down is still empty) = 4: 0.
#  9. player 1 draws 4-3.  10. 4-3 on the right: 0 + 4 + 1 = 5: 5.  11. player 0 draws 6-0.
# 12. 6-0 on the left: 6 + 4 + 1 = 11: 0.  13. player 1 lays 4-2, the last tile: 6 + 2 + 1 = 9,
#     domino. Player 0 keeps 6-2 = 8 pips, rounded to 10.  14. any later action: hand_over.
# Scores: player 0 10 + 10 = 20; player 1 10 + 5 + 10 = 25.
FIVES_RECORD: dict[str, Any] = {
    "variant": "fives", "players": 2, "rules": {"hand_size": 3, "target": 100},
    "hands": [{
        "deal": [["5-5", "0-0", "6-2"], ["5-0", "5-3", "4-2"]],
        "boneyard": ["5-1", "4-3", "6-0", "1-0", "1-1", "2-0", "2-1", "2-2", "3-0", "3-1", "3-2", "3-3",
                     "4-0", "4-1", "4-4", "5-2", "5-4", "6-1", "6-3", "6-4", "6-5", "6-6"],
        "actions": [
            {"player": 0, "play": "5-5"},
            {"player": 1, "play": "5-0", "end": "left"},
            {"player": 0, "play": "0-0", "end": "left"},
            {"player": 1, "play": "3-5", "end": "right"},
            {"player": 0, "play": "6-2", "end": "right"},
            {"player": 0, "pass": True},
            {"player": 0, "draw": "5-1"},
            {"player": 0, "play": "5-1", "end": "up"},
            {"player": 1, "draw": "4-3"},
            {"player": 1, "play": "4-3", "end": "right"},
            {"player": 0, "draw": "6-0"},
            {"player": 0, "play": "6-0", "end": "left"},
            {"player": 1, "play": "4-2", "end": "right"},
            {"player": 0, "pass": True},
        ],
        "reveal": [["6-2"], []],
    }],
}
FIVES_REPORT = {
    "hands": [{
        "actions": [
            {"legal": True, "points": 10}, {"legal": True, "points": 10}, {"legal": True, "points": 10},
            {"legal": True, "points": 0}, {"legal": False, "reason": "mismatch"},
            {"legal": False, "reason": "must_draw"}, {"legal": True, "points": 0}, {"legal": True, "points": 0},
            {"legal": True, "points": 0}, {"legal": True, "points": 5}, {"legal": True, "points": 0},
            {"legal": True, "points": 0}, {"legal": True, "points": 0}, {"legal": False, "reason": "hand_over"},
        ],
        "result": "domino", "winner": 1, "winners": [1], "points": 10,
    }],
    "scores": [20, 25], "match_winner": None, "match_winners": [],
}

# Partners with two tiles each: 6-6 must open; 6-5, 5-4, 4-3 go left; player 1 playing out of
# turn is taken back; player 0 (2-1) cannot play and passes; player 1 lays 3-0, its last tile.
# The pair (1, 3) scores the opponents' pips, 2-1 and 1-1: 5 (player 3's 2-2 is not subtracted).
PARTNERS_RECORD: dict[str, Any] = {
    "variant": "partners", "players": 4, "rules": {"hand_size": 2},
    "hands": [{
        "deal": [["6-6", "2-1"], ["6-5", "3-0"], ["5-4", "1-1"], ["4-3", "2-2"]],
        "actions": [
            {"player": 0, "play": "6-6"},
            {"player": 1, "play": "6-5", "end": "left"},
            {"player": 2, "play": "5-4", "end": "left"},
            {"player": 3, "play": "4-3", "end": "left"},
            {"player": 1, "play": "3-0", "end": "left"},
            {"player": 0, "pass": True},
            {"player": 1, "play": "3-0"},
        ],
        "reveal": [["2-1"], [], ["1-1"], ["2-2"]],
    }],
}
PARTNERS_REPORT = {
    "hands": [{
        "actions": [{"legal": True, "points": 0}] * 4 + [{"legal": False, "reason": "out_of_turn"}]
        + [{"legal": True, "points": 0}] * 2,
        "result": "domino", "winner": 1, "winners": [1, 3], "points": 5,
    }],
    "scores": [0, 5, 0, 5], "match_winner": None, "match_winners": [],
}


def legal_only(record: dict[str, Any]) -> dict[str, Any]:
    """The record without the actions the report calls illegal."""
    clean = json.loads(json.dumps(record))
    actions = clean["hands"][0]["actions"]
    clean["hands"][0]["actions"] = [a for i, a in enumerate(actions) if i not in (4, 5, 13)]
    return clean


# -- check ---------------------------------------------------------------------------------------
def test_check_json_prints_the_documented_document(tmp_path: Path) -> None:
    result = referee("check", write(tmp_path / "fives.json", FIVES_RECORD), "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.count("\n") == 1  # one JSON document on one line
    assert json.loads(result.stdout) == FIVES_REPORT


def test_check_json_partners(tmp_path: Path) -> None:
    result = referee("check", write(tmp_path / "partners.json", PARTNERS_RECORD), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == PARTNERS_REPORT


def test_check_reads_standard_input() -> None:
    result = referee("check", "-", "--json", stdin=json.dumps(FIVES_RECORD))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == FIVES_REPORT


def test_check_without_json_gives_a_readable_account(tmp_path: Path) -> None:
    result = referee("check", write(tmp_path / "fives.json", FIVES_RECORD))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    text = result.stdout
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    numbered = [line for line in text.splitlines() if re.match(r"^\s*\d+\.\s", line)]
    assert len(numbered) == 14
    for n, line in enumerate(numbered, start=1):
        assert re.match(rf"^\s*{n}\.\s", line)
        assert ("ILLEGAL" in line) == (n in (5, 6, 14)), line
    assert "5-5" in numbered[0] and "10" in numbered[0]
    assert "6-2" in numbered[4] and "mismatch" in numbered[4]
    assert "must_draw" in numbered[5]
    assert "5-1" in numbered[7] and "up" in numbered[7]
    assert "4-3" in numbered[9] and "5" in numbered[9]
    assert "hand_over" in numbered[13]
    assert "domino" in text
    assert "10 points" in text
    assert "20" in text and "25" in text


@pytest.mark.parametrize(("record", "strict_code"), [
    (FIVES_RECORD, 1),
    (PARTNERS_RECORD, 1),
    (legal_only(FIVES_RECORD), 0),
])
def test_check_strict_exits_1_on_an_illegal_action(tmp_path: Path, record: dict[str, Any], strict_code: int) -> None:
    path = write(tmp_path / "record.json", record)
    strict = referee("check", path, "--strict", "--json")
    assert strict.returncode == strict_code, strict.stderr
    report = json.loads(strict.stdout)
    assert all(a["legal"] for h in report["hands"] for a in h["actions"]) == (strict_code == 0)
    assert referee("check", path).returncode == 0  # without --strict an illegal action is no error


def test_check_legal_only_record_scores_the_same_hand(tmp_path: Path) -> None:
    result = referee("check", write(tmp_path / "clean.json", legal_only(FIVES_RECORD)), "--json")
    report = json.loads(result.stdout)
    assert [a["points"] for a in report["hands"][0]["actions"]] == [10, 10, 10, 0, 0, 0, 0, 5, 0, 0, 0]
    assert report["scores"] == [20, 25]
    assert report["hands"][0]["result"] == "domino"


@pytest.mark.parametrize(("text", "path"), [
    ('{"hands": [', "$"),
    ('[1, 2]', "$"),
    (json.dumps({"hands": [{"actions": [{"player": 0, "play": "7-x"}]}]}), "$.hands[0].actions[0].play"),
    (json.dumps({"hands": [{"deal": [["6-6", "9-9", "5-5", "4-4", "3-3", "2-2", "1-1"],
                                     ["6-5", "6-4", "6-3", "6-2", "6-1", "6-0", "5-4"]],
                            "actions": []}]}), "$.hands[0].deal[0][1]"),
    (json.dumps({"rules": {"house_special": 1}, "hands": []}), "$.rules.house_special"),
    (json.dumps({"players": "two", "hands": []}), "$.players"),
    (json.dumps({"rules": {"target": "100"}, "hands": []}), "$.rules.target"),
    (json.dumps({"rules": {"draw_when_able": 1}, "hands": []}), "$.rules.draw_when_able"),
    (json.dumps({"variant": "poker", "hands": []}), "$.variant"),
    (json.dumps({"hands": [{"actions": [{"player": 0, "pass": "yes"}]}]}), "$.hands[0].actions[0].pass"),
    (json.dumps({"hands": [{"actions": [{"player": 0, "play": "6-6", "end": "middle"}]}]}),
     "$.hands[0].actions[0].end"),
])
def test_malformed_record_exits_2_with_one_line(tmp_path: Path, text: str, path: str) -> None:
    file = write(tmp_path / "broken-record.json", text)
    line = one_error_line(referee("check", file, "--json"))
    assert "broken-record.json" in line
    assert f"{path}:" in line
    # The same for the readable account and --strict.
    assert one_error_line(referee("check", file)) == line
    assert one_error_line(referee("check", file, "--strict")) == line


def test_missing_record_exits_2_with_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-record.json"
    line = one_error_line(referee("check", missing, "--json"))
    assert "no-such-record.json" in line


# -- simulate ------------------------------------------------------------------------------------
SIM_ARGS = ["--variant", "fives", "--players", "4", "--games", "50", "--seed", "1", "--bot", "greedy"]


def check_many(paths: list[Path]) -> list[subprocess.CompletedProcess[str]]:
    """``referee check --json`` on every path, a few at a time."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    results: list[subprocess.CompletedProcess[str]] = []
    for start in range(0, len(paths), 4):
        batch = [(p, subprocess.Popen([sys.executable, "-m", "referee.cli", "check", str(p), "--json"],
                                      cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True)) for p in paths[start:start + 4]]
        for path, process in batch:
            out, err = process.communicate(timeout=120)
            results.append(subprocess.CompletedProcess([str(path)], process.returncode, out, err))
    return results


def test_simulate_writes_records_that_check_accepts(tmp_path: Path) -> None:
    records = tmp_path / "records"
    result = referee("simulate", *SIM_ARGS, "--records", records)
    assert result.returncode == 0, result.stderr
    paths = sorted(records.iterdir())
    assert [p.name for p in paths] == [f"match-{i:05d}.json" for i in range(1, 51)]

    # The same matches played in-process from the same seed.
    rules = Rules(variant=Variant.FIVES, players=4)
    matches: list[Any] = []
    summary = simulate(rules, [BOTS["greedy"]] * 4, ["greedy"] * 4, 50, 1, lambda i, m: matches.append(m))
    assert summary.matches == 50 and summary.unfinished == 0

    for path, match, checked in zip(paths, matches, check_many(paths), strict=True):
        record = json.loads(path.read_text(encoding="utf-8"))
        assert record == json.loads(json.dumps(match_record(match)))
        assert record["variant"] == "fives" and record["players"] == 4
        assert checked.returncode == 0, checked.stderr
        assert checked.stderr == ""
        report = json.loads(checked.stdout)
        assert set(report) >= {"hands", "scores", "match_winner", "match_winners"}
        assert len(report["hands"]) == len(record["hands"]) == len(match.hands)
        for hand, judged, outcome in zip(record["hands"], report["hands"], match.outcomes, strict=True):
            assert len(judged["actions"]) == len(hand["actions"])
            assert all(a["legal"] is True for a in judged["actions"]), judged
            assert all(a["points"] % 5 == 0 for a in judged["actions"])
            assert judged["result"] == outcome.result()
            assert judged["winners"] == list(outcome.winners)
            assert judged["winner"] == outcome.winner
            assert judged["points"] == outcome.points
            assert judged["points"] % 5 == 0
        assert report["scores"] == match.scores
        assert max(report["scores"]) >= 100
        assert report["match_winners"] == match.winners() != []
        assert report["match_winner"] == match.winner()


def without_timing(text: str) -> str:
    return re.sub(r"; [0-9.]+ s$", "; <time> s", text, flags=re.MULTILINE)


def test_simulate_is_deterministic(tmp_path: Path) -> None:
    first = referee("simulate", *SIM_ARGS, "--records", tmp_path / "a")
    second = referee("simulate", *SIM_ARGS, "--records", tmp_path / "b")
    assert first.returncode == second.returncode == 0
    assert "; <time> s" in without_timing(first.stdout)
    assert without_timing(first.stdout).replace(str(tmp_path / "a"), "DIR") == without_timing(
        second.stdout).replace(str(tmp_path / "b"), "DIR")
    assert without_timing(referee("simulate", *SIM_ARGS).stdout) == without_timing(
        referee("simulate", *SIM_ARGS).stdout)
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert len(names) == 50
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()

    as_json = [json.loads(referee("simulate", *SIM_ARGS, "--json").stdout) for _ in range(2)]
    for data in as_json:
        assert isinstance(data.pop("seconds"), float | int)
    assert as_json[0] == as_json[1]
    assert as_json[0]["matches"] == 50
    assert as_json[0]["variant"] == "fives" and as_json[0]["players"] == 4
    assert len(as_json[0]["win_rate"]) == 4
    assert as_json[0]["unfinished"] == 0
    assert sum(as_json[0]["win_rate"]) >= 0.999  # every match has a winner (rates are rounded)

    other_seed = json.loads(referee("simulate", *SIM_ARGS[:-4], "--seed", "2", "--bot", "greedy", "--json").stdout)
    other_seed.pop("seconds")
    assert other_seed != as_json[0]


def test_simulate_text_reports_win_rates_points_and_blocked_hands() -> None:
    result = referee("simulate", *SIM_ARGS)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    data = json.loads(referee("simulate", *SIM_ARGS, "--json").stdout)
    assert text.startswith("50 matches of fives, 4 players")
    for seat, rate in enumerate(data["win_rate"]):
        assert re.search(rf"player {seat} \(greedy\)\s+won\s+{rate * 100:5.1f}% of matches", text), text
    assert f"average points per hand: {data['average_points_per_hand']}" in text
    assert f"blocked hands: {data['blocked_share'] * 100:.1f}%" in text


@pytest.mark.parametrize(("args", "needle"), [
    (["--variant", "nope"], "nope"),
    (["--variant", "partners", "--players", "9"], "9"),
    (["--games", "0"], "--games"),
    (["--games", "-5"], "--games"),
    (["--bot", "clever"], "clever"),
    (["--bot", "greedy,random,greedy"], "greedy,random,greedy"),
    (["--players", "two"], "two"),
    (["--hand-size", "20"], "20"),
])
def test_simulate_bad_arguments_exit_2_with_one_line(args: list[str], needle: str) -> None:
    line = one_error_line(referee("simulate", "--games", "3", *args))
    assert needle in line


def test_simulate_refuses_to_overwrite_records(tmp_path: Path) -> None:
    records = tmp_path / "records"
    records.mkdir()
    existing = records / "match-00001.json"
    existing.write_text('{"keep": "me"}\n', encoding="utf-8")
    line = one_error_line(referee("simulate", *SIM_ARGS, "--records", records))
    assert "match-00001.json" in line
    assert existing.read_text(encoding="utf-8") == '{"keep": "me"}\n'
    assert [p.name for p in records.iterdir()] == ["match-00001.json"]
