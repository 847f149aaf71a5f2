"""``referee.vision.rings``: faces the colour of the table, found by the ring of foreground
round them. Masks are drawn with known truth from a seeded generator: tiles at random places
and angles, each outlined by a ring (its sides and shadow) and holding a few specks of face
mask, as an ivory face on a pale table gives."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.vision.config import VisionConfig
from referee.vision.rings import ringed_faces

L = 60  # tile length, pixels
SHAPE = (400, 600)


def tile_corners(cx: float, cy: float, angle: float, length: float = L) -> np.ndarray:
    return cv2.boxPoints(((cx, cy), (length, length / 2), angle)).astype(np.int32)


def table_with_tiles(rng: np.random.Generator, specks: float = 0.3) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """(mask, loose, faces): four tiles whose faces differ from the table only in ``specks`` of
    their pixels (the face mask there), each ringed by foreground three pixels wide."""
    mask = np.zeros(SHAPE, np.uint8)
    loose = np.zeros(SHAPE, np.uint8)
    faces = []
    for cx, cy in ((120, 110), (420, 120), (150, 300), (430, 290)):
        corners = tile_corners(cx + rng.uniform(-10, 10), cy + rng.uniform(-10, 10), rng.uniform(0, 180))
        face = np.zeros(SHAPE, np.uint8)
        cv2.fillConvexPoly(face, corners, 1)
        cv2.polylines(loose, [corners], True, 1, 3)
        speck = (rng.random(SHAPE) < specks) & (face > 0)
        mask[speck] = 1
        loose[speck] = 1
        faces.append(face)
    return mask, loose, faces


@pytest.mark.parametrize("seed", range(3))
def test_faces_the_colour_of_the_table_are_found_by_their_rings(seed: int) -> None:
    mask, loose, faces = table_with_tiles(np.random.default_rng(7100 + seed))
    found = ringed_faces(mask, loose, L, VisionConfig())
    for face in faces:
        inside = cv2.erode(face, np.ones((7, 7), np.uint8)) > 0  # within the ring's inner edge
        assert found[inside].all()  # the face, whole
    outside = cv2.dilate(np.maximum.reduce(faces), np.ones((5, 5), np.uint8)) == 0
    assert not found[outside].any()  # and nothing of the table


def test_table_closed_round_by_a_line_is_no_face() -> None:
    # A ring of the size of a tile holding no face mask: the table a line of play closes round.
    mask = np.zeros(SHAPE, np.uint8)
    loose = np.zeros(SHAPE, np.uint8)
    cv2.polylines(loose, [tile_corners(300, 200, 30)], True, 1, 3)
    assert not ringed_faces(mask, loose, L, VisionConfig()).any()


def test_rings_of_other_sizes_or_shapes_are_no_face() -> None:
    # Face mask specks everywhere, so only the rings' sizes and shapes can tell.
    rng = np.random.default_rng(7200)
    mask = (rng.random(SHAPE) < 0.3).astype(np.uint8)
    loose = mask.copy()
    cv2.polylines(loose, [tile_corners(150, 150, 10, 2.2 * L)], True, 1, 3)  # too big
    cv2.polylines(loose, [tile_corners(450, 150, 10, 0.5 * L)], True, 1, 3)  # too small
    cv2.circle(loose, (300, 300), round(L / 2.5), 1, 3)  # round
    assert not ringed_faces(mask, loose, L, VisionConfig()).any()


def test_ring_face_zero_turns_it_off_and_inputs_are_not_modified() -> None:
    mask, loose, _ = table_with_tiles(np.random.default_rng(7300))
    before = mask.copy(), loose.copy()
    assert ringed_faces(mask, loose, L, VisionConfig()).any()
    assert not ringed_faces(mask, loose, L, VisionConfig(ring_face=0.0)).any()
    assert np.array_equal(mask, before[0]) and np.array_equal(loose, before[1])


def test_a_ring_cut_by_the_frames_edge_is_no_face() -> None:
    rng = np.random.default_rng(7400)
    mask = np.zeros(SHAPE, np.uint8)
    loose = np.zeros(SHAPE, np.uint8)
    corners = tile_corners(10, 200, 0)  # half off the frame's left edge
    face = np.zeros(SHAPE, np.uint8)
    cv2.fillConvexPoly(face, corners, 1)
    cv2.polylines(loose, [corners], True, 1, 3)
    mask[(rng.random(SHAPE) < 0.3) & (face > 0)] = 1
    assert not ringed_faces(mask, loose, L, VisionConfig()).any()


def test_ring_settings_read_from_json_as_pairs() -> None:
    config = VisionConfig.from_json({"ring_area": [0.5, 1.2], "ring_aspect": [1.5, 2.5]})
    assert config.ring_area == (0.5, 1.2) and config.ring_aspect == (1.5, 2.5)
    assert VisionConfig.from_json(config.to_json()) == config
    with pytest.raises(ValueError, match=r"ring_area: expected \[least, most\]"):
        VisionConfig.from_json({"ring_area": 0.5})
    with pytest.raises(ValueError, match="ring_aspect"):
        VisionConfig.from_json({"ring_aspect": [2.5, 1.5]})  # least above most
