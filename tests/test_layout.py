"""referee.layout: from one frame's tiles to the line of play as the rules see it.

Checked three ways: against every sample truth file (the renderer wrote the rules' view of the
line beside the exact tiles), against hands the rules engine played and the renderer's
LineBuilder laid out (a property test), and on hand-built tiles with exact geometry for each
thing the layout reports. Then ``referee layout`` through real subprocesses."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from referee.layout import LayoutConfig, build
from referee.render.layout import LineBuilder
from referee.render.scene import TileSize
from referee.render.styles import TileLook, TileStyle
from referee.rules import Hand, Rules, Variant
from referee.rules.bots import play_turn, random_bot
from referee.vision.types import Detection, TileReading
from tests.helpers import REPO, ok, one_error_line, referee

SAMPLES = REPO / "sample_images"
KEYS = ["line", "spinner", "branches", "open_ends", "count", "mismatches", "misplaced", "loose", "uncertain"]


# -- comparing layouts up to the direction the line is read in ----------------------------------
def flip(tile: str) -> str:
    a, b = tile.split("-")
    return f"{b}-{a}"


def reversed_view(d: dict[str, Any]) -> dict[str, Any]:
    """The same table read from the other end: the line backwards with each tile flipped, the
    spinner's index mirrored, up and down swapped (which is up is a matter of geometry)."""
    line = list(d["line"])
    spinner = d["spinner"]
    return {**d, "line": [flip(t) for t in reversed(line)],
            "spinner": None if spinner is None else len(line) - 1 - spinner,
            "branches": {"up": d["branches"]["down"], "down": d["branches"]["up"]}}


def essentials(d: dict[str, Any]) -> tuple[Any, ...]:
    branches = sorted(tuple(v) for v in d["branches"].values())
    return (list(d["line"]), d["spinner"], branches, sorted(d["open_ends"]), d["count"])


def same_table(got: dict[str, Any], want: dict[str, Any]) -> bool:
    return essentials(got) in (essentials(want), essentials(reversed_view(want)))


def assert_same_table(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert same_table(got, want), f"\n got  {essentials(got)}\n want {essentials(want)}"


def test_reversed_view_is_an_involution_and_is_accepted() -> None:
    d = {"line": ["4-3", "3-6", "6-6", "6-0"], "spinner": 2,
         "branches": {"up": ["6-5"], "down": []}, "open_ends": [4, 0, 5], "count": 9}
    r = reversed_view(d)
    assert r["line"] == ["0-6", "6-6", "6-3", "3-4"] and r["spinner"] == 1
    assert reversed_view(r) == d
    assert same_table(r, d)
    assert not same_table({**d, "line": ["3-4", "3-6", "6-6", "6-0"]}, d)
    assert not same_table({**d, "spinner": 1}, d)


# -- every sample truth file -----------------------------------------------------------------
def _variant(path: Path, truth: dict[str, Any]) -> str:
    seq = path.parent / "sequence.json"
    if seq.exists():
        return str(json.loads(seq.read_text(encoding="utf-8"))["variant"])
    return str(truth["scene"]["variant"])


TRUTHS = sorted(p for p in [*SAMPLES.glob("stills/*.json"), *SAMPLES.glob("sequences/*/frame-*.json")]
                if json.loads(p.read_text(encoding="utf-8")).get("layout") is not None)


def test_the_samples_hold_lines_with_a_spinner_and_both_directions() -> None:
    names = {str(p.relative_to(SAMPLES)) for p in TRUTHS}
    assert {"stills/line-201-0000.json", "stills/line-202-0000.json", "stills/line-203-0000.json"} <= names
    assert sum("sequence-11-000" in n for n in names) >= 40
    assert sum("sequence-259-000" in n for n in names) >= 40


@pytest.mark.parametrize("path", TRUTHS, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_layout_of_every_truth_file_is_the_rules_view(path: Path) -> None:
    """Occluded frames are included: their truth still lists every tile under the arm."""
    truth = json.loads(path.read_text(encoding="utf-8"))
    detection = Detection.from_json(truth)
    layout = build(detection, LayoutConfig(spinner=_variant(path, truth) == "fives")).to_json()
    assert_same_table(layout, truth["layout"])
    # Every face-up tile is accounted for exactly once: in the line, a branch, or reported.
    named = [*layout["line"], *(t for b in layout["branches"].values() for t in b), *layout["loose"],
             *(m[1] for m in layout["mismatches"]), *(m[1] for m in layout["misplaced"])]
    key = lambda t: tuple(sorted(t))  # noqa: E731
    assert Counter(key(t.split("-")) for t in named) == Counter(key(map(str, t.pips)) for t in detection.tiles)
    assert layout["misplaced"] == [] and layout["uncertain"] == []


def test_the_illegal_tile_of_the_fives_sequence_is_a_mismatch() -> None:
    folder = SAMPLES / "sequences" / "sequence-11-000"
    events = json.loads((folder / "sequence.json").read_text(encoding="utf-8"))["events"]
    illegal = [e for e in events if e["event"] == "illegal"]
    assert len(illegal) == 1
    frame, tile = illegal[0]["frame"], illegal[0]["tile"]
    truth = json.loads((folder / f"frame-{frame:04d}.json").read_text(encoding="utf-8"))
    layout = build(Detection.from_json(truth), LayoutConfig(spinner=True))
    assert [sorted(m[1].split("-")) for m in layout.mismatches] == [sorted(tile.split("-"))]
    line_tile, other = layout.mismatches[0]
    placed = [*layout.line, *(t for b in layout.branches.values() for t in b)]
    assert line_tile in placed or flip(line_tile) in placed
    # Written with the touching halves adjacent: the line tile's is an open end, and not the
    # half of the illegal tile against it.
    touching = int(line_tile.split("-")[1])
    assert touching in layout.open_ends and touching != int(other.split("-")[0])


# -- hands played by the rules, laid out by the renderer -------------------------------------
def readings(poses: list[Any], size: TileSize, angle: float, scale: float,
             offset: tuple[float, float]) -> tuple[TileReading, ...]:
    """What a perfect camera straight overhead would read: mm turned by ``angle``, scaled and
    shifted into pixels."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))

    def px(p: Any) -> tuple[float, float]:
        x, y = float(p[0]), float(p[1])
        return ((x * c - y * s) * scale + offset[0], (x * s + y * c) * scale + offset[1])
    out = []
    for pose in poses:
        h = pose.halves(size)
        k = [px(q) for q in pose.corners(size)]
        out.append(TileReading(pose.pips, (px(h[0]), px(h[1])), (k[0], k[1], k[2], k[3]),
                               px((pose.x, pose.y)), 1.0))
    return tuple(out)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(["fives", "draw"]), plays=st.integers(1, 40),
       angle=st.floats(0, 360), scale=st.floats(0.6, 2.5), size=st.sampled_from([TileSize(), TileSize(55, 27.5)]))
def test_layout_of_a_laid_out_hand_is_the_rules_table(seed: int, variant: str, plays: int, angle: float,
                                                      scale: float, size: TileSize) -> None:
    rng = random.Random(seed)
    hand = Hand.deal_random(Rules(variant=Variant(variant)), rng)
    while not hand.is_over() and hand.table.size < plays:
        play_turn(hand, random_bot, rng)
    look = TileLook(TileStyle.IVORY)
    builder = LineBuilder(size, (-510.0, -310.0, 510.0, 310.0), np.random.default_rng(seed), lambda _: look)
    poses = builder.from_table(hand.table, (rng.gauss(0, 40), rng.gauss(0, 30)), rng.uniform(0, 360))
    assume(not builder.crowded)
    tiles = readings(poses, size, angle, scale, (1000.0, 700.0))
    got = build(Detection(2000, 1400, False, tiles), LayoutConfig(spinner=variant == "fives")).to_json()
    want = hand.table.snapshot().to_dict()
    event(f"{variant}, {'spinner with branches' if any(want['branches'].values()) else 'no branches'}")
    # Every tile belongs to the line. (Not asserted: no other report. Where the renderer turns
    # the corner right after a crosswise spinner, the turned tile sticks out past the spinner's
    # short end and a branch tile lies against it: that touch is reported too.)
    assert got["loose"] == [] and got["uncertain"] == []
    if any(want["branches"].values()):
        assert_same_table(got, want)
        return
    # Before a branch is played nothing on the table tells which double came first: the
    # spinner must then be one of the line's doubles; all else must be exact.
    assert_same_table({**got, "spinner": None}, {**want, "spinner": None})
    assert (got["spinner"] is None) == (want["spinner"] is None)
    if got["spinner"] is not None:
        a, b = got["line"][got["spinner"]].split("-")
        assert a == b


# -- hand-built tiles with exact geometry ----------------------------------------------------
W, L = 40.0, 80.0  # a tile's width and length in pixels


def tile(pips: tuple[int, int], x: float, y: float, angle: float, uncertain: bool = False) -> TileReading:
    """A tile centred at (x, y), its axis from half 0 to half 1 at ``angle`` degrees."""
    a = math.radians(angle)
    ux, uy = math.cos(a), math.sin(a)
    vx, vy = -uy, ux
    q = L / 4
    k = [(x + s * L / 2 * ux + t * W / 2 * vx, y + s * L / 2 * uy + t * W / 2 * vy)
         for s, t in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    return TileReading(pips, ((x - q * ux, y - q * uy), (x + q * ux, y + q * uy)), (k[0], k[1], k[2], k[3]),
                       (x, y), 0.4 if uncertain else 1.0, uncertain)


def lay(*tiles: TileReading, spinner: bool = True) -> dict[str, Any]:
    return build(Detection(1000, 1000, False, tiles), LayoutConfig(spinner=spinner)).to_json()


def table_of(line: list[str], spinner: int | None = None, branches: tuple[list[str], list[str]] = ([], []),
             open_ends: list[int] | None = None, count: int = 0) -> dict[str, Any]:
    return {"line": line, "spinner": spinner, "branches": {"up": branches[0], "down": branches[1]},
            "open_ends": open_ends or [], "count": count}


def test_tiles_end_to_end_make_a_line() -> None:
    got = lay(tile((1, 2), 0, 0, 0), tile((2, 3), 80, 0, 0), tile((3, 4), 160, 0, 0))
    assert_same_table(got, table_of(["1-2", "2-3", "3-4"], open_ends=[1, 4], count=5))
    assert got["mismatches"] == got["misplaced"] == got["loose"] == got["uncertain"] == []


def test_an_empty_frame_has_no_line() -> None:
    assert lay() == {"line": [], "spinner": None, "branches": {"up": [], "down": []}, "open_ends": [], "count": 0,
                     "mismatches": [], "misplaced": [], "loose": [], "uncertain": []}


@pytest.mark.parametrize("backwards", [False, True], ids=["as-laid", "halves-listed-backwards"])
def test_a_tile_whose_touching_half_does_not_match_is_a_mismatch(backwards: bool) -> None:
    # 1-3 3-4 then 5-6 with its 5 against the 4. Vision may list a tile's halves either way
    # round (``backwards``: each tile turned 180 degrees, halves swapped): same report.
    if backwards:
        tiles = [tile((3, 1), 0, 0, 180), tile((4, 3), 80, 0, 180), tile((6, 5), 160, 0, 180)]
    else:
        tiles = [tile((1, 3), 0, 0, 0), tile((3, 4), 80, 0, 0), tile((5, 6), 160, 0, 0)]
    got = lay(*tiles)
    assert_same_table(got, table_of(["1-3", "3-4"], open_ends=[1, 4], count=5))
    assert got["mismatches"] == [["3-4", "5-6"]]
    assert got["loose"] == [] and got["misplaced"] == []


def test_two_doubles_side_by_side_are_a_mismatch() -> None:
    # 6-6 across the line, 6-2 on one long side; 2-2 laid across against the other long side:
    # no number has two doubles, so two doubles touching never match.
    got = lay(tile((6, 6), 0, 0, 90), tile((6, 2), 60, 0, 0), tile((2, 2), -40, 0, 90))
    assert got["mismatches"] == [["6-6", "2-2"]]
    assert "2-2" not in got["line"] and got["loose"] == []


def test_a_tile_against_the_middle_of_a_long_side_is_misplaced() -> None:
    got = lay(tile((1, 2), 0, 0, 0), tile((2, 3), 80, 0, 0), tile((5, 6), 0, 60, 90))
    assert_same_table(got, table_of(["1-2", "2-3"], open_ends=[1, 3], count=4))
    assert got["misplaced"] == [["1-2", "5-6", "middle"]]
    assert got["loose"] == [] and got["mismatches"] == []


def _crosswise_double_with_a_tile_at_its_short_end() -> list[TileReading]:
    # 1-2, the 2-2 across the line, 2-3; the 2-5 with its 2 against the double's short end.
    return [tile((1, 2), -60, 0, 0), tile((2, 2), 0, 0, 90), tile((2, 3), 60, 0, 0), tile((2, 5), 0, -80, -90)]


@pytest.mark.parametrize("order", [[0, 1, 2, 3], [3, 0, 1, 2], [1, 3, 2, 0], [2, 1, 0, 3]])
def test_a_tile_at_the_short_end_of_a_double_is_misplaced_without_a_spinner(order: list[int]) -> None:
    """In any order vision lists the tiles (a tile at the closed end once started the line)."""
    tiles = _crosswise_double_with_a_tile_at_its_short_end()
    got = lay(*[tiles[i] for i in order], spinner=False)
    assert_same_table(got, table_of(["1-2", "2-2", "2-3"], open_ends=[1, 3], count=4))
    assert got["misplaced"] == [["2-2", "2-5", "closed_side"]]
    assert got["loose"] == [] and got["mismatches"] == []


def test_the_same_tile_is_a_branch_of_the_spinner_in_fives() -> None:
    got = lay(*_crosswise_double_with_a_tile_at_its_short_end(), spinner=True)
    assert_same_table(got, table_of(["1-2", "2-2", "2-3"], spinner=1, branches=(["2-5"], []),
                                    open_ends=[1, 3, 5], count=9))
    assert got["misplaced"] == got["loose"] == got["mismatches"] == []


def test_a_tile_at_the_spinners_short_end_before_both_long_sides_are_taken_is_misplaced() -> None:
    tiles = [tile((2, 2), 0, 0, 90), tile((2, 3), 60, 0, 0), tile((3, 4), 140, 0, 0), tile((2, 5), 0, -80, -90)]
    got = lay(*tiles, spinner=True)
    assert_same_table(got, table_of(["2-2", "2-3", "3-4"], spinner=0, open_ends=[2, 4], count=8))
    assert got["misplaced"] == [["2-2", "2-5", "closed_side"]]
    assert got["loose"] == [] and got["branches"] == {"up": [], "down": []}


def test_tiles_lying_apart_are_loose() -> None:
    got = lay(tile((1, 2), 0, 0, 0), tile((2, 3), 80, 0, 0), tile((6, 6), 400, 300, 30), tile((0, 4), -300, 200, 75))
    assert_same_table(got, table_of(["1-2", "2-3"], open_ends=[1, 3], count=4))
    assert sorted(got["loose"]) == ["0-4", "6-6"]
    assert got["misplaced"] == got["mismatches"] == []


@pytest.mark.parametrize("turn", [90, -90])
def test_a_line_turns_a_corner(turn: int) -> None:
    # As the renderer lays a corner: the tile after the turn lies across the line, its touching
    # half just past the end; the line goes on from its far end.
    sign = 1 if turn > 0 else -1
    tiles = [tile((1, 2), 0, 0, 0), tile((2, 3), 60, 20 * sign, turn), tile((3, 4), 60, 100 * sign, turn),
             tile((4, 0), 60, 180 * sign, turn)]
    got = lay(*tiles)
    assert_same_table(got, table_of(["1-2", "2-3", "3-4", "4-0"], open_ends=[1, 0], count=1))
    assert got["misplaced"] == got["loose"] == got["mismatches"] == []


@pytest.mark.parametrize(("gap", "joined"), [(0.0, True), (0.2, True), (0.6, False), (1.0, False)])
def test_a_small_gap_still_joins_and_a_wide_one_does_not(gap: float, joined: bool) -> None:
    g = gap * W
    got = lay(tile((1, 2), 0, 0, 0), tile((2, 3), 80, 0, 0), tile((3, 4), 160 + g, 0, 0))
    if joined:
        assert_same_table(got, table_of(["1-2", "2-3", "3-4"], open_ends=[1, 4], count=5))
        assert got["loose"] == []
    else:
        assert_same_table(got, table_of(["1-2", "2-3"], open_ends=[1, 3], count=4))
        assert got["loose"] == ["3-4"]


def shrunk(reading: TileReading, k: float) -> TileReading:
    """``reading`` with its box ``k`` times as long and wide about its centre."""
    cx, cy = reading.center
    c = [(cx + k * (x - cx), cy + k * (y - cy)) for x, y in reading.corners]
    return TileReading(reading.pips, reading.halves, (c[0], c[1], c[2], c[3]), reading.center,
                       reading.confidence, reading.uncertain)


def test_tiles_laid_a_little_apart_and_boxed_a_tenth_small_still_join() -> None:
    """Vision draws the face of a tile with rounded edges a little inside its outline: a gap of a
    fifth of a width between the tiles looks like 0.4 of a width between the boxes."""
    g = 0.2 * W
    tiles = [shrunk(tile((1, 2), 0, 0, 0), 0.9), shrunk(tile((2, 3), 80 + g, 0, 0), 0.9),
             shrunk(tile((3, 3), 140 + 2 * g, 0, 90), 0.9), shrunk(tile((3, 5), 200 + 3 * g, 0, 0), 0.9)]
    got = lay(*tiles)
    assert_same_table(got, table_of(["1-2", "2-3", "3-3", "3-5"], spinner=2, open_ends=[1, 5], count=6))
    assert got["loose"] == got["misplaced"] == got["mismatches"] == []


@pytest.mark.parametrize("facing", [0.2, 0.05])
def test_a_tile_beside_another_its_ends_flush_does_not_touch_its_end(facing: float) -> None:
    """Two tiles side by side, their boxes overlapping by a tenth of a width: each end lies 0.4 of
    a width beside the other tile, not in front of it: the second tile is loose. Only a tolerance
    that lets a tile touch an end it barely faces (``facing`` 0.05) takes it for touching (and
    mismatched: its 1-2 lies against the 2-3's 3 end)."""
    tiles = (tile((1, 2), 0, 0, 0), tile((2, 3), 0, 0.9 * W, 0))
    got = build(Detection(1000, 1000, False, tiles), LayoutConfig(facing=facing)).to_json()
    if facing == 0.2:
        assert got["line"] in (["1-2"], ["2-3"]) and len(got["loose"]) == 1 and got["mismatches"] == []
    else:
        assert got["loose"] == [] and len(got["mismatches"]) == 1


def test_the_gap_limit_is_the_configured_reach() -> None:
    tiles = (tile((1, 2), 0, 0, 0), tile((2, 3), 80 + 0.4 * W, 0, 0))
    assert len(build(Detection(1000, 1000, False, tiles), LayoutConfig(reach=0.3)).line) == 1
    assert len(build(Detection(1000, 1000, False, tiles), LayoutConfig(reach=0.5)).line) == 2


@pytest.mark.parametrize("skew", [5.0, -5.0])
def test_skewed_tiles_still_join(skew: float) -> None:
    # Each tile turned ``skew`` degrees from the one before, end against end.
    tiles, x, y, angle = [], 0.0, 0.0, 0.0
    for pips in [(1, 2), (2, 3), (3, 4), (4, 5)]:
        ux, uy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        tiles.append(tile(pips, x + ux * L / 2, y + uy * L / 2, angle))
        x, y, angle = x + ux * L, y + uy * L, angle + skew
    got = lay(*tiles)
    assert_same_table(got, table_of(["1-2", "2-3", "3-4", "4-5"], open_ends=[1, 5], count=6))
    assert got["loose"] == [] and got["misplaced"] == []


def test_skewed_tiles_across_a_double_still_join() -> None:
    tiles = [tile((1, 2), -60, 0, 5), tile((2, 2), 0, 0, 95), tile((2, 3), 60, 0, -5)]
    got = lay(*tiles, spinner=False)
    assert_same_table(got, table_of(["1-2", "2-2", "2-3"], open_ends=[1, 3], count=4))


def test_an_uncertain_tile_in_the_line_is_listed() -> None:
    got = lay(tile((1, 2), 0, 0, 0), tile((2, 3), 80, 0, 0, uncertain=True), tile((3, 4), 160, 0, 0))
    assert_same_table(got, table_of(["1-2", "2-3", "3-4"], open_ends=[1, 4], count=5))
    assert got["uncertain"] == ["2-3"]


def test_an_uncertain_tile_is_not_called_a_mismatch() -> None:
    """A tile vision could not read reliably joins where it lies; it is listed as uncertain."""
    got = lay(tile((1, 2), 0, 0, 0), tile((5, 3), 80, 0, 0, uncertain=True), tile((3, 4), 160, 0, 0))
    assert len(got["line"]) == 3
    assert got["mismatches"] == [] and got["uncertain"] == ["5-3"]


def test_an_uncertain_tile_apart_from_the_line_is_loose_not_uncertain() -> None:
    got = lay(tile((1, 2), 0, 0, 0), tile((2, 3), 80, 0, 0), tile((6, 6), 400, 300, 30, uncertain=True))
    assert got["loose"] == ["6-6"] and got["uncertain"] == []


def test_more_pips_than_the_set_has_do_not_crash() -> None:
    """Vision reads up to nine pips by default; a double-six layout still counts what it read."""
    got = lay(tile((7, 8), 0, 0, 0), tile((8, 1), 80, 0, 0))
    assert_same_table(got, table_of(["7-8", "8-1"], open_ends=[7, 1], count=8))


# -- LayoutConfig ------------------------------------------------------------------------------
@pytest.mark.parametrize(("field", "value"), [
    ("reach", 0), ("reach", 1.0), ("reach", -0.2), ("reach", "0.3"), ("reach", float("nan")), ("reach", None),
    ("middle", 0), ("middle", 2), ("middle", "x"), ("facing", 0), ("facing", 1.5), ("facing", "0.2"),
    ("max_pips", 0), ("max_pips", 19), ("max_pips", "6"), ("max_pips", 6.0), ("max_pips", True),
    ("spinner", "no"), ("spinner", 1), ("spinner", None),
])
def test_layout_config_rejects_bad_values_naming_the_field(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=rf"\b{field}\b") as caught:
        LayoutConfig(**{field: value})
    assert repr(value) in str(caught.value)


def test_layout_config_accepts_good_values() -> None:
    config = LayoutConfig(reach=0.5, middle=0.1, spinner=False, max_pips=9)
    assert (config.reach, config.middle, config.spinner, config.max_pips) == (0.5, 0.1, False, 9)


# -- the command -------------------------------------------------------------------------------
def test_cli_truth_json_prints_the_truths_layout() -> None:
    path = SAMPLES / "stills" / "line-201-0000.json"
    result = referee("layout", path, "--truth", "--json")
    ok(result)
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    got = json.loads(lines[0])
    assert list(got) == KEYS
    assert_same_table(got, json.loads(path.read_text(encoding="utf-8"))["layout"])


def test_cli_truth_text_is_a_readable_summary() -> None:
    result = referee("layout", SAMPLES / "stills" / "line-201-0000.json", "--truth")
    ok(result)
    text = result.stdout
    assert "[6-6]" in text and "spinner 6-6" in text
    assert "up 6-5 5-2 2-0" in text or "up 6-3 3-2 2-4" in text
    assert "count 8" in text and "open ends:" in text


def test_cli_truth_text_reports_a_mismatch() -> None:
    result = referee("layout", SAMPLES / "sequences" / "sequence-11-000" / "frame-0027.json", "--truth")
    ok(result)
    assert "mismatch: 5-6 touches 5-2" in result.stdout


def test_cli_variant_draw_has_no_spinner() -> None:
    result = referee("layout", SAMPLES / "stills" / "line-201-0000.json", "--truth", "--json", "--variant", "draw")
    ok(result)
    got = json.loads(result.stdout)
    assert got["spinner"] is None and got["branches"] == {"up": [], "down": []}
    assert sorted(m[2] for m in got["misplaced"]) == ["closed_side", "closed_side"]


def test_cli_on_a_real_image_prints_the_documented_json() -> None:
    result = referee("layout", SAMPLES / "stills" / "line-201-0000.jpg", "--json")
    ok(result)
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    got = json.loads(lines[0])
    assert list(got) == KEYS
    assert all(isinstance(got[k], list) for k in KEYS if k not in ("spinner", "branches", "count"))
    assert set(got["branches"]) == {"up", "down"} and isinstance(got["count"], int)
    assert got["line"], "the sample line is plainly visible"


def test_cli_occluded_frame_says_so() -> None:
    path = SAMPLES / "stills" / "line-203-0000.json"  # a still with an arm over the table
    result = referee("layout", path, "--truth", "--json")
    ok(result)
    assert json.loads(result.stdout) == {"occluded": True}
    result = referee("layout", path, "--truth")
    ok(result)
    assert "occluded" in result.stdout and str(path) in result.stdout


@pytest.mark.parametrize("truth", [False, True], ids=["image", "truth"])
def test_cli_missing_file_is_one_line_naming_it(tmp_path: Path, truth: bool) -> None:
    missing = tmp_path / ("nope.json" if truth else "nope.jpg")
    line = one_error_line(referee("layout", missing, *(["--truth"] if truth else [])))
    assert line.startswith("referee layout: ") and str(missing) in line


@pytest.mark.parametrize("content", [b"not an image at all", b""], ids=["garbage", "empty"])
def test_cli_corrupt_image_is_one_line_naming_it(tmp_path: Path, content: bytes) -> None:
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(content)
    line = one_error_line(referee("layout", bad))
    assert str(bad) in line


def test_cli_image_with_a_jpeg_header_and_nothing_after_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    line = one_error_line(referee("layout", bad))
    assert str(bad) in line


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"width": 10}',
                                  '{"width": 10, "height": 10, "tiles": [{"pips": [1]}]}'])
def test_cli_bad_truth_file_is_one_line_naming_it(tmp_path: Path, text: str) -> None:
    bad = tmp_path / "truth.json"
    bad.write_text(text, encoding="utf-8")
    line = one_error_line(referee("layout", bad, "--truth"))
    assert str(bad) in line


def test_cli_bad_variant_exits_2() -> None:
    result = referee("layout", SAMPLES / "stills" / "line-201-0000.json", "--truth", "--variant", "chess")
    assert result.returncode == 2 and "--variant" in result.stderr
