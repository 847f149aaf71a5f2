"""Single frames: scattered tiles, a line of play, and the end-of-hand reveal."""

from __future__ import annotations

import dataclasses
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
    line_scene,
    random_seed,
    reveal_tiles,
    rules_for,
    scattered_tiles,
    with_glare,
)
from referee.render.scene import Scene, TilePose
from referee.render.truth import camera_params, frame_truth
from referee.rules import Hand, Rules
from referee.rules.bots import greedy_bot, play_turn, random_bot

KINDS = ("scattered", "line", "reveal")


@dataclasses.dataclass(frozen=True)
class Still:
    image: np.ndarray
    truth: dict[str, Any]


def played_hand(rules: Rules, rng: np.random.Generator, to_end: bool) -> Hand:
    """A hand the bots played, to its end or stopped part way."""
    bots_rng = random_seed(rng)
    hand = Hand.deal_random(rules, bots_rng)
    bots = [greedy_bot if rng.random() < 0.5 else random_bot for _ in range(rules.players)]
    stop = None if to_end else int(rng.integers(1, 40))
    while not hand.is_over() and (stop is None or hand.table.size < stop):
        seat = hand.turn
        assert seat is not None
        play_turn(hand, bots[seat], bots_rng)
    return hand


def render_still(kind: str, rng: np.random.Generator, options: Options, attempts: int = 30) -> Still:
    """One frame of ``kind`` with its truth. A hand whose tiles find no room on the table, or
    that no camera can take in whole, is dealt again."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    for _ in range(attempts):
        still = _try_still(kind, rng, options)
        if still is not None:
            return still
    raise ValueError(f"no {kind} scene in {attempts} deals fitted the table and the camera")


def _try_still(kind: str, rng: np.random.Generator, options: Options) -> Still | None:
    setting = draw_setting(rng, options)
    layout: dict[str, Any] | None = None
    extra: dict[str, Any] = {"kind": kind}
    camera: Camera | None = None
    if kind == "scattered":
        poses, camera = scattered_tiles(setting, rng, options.max_pips)
    else:
        rules = rules_for(options)
        hand = played_hand(rules, rng, to_end=kind == "reveal")
        builder, poses = line_scene(setting, hand.table, rng)
        if builder.crowded:
            return None
        layout = hand.line().to_dict()
        extra.update(variant=rules.variant.value, players=rules.players, actions=hand.move_count())
        left = [(t.high, t.low) for t in hand.boneyard()]
        poses += boneyard(setting, left, poses, rng)
        if kind == "reveal":
            hands = [[(t.high, t.low) for t in hand.held(s)] for s in range(rules.players)]
            reveal = reveal_tiles(setting, hands, rules.players, rng, poses)
            if reveal is None:
                return None
            poses += reveal
            outcome = hand.outcome()
            extra["result"] = None if outcome is None else outcome.result()
        camera = aim(setting, poses, rng)
        if camera is None:
            return None
    return _shoot(setting, poses, rng, layout, extra, arm_chance=0.2, camera=camera)


def _shoot(setting: Setting, poses: list[TilePose], rng: np.random.Generator, layout: dict[str, Any] | None,
           extra: dict[str, Any], arm_chance: float, camera: Camera) -> Still:
    scene = with_glare(setting, Scene(setting.table, setting.size, tuple(poses), setting.lighting), rng)
    occluded = bool(rng.random() < arm_chance) and bool(poses)
    if occluded:
        target = poses[int(rng.integers(len(poses)))]
        scene = scene.with_arm(arm_over(setting, (target.x, target.y), rng))
    image = render(scene, camera, setting.finish, rng)
    params = {**setting.params, **extra, "camera": camera_params(camera),
              "arm": None if scene.arm is None else dataclasses.asdict(scene.arm)}
    truth = frame_truth(poses, setting.size, camera, occluded, layout, params, scene.lighting.glare_tiles)
    return Still(image, truth)


__all__ = ["KINDS", "Options", "Still", "render_still"]
