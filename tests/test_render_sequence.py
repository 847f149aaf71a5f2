"""Rendered sequences: a whole hand planned by the bots, its record judged by the rules engine,
its events frame by frame, and the truth of every frame agreeing with both."""

from __future__ import annotations

import collections
import copy
import functools
import math
from typing import Any

import cv2
import numpy as np
import pytest

from referee.render.generate import Options
from referee.render.scene import rect_overlap
from referee.render.sequence import Plan, plan_hand, render_plan
from referee.rules.check import HandReport, check_record
from referee.rules.record import parse_record

SMALL = (640, 360)
VARIANTS = ("draw", "fives", "block", "partners")
# Two hands are rendered: All Fives with an illegal placement (it also draws, and its spinner
# takes arms), and a block-game hand that ends blocked after passes.
RENDERED = (("fives", 0, True), ("block", 3, False))
TOLERANCE = 0.01  # px: the camera stays put, so a tile that stays put keeps its pixels


@functools.cache
def plan(variant: str, seed: int, illegal: bool) -> Plan:
    return plan_hand(np.random.default_rng(seed), Options(size=SMALL, variant=variant), illegal=illegal)


@functools.cache
def frames(variant: str, seed: int, illegal: bool) -> list[tuple[np.ndarray, dict[str, Any]]]:
    # As write_sequences does: the same generator plans the hand, then renders it.
    rng = np.random.default_rng(seed)
    planned = plan_hand(rng, Options(size=SMALL, variant=variant), illegal=illegal)
    return list(render_plan(planned, rng))


def report(p: Plan, actions: int | None = None) -> HandReport:
    """``check`` of the plan's record, or of its first ``actions`` actions (without the reveal)."""
    record = copy.deepcopy(p.record)
    hand = record["hands"][0]
    if actions is not None:
        hand["actions"] = hand["actions"][:actions]
        hand.pop("reveal", None)
    checked = check_record(parse_record(record))
    assert len(checked.hands) == 1
    return checked.hands[0]


def tile_key(text: str) -> tuple[int, int]:
    a, b = (int(v) for v in text.split("-"))
    return max(a, b), min(a, b)


def action_events(p: Plan) -> list[dict[str, Any]]:
    """The events that stand for a recorded action, in order (not blocked or hand_end)."""
    return [e for e in p.events if e["event"] in ("play", "illegal", "draw", "pass")]


def all_plans() -> list[tuple[str, int, bool]]:
    return [(variant, seed, illegal) for variant in VARIANTS for seed in range(4) for illegal in (False, True)]


# -- the plan: record, events and layouts ------------------------------------------------------
@pytest.mark.parametrize(("variant", "seed", "illegal"), all_plans())
def test_record_passes_check_and_events_match_it(variant: str, seed: int, illegal: bool) -> None:
    p = plan(variant, seed, illegal)
    hand = report(p)
    actions = p.record["hands"][0]["actions"]
    assert p.record["variant"] == variant
    assert len(hand.verdicts) == len(actions)
    assert not hand.problems  # the reveal agrees with the deal and the actions
    wrong = [(i, v.reason) for i, v in enumerate(hand.verdicts) if not v.legal]
    illegal_events = [e for e in p.events if e["event"] == "illegal"]
    if illegal:
        assert len(illegal_events) == 1, p.events
        assert len(wrong) == 1 and wrong[0][1] is not None and wrong[0][1].value == "mismatch"
        assert illegal_events[0]["reason"] == "mismatch"
    else:
        assert illegal_events == [] and wrong == []

    # Events are in frame order, every frame exists, and the hand ends with hand_end.
    numbers = [e["frame"] for e in p.events]
    assert numbers == sorted(numbers)
    assert all(0 <= n < len(p.frames) for n in numbers)
    assert p.events[-1]["event"] == "hand_end"
    assert p.events[-1]["winner"] == hand.winner
    assert p.events[-1]["points"] == hand.points
    assert hand.result in ("domino", "blocked")
    blocked = [e for e in p.events if e["event"] == "blocked"]
    assert len(blocked) == (hand.result == "blocked")
    if blocked:
        assert p.events[-2] == blocked[0]

    # One event per recorded action, in the same order, saying the same thing.
    events = action_events(p)
    assert len(events) == len(actions)
    for i, (event, action, verdict) in enumerate(zip(events, actions, hand.verdicts, strict=True)):
        assert event["player"] == action["player"], (i, event, action)
        if event["event"] == "play":
            assert verdict.legal
            assert tile_key(event["tile"]) == tile_key(action["play"])
            assert event["end"] == action.get("end")
            assert event["points"] == verdict.points
            if i == 0:
                assert event["end"] is None  # the opening lies at no end
        elif event["event"] == "illegal":
            assert not verdict.legal and verdict.reason is not None
            assert event["reason"] == verdict.reason.value
            assert tile_key(event["tile"]) == tile_key(action["play"])
        elif event["event"] == "draw":
            assert verdict.legal and "draw" in action
        else:
            assert verdict.legal and action.get("pass") is True
    if variant == "fives":
        assert sum(e["points"] for e in events if e["event"] == "play") == sum(hand.fives)


@pytest.mark.parametrize(("variant", "seed", "illegal"), all_plans())
def test_each_stable_frame_shows_the_rules_table_after_the_actions_before_it(variant: str, seed: int,
                                                                             illegal: bool) -> None:
    p = plan(variant, seed, illegal)
    events = action_events(p)
    # The layout of a frame without an arm is the rules' line after every action whose event
    # came at or before it.
    done = 0
    for number, frame in enumerate(p.frames):
        while done < len(events) and events[done]["frame"] <= number:
            done += 1
        if frame.arm is None:
            assert frame.layout == report(p, done).line.to_dict(), (number, done)
    final = report(p)
    assert p.frames[-1].layout == final.line.to_dict()
    assert p.frames[-1].layout["line"] == final.line.to_dict()["line"]


def laid_tiles(layout: dict[str, Any]) -> list[tuple[int, int]]:
    return sorted(tile_key(t) for t in layout["line"] + layout["branches"]["up"] + layout["branches"]["down"])


def test_the_layout_of_every_frame_lists_the_tiles_it_shows() -> None:
    """Arm frames included: a frame's ``layout`` and its ``tiles`` describe the same table (the
    illegal tile while it lies there, and the reveal, are the face-up tiles outside the line)."""
    wrong = []
    for variant, seed, illegal in all_plans():
        wrong += _layout_disagreements(variant, seed, illegal)
    assert wrong == [], "\n".join(wrong[:12])


def _layout_disagreements(variant: str, seed: int, illegal: bool) -> list[str]:
    p = plan(variant, seed, illegal)
    end = p.events[-1]["frame"]
    illegal_tiles = {tile_key(e["tile"]) for e in p.events if e["event"] == "illegal"}
    wrong = []
    for number, frame in enumerate(p.frames[:end]):
        shown = sorted((max(q.pips), min(q.pips)) for q in frame.poses if q.face_up)
        laid = laid_tiles(frame.layout)
        extra = list(shown)
        for tile in laid:
            if tile in extra:
                extra.remove(tile)
        if len(shown) - len(extra) != len(laid) or not set(extra) <= illegal_tiles or len(extra) > 1:
            wrong.append(f"{variant} seed {seed} illegal {illegal} frame {number} "
                         f"(arm: {frame.arm is not None}): layout {laid}, tiles {shown}")
    return wrong


def test_no_tile_is_laid_on_another() -> None:
    """On a real table a tile lies on the table, never on another tile: the line of play keeps
    clear of the boneyard and of itself, and the reveal of both (1 mm of slack for tiles laid
    touching with a little angle jitter)."""
    wrong = []
    for variant, seed, illegal in all_plans():
        p = plan(variant, seed, illegal)
        size = p.setting.size
        found = set()
        for frame in p.frames:
            poses = frame.poses
            for i, a in enumerate(poses):
                for b in poses[i + 1:]:
                    if rect_overlap(a.corners(size), b.corners(size), slack=1.0):
                        found.add(f"{a.pips} ({'up' if a.face_up else 'down'}) at ({a.x:.0f}, {a.y:.0f}) and "
                                  f"{b.pips} ({'up' if b.face_up else 'down'}) at ({b.x:.0f}, {b.y:.0f})")
        wrong += [f"{variant} seed {seed} illegal {illegal}: {pair}" for pair in sorted(found)]
    assert wrong == [], f"{len(wrong)} overlapping pairs, e.g.\n" + "\n".join(wrong[:12])


def test_plans_are_repeatable_and_seeds_differ() -> None:
    a = plan_hand(np.random.default_rng(5), Options(size=SMALL), illegal=True)
    b = plan_hand(np.random.default_rng(5), Options(size=SMALL), illegal=True)
    c = plan_hand(np.random.default_rng(6), Options(size=SMALL), illegal=True)
    assert a.record == b.record and a.events == b.events and a.frames == b.frames
    assert a.record != c.record


# -- rendered frames ---------------------------------------------------------------------------
def quads(truth: dict[str, Any], key: str) -> list[np.ndarray]:
    return [np.asarray(t["corners"], np.float64) for t in truth[key]]


def same_tiles(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    """The same tiles (pips and corners) in the same order."""
    if len(a) != len(b):
        return False
    for s, t in zip(a, b, strict=True):
        if s.get("pips") != t.get("pips"):
            return False
        if np.abs(np.asarray(s["corners"]) - np.asarray(t["corners"])).max() > TOLERANCE:
            return False
        if np.abs(np.asarray(s["center"]) - np.asarray(t["center"])).max() > TOLERANCE:
            return False
    return True


def new_tiles(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tiles of ``after`` not found (same pips, same place) in ``before``; every tile of
    ``before`` must still be there."""
    left = list(after)
    for tile in before:
        match = [t for t in left if same_tiles([tile], [t])]
        assert match, f"tile {tile.get('pips')} at {tile['center']} went missing"
        left.remove(match[0])
    return left


def overlaps(quad: np.ndarray, others: list[np.ndarray]) -> bool:
    """Whether ``quad`` covers more than a sliver (2%) of any of ``others``."""
    for other in others:
        area, _ = cv2.intersectConvexConvex(quad.astype(np.float32), other.astype(np.float32))
        if area > 0.02 * min(cv2.contourArea(quad.astype(np.float32)), cv2.contourArea(other.astype(np.float32))):
            return True
    return False


def find_tile(truth: dict[str, Any], text: str) -> dict[str, Any]:
    """The face-up tile of ``truth`` with these pips (every tile of a set is unique)."""
    found = [t for t in truth["tiles"] if tile_key("-".join(map(str, t["pips"]))) == tile_key(text)]
    assert len(found) == 1, (text, found)
    return found[0]


def touching_point(tile: dict[str, Any], value: int) -> tuple[float, float]:
    """Where a tile meets its neighbour with ``value``: that half's centre, or the centre of a
    double (which lies crosswise)."""
    a, b = tile["pips"]
    if a == b:
        return tuple(tile["center"])
    return tuple(tile["halves"][tile["pips"].index(value)])


def open_ends(truth: dict[str, Any]) -> dict[str, tuple[tuple[float, float], int]]:
    """Each open end of the layout: the pixel point a tile played there touches, and its value."""
    layout = truth["layout"]
    line = layout["line"]
    if not line:
        return {}
    first, last = line[0].split("-"), line[-1].split("-")
    ends = {"left": (int(first[0]), line[0]), "right": (int(last[1]), line[-1])}
    if layout["spinner"] is not None:
        spinner = line[layout["spinner"]]
        for arm, tiles in layout["branches"].items():
            ends[arm] = (int(tiles[-1].split("-")[1]), tiles[-1]) if tiles else (int(spinner.split("-")[0]), spinner)
    return {end: (touching_point(find_tile(truth, text), value), value) for end, (value, text) in ends.items()}


def previous_stable(p: Plan, number: int) -> int:
    """The last frame before ``number`` without an arm over the table."""
    k = number - 1
    while p.frames[k].arm is not None:
        k -= 1
    return k


@pytest.mark.parametrize(("variant", "seed", "illegal"), RENDERED)
def test_occluded_exactly_when_an_arm_is_over_the_table(variant: str, seed: int, illegal: bool) -> None:
    p = plan(variant, seed, illegal)
    shots = frames(variant, seed, illegal)
    assert len(shots) == len(p.frames)
    arms = [f.arm is not None for f in p.frames]
    assert any(arms) and not all(arms)
    for number, ((image, truth), frame) in enumerate(zip(shots, p.frames, strict=True)):
        assert image.shape == (SMALL[1], SMALL[0], 3)
        assert (truth["width"], truth["height"]) == SMALL
        assert truth["occluded"] is (frame.arm is not None), number
        assert (truth["scene"]["arm"] is not None) is truth["occluded"]
        if frame.arm is not None:
            # The arm is really there: a good part of the frame changed from the last stable one.
            before = shots[previous_stable(p, number)][0]
            changed = np.abs(image.astype(np.int16) - before.astype(np.int16)).max(axis=2) > 40
            assert changed.mean() > 0.01, number
    # Every event is reported on a frame without an arm.
    for event in p.events:
        assert not shots[event["frame"]][1]["occluded"], event


@pytest.mark.parametrize(("variant", "seed", "illegal"), RENDERED)
def test_every_frame_names_its_generation_parameters(variant: str, seed: int, illegal: bool) -> None:
    """As a still's truth does: the table, tiles, lighting, finish, camera, arm and which tiles
    catch the glare (a reader must be able to tell a washed-out tile from a misread one)."""
    for _, truth in frames(variant, seed, illegal):
        scene = truth["scene"]
        assert {"style", "table", "tile_mm", "lighting", "finish", "camera", "arm"} <= set(scene)
        assert "glare_tiles" in scene


@pytest.mark.parametrize(("variant", "seed", "illegal"), RENDERED)
def test_stable_frames_agree_and_change_only_by_the_events(variant: str, seed: int, illegal: bool) -> None:
    p = plan(variant, seed, illegal)
    truths = [t for _, t in frames(variant, seed, illegal)]
    end = p.events[-1]["frame"]
    assert p.events[-1]["event"] == "hand_end"
    # Consecutive frames without an arm show the same tiles (nothing moves by itself), but for
    # the reveal, where the players lay their remaining tiles face up.
    for k in range(len(truths) - 1):
        if p.frames[k].arm is None and p.frames[k + 1].arm is None and k + 1 != end:
            assert same_tiles(truths[k]["tiles"], truths[k + 1]["tiles"]), k
            assert same_tiles(truths[k]["face_down"], truths[k + 1]["face_down"]), k
            assert truths[k]["layout"] == truths[k + 1]["layout"], k
    # Before the reveal the face-up tiles are the line of play (and, while it lies there, the
    # illegal tile), and the face-down tiles the boneyard.
    boneyard = len(p.record["hands"][0]["boneyard"])
    draws = 0
    illegal_frames = set()
    for event in p.events:
        if event["event"] == "illegal":
            k = event["frame"]
            while p.frames[k].arm is None:
                illegal_frames.add(k)
                k += 1
    events_at = collections.defaultdict(list)
    for event in p.events:
        events_at[event["frame"]].append(event)
    for k, truth in enumerate(truths[:end]):
        draws += sum(1 for e in events_at[k] if e["event"] == "draw")
        if p.frames[k].arm is not None:
            continue
        laid = laid_tiles(truth["layout"])
        shown = sorted(tile_key(f"{a}-{b}") for a, b in (t["pips"] for t in truth["tiles"]))
        extra = 1 if k in illegal_frames else 0
        assert len(shown) == len(laid) + extra, k
        if not extra:
            assert shown == laid, k
        assert len(truth["face_down"]) == boneyard - draws, k


@pytest.mark.parametrize(("variant", "seed", "illegal"), RENDERED)
def test_each_event_shows_in_the_truth(variant: str, seed: int, illegal: bool) -> None:
    p = plan(variant, seed, illegal)
    truths = [t for _, t in frames(variant, seed, illegal)]
    seen = collections.Counter()
    for event in p.events:
        k = event["frame"]
        seen[event["event"]] += 1
        now = truths[k]
        if event["event"] in ("pass", "blocked", "hand_end"):
            continue
        before = truths[previous_stable(p, k)]
        if event["event"] in ("play", "illegal"):
            added = new_tiles(before["tiles"], now["tiles"])
            assert len(added) == 1, (event, added)
            tile = added[0]
            assert tile_key("-".join(map(str, tile["pips"]))) == tile_key(event["tile"])
            # Laid where nothing lay before, next to the tiles already on the table.
            quad = np.asarray(tile["corners"])
            assert not overlaps(quad, quads(before, "tiles") + quads(before, "face_down")), event
            if before["tiles"]:
                length = max(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[3]))
                nearest = min(math.dist(tile["center"], t["center"]) for t in before["tiles"])
                assert nearest < 1.3 * length, event
            if event["event"] == "play" and event["end"] is not None:
                ends = open_ends(before)
                touching = touching_point(tile, ends[event["end"]][1])
                gap = {end: math.dist(touching, where) for end, (where, _) in ends.items()}
                # At the end the event names, about half a tile from the tile it touches.
                assert 0.3 * length < gap[event["end"]] < 0.9 * length, (event, gap, length)
                assert gap[event["end"]] <= min(gap.values()) + 1e-6, (event, gap)
            assert same_tiles(before["face_down"], now["face_down"])
        if event["event"] == "illegal":
            # Taken back a few frames later: the next stable frame shows the table as before.
            k2 = k
            while p.frames[k2].arm is None:
                k2 += 1
            while p.frames[k2].arm is not None:
                k2 += 1
            assert same_tiles(before["tiles"], truths[k2]["tiles"])
            assert truths[k2]["layout"] == before["layout"]
            assert now["layout"] == before["layout"]  # an illegal tile is not in the line
        if event["event"] == "draw":
            assert same_tiles(before["tiles"], now["tiles"])
            assert len(now["face_down"]) == len(before["face_down"]) - 1
            assert len(new_tiles(now["face_down"], before["face_down"])) == 1
    assert seen["play"] >= 5 and seen["hand_end"] == 1
    assert seen["illegal"] == illegal


def test_the_rendered_hands_cover_every_kind_of_event() -> None:
    kinds = {e["event"] for variant, seed, illegal in RENDERED for e in plan(variant, seed, illegal).events}
    assert kinds == {"play", "draw", "pass", "illegal", "blocked", "hand_end"}
    spinner = [plan(*r).frames[-1].layout for r in RENDERED if r[0] == "fives"]
    assert spinner and spinner[0]["spinner"] is not None
    assert any(spinner[0]["branches"].values())


@pytest.mark.parametrize(("variant", "seed", "illegal"), RENDERED)
def test_the_reveal_shows_each_players_remaining_tiles(variant: str, seed: int, illegal: bool) -> None:
    p = plan(variant, seed, illegal)
    truths = [t for _, t in frames(variant, seed, illegal)]
    end = p.events[-1]["frame"]
    record_hand = p.record["hands"][0]
    remaining = sorted(tile_key(t) for tiles in record_hand["reveal"] for t in tiles)
    laid = laid_tiles(truths[end]["layout"])
    shown = sorted(tile_key(f"{a}-{b}") for a, b in (t["pips"] for t in truths[end]["tiles"]))
    assert shown == sorted(laid + remaining)
    assert len(new_tiles(truths[end - 1]["tiles"], truths[end]["tiles"])) == len(remaining)
    for k in range(end, len(truths)):
        assert not truths[k]["occluded"]
        assert same_tiles(truths[end]["tiles"], truths[k]["tiles"])
