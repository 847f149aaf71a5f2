"""The referee over whole hands the rules engine plays, with exact tile geometry from the
renderer's plan (no pixels drawn): every play recovered at the right end with the right points,
every illegal placement flagged, no false illegal event, draws, blocked hands and the hand's end.
Vision's own accuracy is measured elsewhere (referee evaluate, evaluate-hands)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from referee.render.generate import Options
from referee.render.sequence import plan_hand
from referee.render.truth import frame_truth, seat_angles
from referee.rules import Rules, Variant
from referee.session.events import Event
from referee.session.loop import Input, Session
from referee.session.referee import RefereeConfig
from referee.session.score import score_hand
from referee.vision.types import Detection
from tests.helpers import REPO


def _never(image: Any) -> Detection:
    raise AssertionError("these tests feed detections")


def referee_plan(seed: int, variant: str, players: int = 2, illegal: bool = False,
                 hold: int | None = 2) -> tuple[Session, list[dict[str, Any]], dict[str, Any]]:
    rng = np.random.default_rng([seed, 0])
    options = Options(variant=variant, players=players)
    plan = plan_hand(rng, options, illegal=illegal, hold=hold)
    record = plan.record
    hand = record["hands"][0]
    rules_json = record["rules"]
    rules = Rules(Variant(record["variant"]), players=record["players"], hand_size=rules_json["hand_size"])
    config = RefereeConfig(opener=hand["actions"][0]["player"], seats=seat_angles(plan.camera, rules.players))
    session = Session(rules, _never, referee_config=config)
    passes = {e["frame"] for e in plan.events if e["event"] == "pass"}
    for index, frame in enumerate(plan.frames):
        truth = frame_truth(frame.poses, plan.setting.size, plan.camera, frame.arm is not None, None, {})
        session.frame(index, detection=Detection.from_json(truth))
        for e in plan.events:
            if e["event"] == "pass" and e["frame"] == index and index in passes:
                try:
                    session.manual(Input(index, "pass"))
                except ValueError as error:  # a pass typed once the table is certainly blocked
                    assert "the hand is over" in str(error)
    session.finish()
    return session, list(plan.events), hand


def _double_opener(hand: dict[str, Any]) -> bool:
    a, b = hand["actions"][0]["play"].split("-")
    return a == b


CASES = [(seed, variant, players) for seed in range(6) for variant, players in
         (("fives", 2), ("draw", 2), ("block", 3), ("partners", 4))]


@pytest.mark.parametrize(("seed", "variant", "players"), CASES)
def test_every_play_of_a_planned_hand_is_recovered(seed: int, variant: str, players: int) -> None:
    session, truth, hand = referee_plan(1000 + seed, variant, players, illegal=variant in ("fives", "draw"))
    score = score_hand(truth, session.events, _double_opener(hand))
    got = [e.to_json() for e in session.events]
    detail = json.dumps({"truth": truth, "got": got})
    assert score.plays_right == score.plays, detail
    assert score.fives_right == score.fives and score.points_wrong == 0, detail
    assert score.illegal_flagged == score.illegal, detail
    assert score.false_illegal == 0 and score.false_plays == 0 and score.unfollowed == 0, detail
    assert score.players_right == score.plays, detail
    assert score.draws_found == score.draws, detail
    assert score.hand_end_right, detail


def test_the_events_come_in_the_frames_that_show_them() -> None:
    session, truth, _ = referee_plan(1001, "fives", illegal=True)
    plays = {e["tile"]: e["frame"] for e in truth if e["event"] == "play"}
    for event in session.events:
        if event.kind.value == "play":
            # the state is stable on its second frame; it is reported as of its first
            assert event.frame == plays[event.tile]


def test_the_sample_hands_are_refereed_exactly_from_their_truth() -> None:
    from referee.cli_hands import referee_hand
    for name in ("sequence-11-000", "sequence-259-000"):
        row = referee_hand(str(REPO / "sample_images" / "sequences" / name), True, 2)
        assert row["plays_right"] == row["plays"] and row["fives_right"] == row["fives"]
        assert row["illegal_flagged"] == row["illegal"] and row["false_illegal"] == 0
        assert row["hand_end_right"] and row["unfollowed"] == 0


@pytest.mark.parametrize(("seed", "variant", "players"), [c for c in CASES if c[1] in ("draw", "fives")])
def test_a_resumed_referee_comes_to_the_same_hand(seed: int, variant: str, players: int) -> None:
    """Restoring from the events as logged (draws seen late included) gives the same hand, move
    for move, and the same scores: what ``watch --resume`` relies on."""
    session, _, _ = referee_plan(1000 + seed, variant, players, illegal=seed % 2 == 0, hold=None)
    fresh = Session(session.referee.rules, _never, referee_config=session.referee.config)
    fresh.referee.restore(Event.from_json(e.to_json()) for e in session.events)
    assert fresh.referee.hand.moves == session.referee.hand.moves
    assert fresh.referee.match.scores == session.referee.match.scores
    assert fresh.referee.on_table() == session.referee.on_table()


def test_a_draw_the_referee_took_back_is_no_draw_in_the_score() -> None:
    from referee.session.events import Kind
    truth = [{"frame": 1, "event": "play", "tile": "6-3", "end": None, "player": 0, "points": 0},
             {"frame": 3, "event": "play", "tile": "4-3", "end": "right", "player": 1, "points": 0},
             {"frame": 4, "event": "draw", "player": 0}]
    got = [Event(1, Kind.PLAY, tile="6-3", player=0, points=0), Event(4, Kind.DRAW, player=1),
           Event(6, Kind.UNDO, reason="draw", player=1),
           Event(3, Kind.PLAY, tile="4-3", end="right", player=1, points=0, inferred=True),
           Event(4, Kind.DRAW, player=0)]
    score = score_hand(truth, got, False)
    assert (score.draws, score.draws_found, score.false_draws) == (1, 1, 0)
    assert score_hand(truth, got[:2], False).draws_found == 1  # the draw before the undo counted once


def test_a_play_scored_at_another_score_counts_as_scored_wrong_and_one_left_unscored_does_not() -> None:
    from referee.session.events import Kind
    truth = [{"frame": 1, "event": "play", "tile": "5-5", "end": None, "player": 0, "points": 10},
             {"frame": 3, "event": "play", "tile": "5-0", "end": "right", "player": 1, "points": 5},
             {"frame": 5, "event": "play", "tile": "0-0", "end": "right", "player": 0, "points": 0},
             {"frame": 7, "event": "play", "tile": "5-1", "end": "left", "player": 1, "points": 0}]
    got = [Event(1, Kind.PLAY, tile="5-5", player=0, points=10),
           Event(3, Kind.PLAY, tile="5-0", end="right", player=1, points=0),  # a five gone unannounced
           Event(5, Kind.PLAY, tile="0-0", end="right", player=0, points=None),  # unscored: not wrong
           Event(7, Kind.PLAY, tile="5-1", end="left", player=1, points=5)]  # a five that was not made
    score = score_hand(truth, got, True)
    assert (score.fives, score.fives_right, score.points_wrong) == (2, 1, 2)
