"""sample_images/ is exactly what scripts/make-samples made, within its size budget."""

from __future__ import annotations

import json
from pathlib import Path

from referee.render.manifest import UNLISTED, digest, read
from referee.rules.check import check_record
from referee.rules.record import parse_record

SAMPLES = Path(__file__).resolve().parent.parent / "sample_images"
BUDGET = 15 * 1024 * 1024


def test_every_sample_is_in_the_manifest_with_its_hash() -> None:
    listed = read(SAMPLES)
    present = {p.relative_to(SAMPLES).as_posix() for p in SAMPLES.rglob("*") if p.is_file()} - UNLISTED
    assert present == set(listed)
    for name, sha in listed.items():
        assert digest(SAMPLES / name) == sha, name


def test_samples_stay_within_their_budget() -> None:
    assert sum(p.stat().st_size for p in SAMPLES.rglob("*") if p.is_file()) <= BUDGET


def test_stills_cover_every_kind_and_style() -> None:
    seen = set()
    for truth_path in (SAMPLES / "stills").glob("*.json"):
        truth = json.loads(truth_path.read_text())
        assert truth_path.with_suffix(".jpg").exists()
        seen.add((truth["scene"]["kind"], truth["scene"]["style"]))
    assert seen == {(k, s) for k in ("scattered", "line", "reveal") for s in ("ivory", "black", "coloured")}


def test_sequences_are_the_hands_promised() -> None:
    fives = json.loads((SAMPLES / "sequences" / "sequence-11-000" / "sequence.json").read_text())
    blocked = json.loads((SAMPLES / "sequences" / "sequence-259-000" / "sequence.json").read_text())
    assert fives["variant"] == "fives"
    ends = {e["end"] for e in fives["events"] if e["event"] == "play"}
    assert {"up", "down"} <= ends
    illegal = [e for e in fives["events"] if e["event"] == "illegal"]
    assert len(illegal) == 1 and illegal[0]["reason"] == "mismatch"
    report = check_record(parse_record(fives)).to_json()
    assert [v["reason"] for v in report["hands"][0]["actions"] if not v["legal"]] == ["mismatch"]
    assert blocked["variant"] == "draw"
    assert any(e["event"] == "blocked" for e in blocked["events"])
    report = check_record(parse_record(blocked)).to_json()
    assert report["hands"][0]["result"] == "blocked"
    assert all(v["legal"] for v in report["hands"][0]["actions"])
    for sequence in (fives, blocked):
        assert sequence["events"][-1]["event"] == "hand_end"
