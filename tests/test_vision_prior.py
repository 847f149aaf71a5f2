"""A frame's own face model (the face colour and tile length it showed), and detection with a
prior: the model the frames before agree on, used in place of the frame's own estimate."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers import REPO

from referee.vision.config import ConfigError, VisionConfig
from referee.vision.detect import detect
from referee.vision.images import read_image
from referee.vision.types import Detection, FaceModel

SAMPLE = REPO / "sample_images" / "sequences" / "sequence-11-000"


def test_a_frame_reports_its_own_face_model() -> None:
    found = detect(read_image(SAMPLE / "frame-0021.jpg"))
    assert found.tiles and found.face is not None
    lengths = [max(abs(t.corners[0][0] - t.corners[1][0]), abs(t.corners[0][1] - t.corners[1][1]))
               for t in found.tiles if not t.uncertain]
    # the tile length the frame's faces showed, in the frame's pixels, near the tiles' boxes
    longest = max(lengths)
    assert 0.75 * longest < found.face.length < 1.35 * longest
    assert eval(repr(found.face)) == found.face  # pastes back as code


def test_the_prior_from_one_frame_reads_the_next_as_its_own_would() -> None:
    before = detect(read_image(SAMPLE / "frame-0018.jpg"))
    assert before.face is not None
    image = read_image(SAMPLE / "frame-0021.jpg")
    alone, helped = detect(image), detect(image, prior=before.face)
    assert helped.tiles and {t.pips for t in helped.tiles if not t.uncertain} \
        == {t.pips for t in alone.tiles if not t.uncertain}
    # and it is the prior that is used, not the frame's own estimate: a prior three times the
    # tile length finds nothing like these tiles
    wrong = FaceModel(before.face.mean, before.face.inverse, 3 * before.face.length)
    assert {t.pips for t in detect(image, prior=wrong).tiles if not t.uncertain} \
        != {t.pips for t in alone.tiles if not t.uncertain}


def test_the_face_model_is_kept_out_of_the_json_and_of_equality() -> None:
    found = detect(read_image(SAMPLE / "frame-0021.jpg"))
    assert found.face is not None
    assert "face" not in found.to_json()
    assert Detection.from_json(found.to_json()) == found  # the same finds, whatever face model
    assert dataclasses.replace(found, face=None) == found


def test_an_empty_frame_has_no_face_model() -> None:
    table = np.full((360, 640, 3), (60, 90, 140), np.uint8)  # an empty wooden-brown table
    found = detect(table)
    assert not found.tiles and found.face is None


def test_a_prior_near_the_frames_own_estimate_leaves_its_reading_as_it_was() -> None:
    image = read_image(SAMPLE / "frame-0021.jpg")
    alone = detect(image)
    assert alone.face is not None
    near = FaceModel(alone.face.mean, alone.face.inverse, 1.05 * alone.face.length)
    helped = detect(image, prior=near)
    assert helped == alone and [t.confidence for t in helped.tiles] == [t.confidence for t in alone.tiles]


def test_an_estimate_strays_by_length_or_by_colour() -> None:
    eye = ((0.01, 0.0, 0.0), (0.0, 0.04, 0.0), (0.0, 0.0, 0.04))  # sd 10 in lightness, 5 in a and b
    prior = FaceModel((200.0, 128.0, 133.0), eye, 100.0)
    assert not FaceModel((205.0, 130.0, 131.0), eye, 110.0).strays(prior, 0.15, 3.0)
    assert FaceModel((200.0, 128.0, 133.0), eye, 120.0).strays(prior, 0.15, 3.0)  # 20% longer
    assert FaceModel((200.0, 145.0, 133.0), eye, 100.0).strays(prior, 0.15, 3.0)  # 3.4 sd off in a
    assert FaceModel((170.0, 128.0, 133.0), eye, 100.0).strays(prior, 0.15, 2.5)  # 3 sd darker


@pytest.mark.parametrize(("field", "value"), [("prior_length", 1.0), ("prior_length", -0.1), ("prior_colour", -1.0)])
def test_bad_prior_settings_are_named(field: str, value: float) -> None:
    with pytest.raises(ConfigError, match=f"{field}: bad value {value!r}"):
        VisionConfig(**{field: value})
