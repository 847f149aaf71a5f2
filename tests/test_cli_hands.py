"""``referee evaluate-hands`` as a user runs it: the sample hands refereed from the truth beside
their frames (the referee alone, vision set aside) are scored in full, once or with each view
held for several frames, and bad input is one line."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.helpers import REPO, ok, one_error_line, referee

HANDS = REPO / "sample_images" / "sequences"


@pytest.mark.parametrize("repeat", ["1", "3"])
def test_the_sample_hands_read_from_truth_score_in_full(tmp_path: Path, repeat: str) -> None:
    out = tmp_path / "hands.csv"
    result = referee("evaluate-hands", HANDS, "--from-json", "--repeat", repeat, "--csv", out, "--quiet")
    ok(result)
    assert "plays, right tile and end     25/25 (100.0%)" in result.stdout
    assert "false illegal events          0" in result.stdout
    rows = {r["hand"]: r for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert set(rows) == {"sequence-11-000", "sequence-259-000"}
    for row in rows.values():
        assert row["plays_right"] == row["plays"] and row["fives_right"] == row["fives"]
        assert row["false_draws"] == "0" and row["false_plays"] == "0" and row["hand_end_right"] == "True"
    assert rows["sequence-11-000"]["illegal_flagged"] == "1"
    assert rows["sequence-259-000"]["draws_found"] == "1"


@pytest.mark.parametrize(("args", "needle"), [
    (["evaluate-hands", "/nonexistent/hands"], "/nonexistent/hands"),
    (["evaluate-hands", str(HANDS), "--from-json", "--repeat", "0"], "--repeat"),
    (["evaluate-hands", str(REPO / "docs")], "no rendered hands"),
])
def test_bad_input_is_one_line(args: list[str], needle: str) -> None:
    assert needle in one_error_line(referee(*args))


def test_an_existing_csv_is_never_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "hands.csv"
    out.write_text("kept\n")
    assert str(out) in one_error_line(referee("evaluate-hands", HANDS / "sequence-11-000", "--from-json", "--csv", out))
    assert out.read_text() == "kept\n"
