"""A whole hand as a camera sees it: a stable frame after each action, an arm over the table
between them, optionally an illegal tile put down and taken back, and the end-of-hand reveal."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np

from referee.render.compose import render
from referee.render.generate import (
    Options,
    Setting,
    aim,
    arm_over,
    boneyard,
    draw_setting,
    random_seed,
    reveal_tiles,
    with_glare,
)
from referee.render.layout import LineBuilder
from referee.render.scene import ArmPose, Scene, TilePose
from referee.render.stills import rules_for
from referee.render.truth import camera_params, frame_truth
from referee.rules import Hand, Play
from referee.rules.bots import greedy_bot, random_bot
from referee.rules.record import hand_to_json, record_to_json
from referee.rules.table import END_INDEX, ENDS


@dataclasses.dataclass(frozen=True)
class Frame:
    """One frame to render: the tiles on the table, an arm (or none), the rules layout."""

    poses: tuple[TilePose, ...]
    arm: ArmPose | None
    layout: dict[str, Any]


@dataclasses.dataclass
class Plan:
    """Every frame of a hand and the events a referee should report, frame by frame."""

    setting: Setting
    frames: list[Frame]
    events: list[dict[str, Any]]
    record: dict[str, Any]


class _Planner:
    def __init__(self, setting: Setting, hand: Hand, rng: np.random.Generator) -> None:
        self.setting, self.hand, self.rng = setting, hand, rng
        t = setting.table
        bounds = (-t.width / 2 + 40, -t.depth / 2 + 40, t.width / 2 - 40, t.depth / 2 - 40)
        self.builder = LineBuilder(setting.size, bounds, rng, setting.look_for(t.seed))
        self.centre = (float(rng.normal(0, 40)), float(rng.normal(0, 30)))
        self.direction = float(rng.uniform(0, 360))
        self.line: list[TilePose] = []
        self.boneyard: list[TilePose] = []
        self.frames: list[Frame] = []
        self.events: list[dict[str, Any]] = []

    def layout(self) -> dict[str, Any]:
        return self.hand.line().to_dict()

    def shot(self, extra: tuple[TilePose, ...] = (), arm_at: tuple[float, float] | None = None) -> int:
        arm = None if arm_at is None else arm_over(self.setting, arm_at, self.rng)
        self.frames.append(Frame(tuple(self.line) + tuple(self.boneyard) + extra, arm, self.layout()))
        return len(self.frames) - 1

    def stable(self, count: int = 2, extra: tuple[TilePose, ...] = ()) -> int:
        first = self.shot(extra)
        for _ in range(count - 1):
            self.shot(extra)
        return first

    def where_next(self) -> tuple[float, float]:
        if not self.line:
            return self.centre
        last = self.line[-1]
        return last.x, last.y


def plan_hand(rng: np.random.Generator, options: Options, illegal: bool = False,
              stable_frames: int = 2) -> Plan:
    """Play a hand with the bots and plan its frames and events."""
    setting = draw_setting(rng, options)
    rules = rules_for(options)
    bots_rng = random_seed(rng)
    dealt = Hand.deal_random(rules, bots_rng)
    deal, pile = dealt.initial_deal()
    assert deal is not None and pile is not None
    hand = Hand(rules, deal, pile)
    bots = [greedy_bot if rng.random() < 0.5 else random_bot for _ in range(rules.players)]
    p = _Planner(setting, hand, rng)
    pile_pips = [(t.high, t.low) for t in pile]
    p.boneyard = boneyard(setting, pile_pips, [], rng)
    actions: list[dict[str, Any]] = []
    illegal_at = int(rng.integers(3, 9)) if illegal else -1
    p.stable(stable_frames)
    plays = 0
    while not hand.is_over():
        seat = hand.turn
        assert seat is not None
        legal = hand.legal_plays()
        if legal:
            if plays == illegal_at and _put_down_illegal(p, seat, actions, stable_frames):
                illegal_at = -1
            play = bots[seat](hand, legal, bots_rng)
            before = hand.table.size
            points = hand.play(play)
            arm_index = -1 if before == 0 else END_INDEX[hand.moves[-1].end]  # type: ignore[index]
            p.shot(arm_at=p.where_next())
            pose = p.builder.place(hand.table, arm_index, p.centre, p.direction)
            p.line.append(pose)
            frame = p.stable(stable_frames)
            end = hand.moves[-1].end
            p.events.append({"frame": frame, "event": "play", "tile": str(play.tile),
                             "end": None if end is None else end.value, "player": seat, "points": points})
            actions.append(_play_json(hand, seat, before == 0))
            plays += 1
        elif hand.drawable():
            tile = hand.draw()
            assert tile is not None
            taken = _nearest_face_down(p, seat)
            p.shot(arm_at=(taken.x, taken.y))
            p.boneyard.remove(taken)
            frame = p.stable(1)
            p.events.append({"frame": frame, "event": "draw", "player": seat})
            actions.append({"player": seat, "draw": str(tile)})
        else:
            hand.pass_turn()
            p.events.append({"frame": len(p.frames) - 1, "event": "pass", "player": seat})
            actions.append({"player": seat, "pass": True})
    outcome = hand.outcome()
    assert outcome is not None
    last = len(p.frames) - 1
    if outcome.result() == "blocked":
        p.events.append({"frame": last, "event": "blocked"})
    hands = [[(t.high, t.low) for t in hand.held(s)] for s in range(rules.players)]
    reveal = reveal_tiles(setting, hands, rules.players, rng, p.line + p.boneyard)
    frame = p.stable(stable_frames, tuple(reveal))
    p.events.append({"frame": frame, "event": "hand_end", "winner": outcome.winner, "points": outcome.points})
    hand_json = hand_to_json(hand, deal, pile)
    hand_json["actions"] = actions
    record = record_to_json(rules, [hand_json])
    return Plan(setting, p.frames, p.events, record)


def _play_json(hand: Hand, seat: int, opening: bool) -> dict[str, Any]:
    action = hand.moves[-1]
    assert action.tile is not None
    if opening:
        left = hand.table.opener_left
        return {"player": seat, "play": f"{left}-{action.tile.other(left)}"}
    out: dict[str, Any] = {"player": seat, "play": str(action.tile)}
    if action.end is not None:
        out["end"] = action.end.value
    return out


def _put_down_illegal(p: _Planner, seat: int, actions: list[dict[str, Any]], stable_frames: int) -> bool:
    """The player lays a tile of theirs on an end it does not match, then takes it back."""
    hand = p.hand
    ends = [i for i, v in enumerate(hand.table.values) if v >= 0 and i in p.builder.cursors]
    for i in ends:
        value = hand.table.values[i]
        wrong = [t for t in hand.held(seat) if value not in t]
        if not wrong:
            continue
        tile = wrong[int(p.rng.integers(len(wrong)))]
        try:
            hand.play(Play(tile, ENDS[i]))
        except ValueError as error:
            reason = getattr(error, "reason", None)
        else:  # it fitted after all: not what this scene is for
            hand.undo()
            return False
        pose = p.builder.add(i, tile, tile.high, commit=False)
        p.shot(arm_at=(pose.x, pose.y))
        frame = p.stable(stable_frames, (pose,))
        p.shot(arm_at=(pose.x, pose.y))
        p.stable(1)
        p.events.append({"frame": frame, "event": "illegal", "tile": str(tile),
                         "reason": None if reason is None else str(reason), "player": seat})
        actions.append({"player": seat, "play": str(tile), "end": ENDS[i].value})
        return True
    return False


def _nearest_face_down(p: _Planner, seat: int) -> TilePose:
    """The boneyard tile a player reaches for: the one nearest their edge of the table."""
    players = p.hand.players
    edge_dir = {0: (0.0, -1.0), 1: (-1.0, 0.0), 2: (0.0, 1.0), 3: (1.0, 0.0)}
    if players == 2:
        d = edge_dir[0 if seat == 0 else 2]
    else:
        d = edge_dir[seat % 4]
    return max(p.boneyard, key=lambda t: t.x * d[0] + t.y * d[1])


def render_plan(plan: Plan, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
    """Render every frame of a plan with the same camera (aimed to show every tile the hand
    will ever put on the table) and yield each image with its truth."""
    setting = plan.setting
    everything: dict[int, TilePose] = {}
    for frame in plan.frames:
        for pose in frame.poses:
            everything[id(pose)] = pose
    camera = aim(setting, list(everything.values()), rng)
    base = Scene(setting.table, setting.size, (), setting.lighting)
    glare = with_glare(setting, dataclasses.replace(base, tiles=tuple(everything.values())), rng)
    glare_ids = {id(list(everything.values())[i]) for i in glare.lighting.glare_tiles}
    params = {**setting.params, "camera": camera_params(camera)}
    for frame in plan.frames:
        tiles = frame.poses
        lit = tuple(i for i, pose in enumerate(tiles) if id(pose) in glare_ids)
        scene = dataclasses.replace(base, tiles=tiles, arm=frame.arm,
                                    lighting=dataclasses.replace(setting.lighting, glare_tiles=lit))
        image = render(scene, camera, setting.finish, rng).image
        truth = frame_truth(tiles, setting.size, camera, frame.arm is not None, frame.layout,
                            {**params, "arm": None if frame.arm is None else dataclasses.asdict(frame.arm)})
        yield image, truth
