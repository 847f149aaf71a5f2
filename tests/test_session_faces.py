"""The face colour and tile length a session's frames agree on: kept from each frame's own
estimate, handed to the next frames' detection once most agree, never from a frame with an arm
over the table, only from frames ``lag`` before, and handed on by a session."""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
from pathlib import Path
from typing import Any

import pytest

from referee.cli_session import _detector
from referee.rules import Rules, Variant
from referee.session.faces import ConsensusConfig, FaceConsensus, session_vision
from referee.session.loop import Session
from referee.vision.config import VisionConfig
from referee.vision.types import Detection, FaceModel, TileReading

EYE = ((0.02, 0.0, 0.0), (0.0, 0.08, 0.0), (0.0, 0.0, 0.08))


def model(length: float, lightness: float = 200.0) -> FaceModel:
    return FaceModel((lightness, 128.0, 133.0), EYE, length)


def tile(uncertain: bool = False) -> TileReading:
    return TileReading((6, 4), ((90.0, 100.0), (110.0, 100.0)),
                       ((80.0, 90.0), (120.0, 90.0), (120.0, 110.0), (80.0, 110.0)), (100.0, 100.0),
                       0.3 if uncertain else 0.9, uncertain)


def seen(length: float | None, lightness: float = 200.0, occluded: bool = False, sure: int = 1) -> Detection:
    """A frame's detection: ``sure`` tiles read surely (0: one tile, unsurely), and the frame's
    own face model."""
    tiles = () if occluded or length is None else tuple(tile() for _ in range(sure)) or (tile(uncertain=True),)
    return Detection(1280, 720, occluded, tiles, face=None if length is None else model(length, lightness))


def fed(lengths: list[float | None], config: ConsensusConfig | None = None,
        lightness: list[float] | None = None) -> FaceConsensus:
    """A consensus fed one frame per length, with no lag: each frame's estimate counts at once."""
    faces = FaceConsensus(config or ConsensusConfig(lag=0))
    for index, length in enumerate(lengths):
        faces.feed(index, seen(length, lightness[index] if lightness else 200.0))
    return faces


def test_no_consensus_until_enough_frames_agree() -> None:
    faces = fed([46.0, 47.0])
    assert faces.prior(2) is None  # two frames are not yet a consensus
    faces.feed(2, seen(46.5))
    prior = faces.prior(3)
    assert prior is not None and prior.length == 46.5


def test_a_frame_gone_astray_does_not_move_the_consensus() -> None:
    prior = fed([46.0, 46.4, 45.8, 128.7, 46.1, 61.5, 46.2]).prior(7)
    assert prior is not None and abs(prior.length - 46.1) < 0.5


def test_of_the_agreeing_frames_the_one_nearest_their_median_colour_is_given() -> None:
    # one frame took the rims for the faces
    prior = fed([46.0] * 5, lightness=[199.0, 203.0, 150.0, 201.0, 205.0]).prior(5)
    assert prior is not None and prior.mean[0] == 201.0


def test_frames_that_disagree_give_no_consensus() -> None:
    assert fed([46.0, 61.5, 128.7, 46.0, 90.0, 61.0]).prior(6) is None  # each read on its own


def test_the_consensus_follows_a_new_camera() -> None:
    prior = fed([46.0] * 5 + [92.0] * 4, ConsensusConfig(keep=5, lag=0)).prior(9)
    assert prior is not None and prior.length == 92.0


def test_frames_with_an_arm_or_without_tiles_are_not_kept() -> None:
    faces = FaceConsensus(ConsensusConfig(lag=0))
    for index in range(0, 10, 2):
        faces.feed(index, seen(46.0, occluded=True))  # the arm's colour may have been taken for faces
        faces.feed(index + 1, seen(None))  # an empty table
    assert faces.prior(10) is None


def test_frames_that_read_no_tile_surely_are_not_kept() -> None:
    faces = FaceConsensus(ConsensusConfig(lag=0))
    for index in range(5):  # the backs' colour taken for the faces: plain tiles, read unsurely
        faces.feed(index, seen(73.0, sure=0))
    assert faces.prior(5) is None
    for index in range(5, 8):
        faces.feed(index, seen(60.0))
    prior = faces.prior(8)
    assert prior is not None and prior.length == 60.0


def test_the_estimates_that_read_most_tiles_surely_win() -> None:
    # A frame's estimate flips between the backs (read as plain tiles, now and then one surely)
    # and the faces (whose pips read): the faces' estimates are fewer but bear out more tiles.
    faces = FaceConsensus(ConsensusConfig(lag=0))
    for index, (length, sure) in enumerate([(73.0, 1), (59.0, 6), (73.0, 1), (73.0, 1), (59.5, 7), (73.0, 1),
                                            (58.8, 6)]):
        faces.feed(index, seen(length, sure=sure))
    prior = faces.prior(7)
    assert prior is not None and abs(prior.length - 59.0) < 1
    # ... but not when the two read as many tiles each: no consensus then
    even = fed([73.0, 59.0, 73.0, 59.0, 73.0, 59.0])
    assert even.prior(6) is None


def test_the_table_colour_given_is_the_one_the_frames_reading_most_tiles_agree_on() -> None:
    # Rendered hand 9304-000: in some frames the floor round the table was fitted as the table;
    # they read a tile or two surely, the others read the whole line. The prior carries the
    # table colour of the frames that read most, whichever frame's face colour is given.
    wood, floor = (84.0, 134.0, 155.0), (82.0, 128.0, 135.0)
    faces = FaceConsensus(ConsensusConfig(lag=0))
    for index, (table, sure) in enumerate([(wood, 7), (floor, 1), (wood, 6), (floor, 2), (floor, 1), (wood, 8)]):
        face = dataclasses.replace(model(46.0), table=(table[0] + index % 2, table[1], table[2]))
        faces.feed(index, dataclasses.replace(seen(46.0, sure=sure), face=face))
    prior = faces.prior(6)
    assert prior is not None and prior.table is not None and math.dist(prior.table, wood) < 2
    # Frames that tell no table colour (a stand-in, an older detector) give none.
    assert fed([46.0] * 4).prior(4) == model(46.0)


def test_a_frame_seen_again_counts_once() -> None:
    faces = FaceConsensus(ConsensusConfig(lag=0))
    for _ in range(3):  # a still view seen three times: one frame's estimate, not a consensus
        faces.feed(0, seen(46.0))
    faces.feed(1, seen(46.0))
    assert faces.prior(2) is None
    faces.feed(2, seen(46.0))
    assert faces.prior(3) is not None


def test_keep_zero_turns_it_off() -> None:
    assert fed([46.0] * 5, ConsensusConfig(keep=0, lag=0)).prior(5) is None


def test_only_frames_at_least_lag_before_count() -> None:
    faces = fed([46.0] * 3 + [92.0] * 3, ConsensusConfig(lag=3))
    assert faces.prior(4) is None  # only frames 0 and 1 are 3 or more before frame 4
    early = faces.prior(5)  # frames 0-2 are; the 92s of frames 3-5 are not yet
    assert early is not None and early.length == 46.0
    assert faces.prior(8) is None  # three at 46 and three at 92: no two thirds agree
    later = fed([46.0] * 3 + [92.0] * 6, ConsensusConfig(keep=6, lag=3)).prior(11)
    assert later is not None and later.length == 92.0  # the six latest of frames 0-8


@pytest.mark.parametrize(("field", "value", "message"), [
    ("keep", -1, "keep must be a whole number of frames >= 0, got -1"),
    ("least", 0, "least must be a whole number of frames >= 1, got 0"),
    ("agree", 1.5, "agree must be a share of the length between 0 and 1, got 1.5"),
    ("share", 0.5, "share must be a share of the frames above 0.5 and at most 1, got 0.5"),
    ("lag", -2, "lag must be a whole number of frames >= 0, got -2"),
    ("keep", 2.5, "keep must be a whole number of frames >= 0, got 2.5"),
    ("table", 0, "table must be a colour distance > 0, got 0"),
])
def test_bad_settings_are_named(field: str, value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ConsensusConfig(**{field: value})


def test_a_session_reads_later_frames_with_the_consensus_of_frames_lag_before() -> None:
    given: list[FaceModel | None] = []

    def stand_in(image: Any, prior: FaceModel | None = None) -> Detection:
        given.append(prior)
        return seen(46.0 + image)

    session = Session(Rules(Variant.FIVES, players=2), stand_in, faces=ConsensusConfig(lag=2))
    for index in range(7):
        session.frame(index, image=index * 0.1)
    assert given[:4] == [None] * 4  # frames 0-2 make the first consensus, for frame 2 + lag on
    assert given[4] is not None and given[4].length == 46.2  # of equal colours, the newest
    assert given[6] is not None and given[6].length == 46.4
    after = session.prior(7)
    assert after is not None and after.length == 46.5  # for the frame after


def test_a_stand_in_without_face_models_is_never_handed_a_prior() -> None:
    session = Session(Rules(Variant.FIVES, players=2), lambda image: Detection(10, 10, False))
    for index in range(5):
        session.frame(index, image=None)  # called as detect(image): no prior keyword
    assert session.prior(5) is None


def test_a_session_reads_each_frame_on_one_guess_at_the_faces_keeping_the_other_settings(tmp_path: Path) -> None:
    # A runner-up face colour, read on one frame alone before any consensus, took a boneyard's
    # back for a sure tile (rendered hand 9301-005): a session reads with face_tries 1, whatever
    # the settings say, and every other setting as given.
    settings = tmp_path / "vision.json"
    settings.write_text(json.dumps({"face_tries": 2, "pip_floor": 0.3}), encoding="utf-8")
    detector = _detector(argparse.Namespace(calibration=None, config=str(settings)), max_pips=6)
    assert isinstance(detector, functools.partial)
    config = detector.keywords["config"]
    assert (config.face_tries, config.pip_floor, config.max_pips) == (1, 0.3, 6)
    assert session_vision(VisionConfig(relook_support=3)) == VisionConfig(relook_support=3, face_tries=1)
