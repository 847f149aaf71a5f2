"""A whole hand as a camera sees it: a stable frame after each action, an arm over the table
between them, optionally an illegal tile put down and taken back, and the end-of-hand reveal."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np

from referee.render.camera import Camera
from referee.render.compose import render
from referee.render.generate import (
    Options,
    Setting,
    aim,
    arm_over,
    boneyard,
    draw_setting,
    line_bounds,
    random_seed,
    reveal_tiles,
    rules_for,
    with_glare,
)
from referee.render.layout import LineBuilder
from referee.render.scene import ArmPose, Scene, TilePose
from referee.render.truth import camera_params, frame_truth
from referee.rules import Hand, IllegalAction, Play
from referee.rules.bots import greedy_bot, random_bot
from referee.rules.check import check_record
from referee.rules.record import action_to_json, hand_to_json, parse_record, record_to_json
from referee.rules.table import EMPTY_LINE, END_INDEX, ENDS


@dataclasses.dataclass(frozen=True)
class Frame:
    """One frame to render: the tiles on the table, an arm (or none), the rules layout."""

    poses: tuple[TilePose, ...]
    arm: ArmPose | None
    layout: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Plan:
    """Every frame of a hand, the camera that sees every tile the hand puts down, the events a
    referee should report frame by frame, and the hand's game record."""

    setting: Setting
    camera: Camera
    frames: tuple[Frame, ...]
    events: tuple[dict[str, Any], ...]
    record: dict[str, Any]


@dataclasses.dataclass
class _Step:
    """One action of the hand as the table shows it."""

    kind: str  # play | illegal | draw | pass
    seat: int
    tile: str = ""
    end: str | None = None
    points: int = 0
    reason: str = ""
    pose: TilePose | None = None
    after: dict[str, Any] = dataclasses.field(default_factory=dict)


def plan_hand(rng: np.random.Generator, options: Options, illegal: bool = False,
              stable_frames: int = 2, attempts: int = 20, hold: int | None = None) -> Plan:
    """Play a hand with the bots and plan its frames and events. With ``illegal`` one player
    puts a tile on an end it does not match and takes it back (hands too short for that are
    dealt again). ``hold`` frames of every state, when given, replace ``stable_frames`` (and
    the single frame after a draw or a take-back)."""
    for _ in range(attempts):
        plan = _plan_once(rng, options, illegal, stable_frames if hold is None else hold, hold is not None)
        if plan is not None:
            return plan
    raise ValueError(f"no hand of {options.variant} in {attempts} deals had room for an illegal placement")


def _plan_once(rng: np.random.Generator, options: Options, illegal: bool, stable_frames: int,
               hold_all: bool = False) -> Plan | None:
    setting = draw_setting(rng, options)
    rules = rules_for(options)
    bots_rng = random_seed(rng)
    hand = Hand.deal_random(rules, bots_rng)
    deal, pile = hand.initial_deal()
    assert deal is not None and pile is not None
    bots = [greedy_bot if rng.random() < 0.5 else random_bot for _ in range(rules.players)]
    t = setting.table
    builder = LineBuilder(setting.size, line_bounds(setting), rng, setting.look_for(t.seed))
    centre = (float(rng.normal(0, 40)), float(rng.normal(0, 30)))
    direction = float(rng.uniform(0, 360))
    # Pass 1: play the hand and lay every tile, so that the boneyard and the reveal can be put
    # where no tile of the line will ever go.
    steps: list[_Step] = []
    actions: list[dict[str, Any]] = []
    wanted = int(rng.integers(3, 9)) if illegal else -1
    plays = 0
    while not hand.is_over():
        seat = hand.turn
        assert seat is not None
        legal = hand.legal_plays()
        if legal:
            if 0 <= wanted <= plays and hand.table.size:
                wrong = _illegal_step(hand, builder, seat, rng)
                if wrong is not None:
                    steps.append(wrong)
                    actions.append({"player": seat, "play": wrong.tile, "end": wrong.end})
                    wanted = -1
            play = bots[seat](hand, legal, bots_rng)
            opening = hand.table.size == 0
            points = hand.play(play)
            done = hand.move(-1)
            end = done.end
            pose = builder.place(hand.table, -1 if end is None else END_INDEX[end], centre, direction)
            steps.append(_Step("play", seat, str(play.tile), None if end is None else end.value, points,
                               pose=pose, after=hand.line().to_dict()))
            actions.append(action_to_json(done, opening, hand.table.opener_left))
            plays += 1
        elif hand.drawable():
            tile = hand.draw()
            assert tile is not None
            steps.append(_Step("draw", seat, str(tile)))
            actions.append({"player": seat, "draw": str(tile)})
        else:
            hand.pass_turn()
            steps.append(_Step("pass", seat))
            actions.append({"player": seat, "pass": True})
    if wanted >= 0 or builder.crowded:
        return None  # no illegal placement happened, or the line found no room: deal again
    line = [st.pose for st in steps if st.kind == "play" and st.pose is not None]
    wrong_poses = [st.pose for st in steps if st.kind == "illegal" and st.pose is not None]
    pile_poses = boneyard(setting, [(tl.high, tl.low) for tl in pile], line + wrong_poses, rng)
    hands = [[(tl.high, tl.low) for tl in hand.held(s)] for s in range(rules.players)]
    reveal = reveal_tiles(setting, hands, rules.players, rng, line + wrong_poses + pile_poses)
    camera = None if reveal is None else aim(setting, line + wrong_poses + pile_poses + reveal, rng)
    if reveal is None or camera is None:
        return None
    outcome = hand.outcome()
    assert outcome is not None
    # Pass 2: the frames, with an arm over the table before each change.
    frames, events, last_stable = _frames(setting, steps, pile_poses, reveal, rules.players, rng, stable_frames,
                                          stable_frames if hold_all else 1)
    if outcome.result() == "blocked":
        events.append({"frame": last_stable, "event": "blocked"})
    reveal_frame = len(frames) - stable_frames
    events.append({"frame": reveal_frame, "event": "hand_end", "winner": outcome.winner, "points": outcome.points})
    hand_json = hand_to_json(hand, deal, pile)
    hand_json["actions"] = actions
    record = record_to_json(rules, [hand_json])
    # The match ends with this hand if someone reached the target: as referee check scores it.
    report = check_record(parse_record(record))
    if report.match_winners:
        events.append({"frame": reveal_frame, "event": "match_end", "winners": list(report.match_winners),
                       "scores": list(report.scores)})
    return Plan(setting, camera, tuple(frames), tuple(events), record)


def _frames(setting: Setting, steps: list[_Step], pile: list[TilePose], reveal: list[TilePose], players: int,
            rng: np.random.Generator, stable_frames: int,
            brief: int = 1) -> tuple[list[Frame], list[dict[str, Any]], int]:
    """Every frame of the hand (stable frames after each change, ``brief`` after a draw or a
    take-back, an arm frame before each), the events, and the last stable frame before the
    reveal."""
    frames: list[Frame] = []
    events: list[dict[str, Any]] = []
    line: list[TilePose] = []
    pile = list(pile)
    layout: dict[str, Any] = EMPTY_LINE.to_dict()

    def shot(extra: tuple[TilePose, ...] = (), arm_at: tuple[float, float] | None = None, count: int = 1) -> int:
        arm = None if arm_at is None else arm_over(setting, arm_at, rng)
        first = len(frames)
        for _ in range(count):
            frames.append(Frame(tuple(line) + tuple(pile) + extra, arm, layout))
        return first

    shot(count=stable_frames)
    for step in steps:
        if step.kind == "play":
            assert step.pose is not None
            shot(arm_at=(step.pose.x, step.pose.y))
            line.append(step.pose)
            layout = step.after
            frame = shot(count=stable_frames)
            events.append({"frame": frame, "event": "play", "tile": step.tile, "end": step.end, "player": step.seat,
                           "points": step.points})
        elif step.kind == "illegal":
            assert step.pose is not None
            shot(arm_at=(step.pose.x, step.pose.y))
            frame = shot((step.pose,), count=stable_frames)
            shot(arm_at=(step.pose.x, step.pose.y))
            shot(count=brief)
            events.append({"frame": frame, "event": "illegal", "tile": step.tile, "reason": step.reason,
                           "player": step.seat})
        elif step.kind == "draw":
            taken = _nearest_face_down(pile, step.seat, players)
            shot(arm_at=(taken.x, taken.y))
            pile.remove(taken)
            frame = shot(count=brief)
            events.append({"frame": frame, "event": "draw", "player": step.seat})
        else:
            events.append({"frame": len(frames) - 1, "event": "pass", "player": step.seat})
    last_stable = len(frames) - 1
    if reveal:  # players lay their tiles down: an arm reaches in over the table
        shot(arm_at=(reveal[0].x * 0.6, reveal[0].y * 0.6))
    shot(tuple(reveal), count=stable_frames)
    return frames, events, last_stable


def _illegal_step(hand: Hand, builder: LineBuilder, seat: int, rng: np.random.Generator) -> _Step | None:
    """The player lays a tile of theirs on an end it does not match (the rules say why it is
    illegal); None when no tile of theirs mismatches an open end."""
    for i, value in enumerate(hand.table.values):
        if value < 0 or i not in builder.cursors:
            continue
        wrong = [t for t in hand.held(seat) if value not in t]
        if not wrong:
            continue
        tile = wrong[int(rng.integers(len(wrong)))]
        try:
            hand.play(Play(tile, ENDS[i]), seat=seat)
        except IllegalAction as error:  # always: the tile does not show the end's number
            pose = builder.add(i, tile, tile.high, commit=False)
            return _Step("illegal", seat, str(tile), ENDS[i].value, reason=error.reason.value, pose=pose)
        raise AssertionError(f"{tile} was accepted at an end showing {value}")
    return None


def _nearest_face_down(pile: list[TilePose], seat: int, players: int) -> TilePose:
    """The boneyard tile a player reaches for: the one nearest their edge of the table."""
    edge_dir = {0: (0.0, -1.0), 1: (-1.0, 0.0), 2: (0.0, 1.0), 3: (1.0, 0.0)}
    d = edge_dir[(0 if seat == 0 else 2) if players == 2 else seat % 4]
    return max(pile, key=lambda t: t.x * d[0] + t.y * d[1])


def render_plan(plan: Plan, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
    """Render every frame of a plan with the same camera (aimed to show every tile the hand
    will ever put on the table) and yield each image with its truth."""
    setting = plan.setting
    everything: dict[int, TilePose] = {}
    for frame in plan.frames:
        for pose in frame.poses:
            everything[id(pose)] = pose
    camera = plan.camera
    base = Scene(setting.table, setting.size, (), setting.lighting)
    glare = with_glare(setting, dataclasses.replace(base, tiles=tuple(everything.values())), rng)
    poses = list(everything.values())
    glare_ids = {id(poses[i]) for i in glare.lighting.glare_tiles}
    params = {**setting.params, "camera": camera_params(camera)}
    for frame in plan.frames:
        tiles = frame.poses
        lit = tuple(i for i, pose in enumerate(tiles) if id(pose) in glare_ids)
        scene = dataclasses.replace(base, tiles=tiles, arm=frame.arm,
                                    lighting=dataclasses.replace(setting.lighting, glare_tiles=lit))
        image = render(scene, camera, setting.finish, rng)
        truth = frame_truth(tiles, setting.size, camera, frame.arm is not None, frame.layout,
                            {**params, "arm": None if frame.arm is None else dataclasses.asdict(frame.arm)}, lit)
        yield image, truth
