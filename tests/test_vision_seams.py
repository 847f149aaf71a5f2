"""``referee.vision.seams``: backs packed together show the seams between them; a strip of
shadow or cloth packed into tile-sized rectangles does not. Drawn with known truth from a
seeded generator: rows of backs with grooves, gaps or nothing between them, under noise."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from referee.vision.config import ConfigError, VisionConfig
from referee.vision.seams import seam_contrast, seamless
from referee.vision.split import Box

L, W = 80.0, 40.0  # a tile's length and width in pixels


def strip(rng: np.random.Generator, tiles: int, seam: float, across: bool = False, slope: float = 0.0,
          noise: float = 3.0) -> tuple[np.ndarray, list[Box]]:
    """A grey frame holding ``tiles`` backs (level 90 on a table of 170) end to end along x (or
    side by side when ``across``), the line where two meet ``seam`` grey levels lighter (a gap
    of table) or darker (a groove); ``slope`` grey levels per tile of light falling off along
    the row; JPEG-like noise. Their packed boxes, in order."""
    step = W if across else L
    x0, y0 = 60.0, 100.0
    image = np.full((300, int(x0 * 2 + step * tiles)), 170.0)
    boxes = []
    for k in range(tiles):
        cx = x0 + step * (k + 0.5)
        box = Box(cx, y0 + L / 2 if across else y0 + W / 2, L, W, 90.0 if across else 0.0, packed=True)
        boxes.append(box)
    top, bottom = int(y0), int(y0 + (L if across else W))
    left, right = int(x0), int(x0 + step * tiles)
    xs = np.arange(left, right)
    image[top:bottom, left:right] = 90.0 + slope * (xs - left) / step
    for k in range(1, tiles):
        x = int(x0 + step * k)
        image[top:bottom, x - 1:x + 2] += seam
    image += rng.normal(0.0, noise, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8), boxes


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("seam", "across"), [(-40.0, False), (50.0, False), (-40.0, True), (30.0, True)])
def test_backs_pushed_together_show_their_seams(seed: int, seam: float, across: bool) -> None:
    rng = np.random.default_rng(seed)
    image, boxes = strip(rng, 4, seam, across)
    before = image.copy()
    config = VisionConfig()
    for a, b in itertools.pairwise(boxes):
        assert seam_contrast(image, a, b, L if across else W, (1.0, 0.0)) > 6.0
    assert seamless(image, boxes, set(range(4)), config.back_seam, config.back_seam_turn) == set()
    assert np.array_equal(image, before)  # the frame is not modified


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("slope", [0.0, 12.0, -12.0])
def test_a_strip_with_nothing_between_its_rectangles_is_no_backs(seed: int, slope: float) -> None:
    # A shadow strip along a line of tiles, packed into six rectangles: light falling off along
    # it is no seam.
    rng = np.random.default_rng(seed)
    image, boxes = strip(rng, 6, 0.0, slope=slope)
    config = VisionConfig()
    assert max(seam_contrast(image, a, b, W, (1.0, 0.0)) for a, b in itertools.pairwise(boxes)) < config.back_seam
    assert seamless(image, boxes, set(range(6)), config.back_seam, config.back_seam_turn) == set(range(6))


def test_a_back_meeting_no_other_back_stands_and_only_backs_are_judged() -> None:
    rng = np.random.default_rng(7)
    image, boxes = strip(rng, 3, 0.0)
    apart = Box(400.0, 250.0, L, W, 0.0, packed=True)  # far from the row
    assert seamless(image, [*boxes, apart], {0, 1, 3}, 4.0, 5.0) == {0, 1}  # box 2 is a face
    assert seamless(image, boxes, {1}, 4.0, 5.0) == set()


@pytest.mark.parametrize("seed", range(4))
def test_two_backs_side_by_side_at_an_angle_to_each_other_are_two_tiles(seed: int) -> None:
    # Rendered hand 9306-000: two black backs on felt lay side by side, turned 11 degrees to each
    # other; the wedge of cloth between them stood only 3.1 deviations out at the middle of
    # their shared side, and both were dropped as a strip, for five frames: the referee called
    # two draws nobody made. A strip packed into rectangles comes out straight, so rectangles
    # turned to each other are two things, whatever lies between them: here, nothing at all.
    rng = np.random.default_rng(seed)
    image = np.full((300, 300), 170.0)
    turn = float(rng.uniform(8.0, 14.0))
    boxes = [Box(130.0, 150.0, L, W, 90.0, packed=True), Box(130.0 + W, 150.0, L, W, 90.0 + turn, packed=True)]
    for box in boxes:
        cv2.fillConvexPoly(image, np.round(box.corners()).astype(np.int32), 40.0)
    image = np.clip(image + rng.normal(0.0, 3.0, image.shape), 0, 255).astype(np.uint8)
    config = VisionConfig()
    assert seamless(image, boxes, {0, 1}, config.back_seam, config.back_seam_turn) == set()
    assert seamless(image, boxes, {0, 1}, config.back_seam, 15.0) == {0, 1}  # judged by a seam, none


def test_back_seam_is_checked_and_zero_turns_it_off() -> None:
    with pytest.raises(ConfigError, match="back_seam"):
        VisionConfig(back_seam=-1.0)
    with pytest.raises(ConfigError, match="back_seam_turn"):
        VisionConfig(back_seam_turn=-1.0)
    VisionConfig(back_seam=0.0)
