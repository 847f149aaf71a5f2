"""``referee.vision.divider``: a lone tile found again from its divider, when the camera sees
its side wall.

Tiles are drawn with known truth (the drawing of ``test_vision_detect``), each over a plain
block of darker ivory a fifth of its width off to one side: the side wall a camera off to that
side sees. The wall is of nearly the face's colour, so the face's rectangle takes it in."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_vision_detect import (
    DARK_INK,
    FELT,
    IVORY,
    NO_DOUBLE_BLANK,
    SHAPE,
    Drawn,
    L,
    W,
    finish,
    lay,
    places,
    problems,
    run,
    sprite,
    table,
)

from referee.vision.config import VisionConfig
from referee.vision.detect import detect
from referee.vision.divider import on_divider
from referee.vision.split import Box

WALL = tuple(round(0.8 * c) for c in IVORY)  # the side wall: the face's colour, in shade
OFF = (-0.2 * W, 0.2 * W)  # where the wall shows, from the face (frame pixels)


def walled(rng: np.random.Generator, n: int, pool: list[tuple[int, int]] = NO_DOUBLE_BLANK,
           face_down: int = 0) -> tuple[np.ndarray, list[Drawn]]:
    """A frame of n face-up tiles of ``pool`` and ``face_down`` backs on felt, each showing its
    side wall, with their truth."""
    chosen: list[tuple[int, int] | None] = [pool[i] for i in rng.permutation(len(pool))[:n]]
    chosen += [None] * face_down
    canvas = table(rng, FELT, shape=SHAPE)
    truth = []
    for pips, (x, y, angle) in zip(chosen, places(rng, len(chosen)), strict=True):
        canvas = lay(canvas, sprite(None, WALL, DARK_INK), x + OFF[0], y + OFF[1], angle)
        canvas = lay(canvas, sprite(pips, IVORY, DARK_INK), x, y, angle)
        ux, uy, q = math.cos(math.radians(angle)), math.sin(math.radians(angle)), L / 4
        truth.append(Drawn(pips, ((x - ux * q, y - uy * q), (x + ux * q, y + uy * q)), (x, y)))
    return finish(canvas, rng), truth


def with_wall(x: float, y: float, angle: float) -> Box:
    """The rectangle around a face and its wall, as a blob's outline gives it: longer and wider
    than the face, its middle halfway to the wall's."""
    a = math.radians(angle)
    along = abs(OFF[0] * math.cos(a) + OFF[1] * math.sin(a))
    across = abs(-OFF[0] * math.sin(a) + OFF[1] * math.cos(a))
    return Box(x + OFF[0] / 2, y + OFF[1] / 2, L + along, W + across, angle)


def one_tile(seed: int, face_down: bool = False) -> tuple[np.ndarray, float, float, float]:
    """A frame of one walled tile (a back when ``face_down``): the image, the face's centre and
    the direction of its axis in degrees."""
    image, truth = walled(np.random.default_rng(seed), 0 if face_down else 1, face_down=int(face_down))
    x, y = truth[0].center
    return image, x, y, math.degrees(math.atan2(truth[0].halves[1][1] - y, truth[0].halves[1][0] - x))


@pytest.mark.parametrize("seed", range(6))
def test_tiles_showing_their_side_wall_are_all_read(seed: int) -> None:
    # Without the divider, one or two tiles in most of these frames were read unsure: their
    # rectangles took in the wall, and the halves fell off the pips.
    image, truth = walled(np.random.default_rng(4100 + seed), 8)
    assert problems(run(image), truth) == []


@pytest.mark.parametrize("seed", range(4))
def test_the_rectangle_is_centred_on_the_divider_and_fitted_to_the_face(seed: int) -> None:
    image, x, y, angle = one_tile(4200 + seed)
    found = on_divider(image, with_wall(x, y, angle), VisionConfig())
    assert found
    assert math.dist((found.cx, found.cy), (x, y)) < 0.04 * L
    assert found.length == pytest.approx(L, rel=0.08)
    assert found.width == pytest.approx(W, rel=0.1)
    assert abs((found.angle - angle + 90) % 180 - 90) < 3


def test_a_back_has_no_divider_to_find() -> None:
    image, x, y, angle = one_tile(4300, face_down=True)
    assert on_divider(image, with_wall(x, y, angle), VisionConfig()) is None
    for turn in range(0, 180, 15):  # nor any way round
        assert on_divider(image, Box(x, y, L, W, angle + turn), VisionConfig()) is None


def test_a_plain_table_has_no_divider_to_find() -> None:
    image = finish(table(np.random.default_rng(4400), FELT, shape=SHAPE), np.random.default_rng(4401))
    assert on_divider(image, Box(SHAPE[1] / 2, SHAPE[0] / 2, L, W, 30.0), VisionConfig()) is None


def touching_pair(rng: np.random.Generator) -> tuple[np.ndarray, list[Drawn]]:
    """Two tiles end to end (not a double among them), each showing its side wall, on felt."""
    canvas = table(rng, FELT, shape=SHAPE)
    pool = [t for t in NO_DOUBLE_BLANK if t[0] != t[1]]
    pair = [pool[i] for i in rng.permutation(len(pool))[:2]]
    angle = float(rng.uniform(0, 180))
    ux, uy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    centres = [(SHAPE[1] / 2 + (k - 0.5) * (L + 1) * ux, SHAPE[0] / 2 + (k - 0.5) * (L + 1) * uy) for k in (0, 1)]
    for x, y in centres:
        canvas = lay(canvas, sprite(None, WALL, DARK_INK), x + OFF[0], y + OFF[1], angle)
    truth = []
    for pips, (x, y) in zip(pair, centres, strict=True):
        canvas = lay(canvas, sprite(pips, IVORY, DARK_INK), x, y, angle)
        truth.append(Drawn(pips, ((x - ux * L / 4, y - uy * L / 4), (x + ux * L / 4, y + uy * L / 4)), (x, y)))
    return finish(canvas, rng), truth


def test_touching_tiles_showing_their_side_walls_are_read_more_often_and_never_wrongly() -> None:
    # Packed among touching tiles, a rectangle may straddle a seam: its divider is looked for
    # nearer its middle, with the packed tiles' stricter second look. Over a dozen pairs it reads
    # more tiles than without it, and no tile wrongly without doubt.
    right = {True: 0, False: 0}
    for seed in range(12):
        image, truth = touching_pair(np.random.default_rng(7700 + seed))
        for on in (True, False):
            found = detect(image, VisionConfig(divider_packed_reach=0.15 if on else 0.0))
            assert not [p for p in problems(found, truth) if "uncertain False" in p], seed
            right[on] += len(truth) - len(problems(found, truth))
    assert right[True] > right[False]


@pytest.mark.parametrize("seed", range(4))
def test_a_packed_rectangle_half_on_the_wall_is_slid_onto_the_face(seed: int) -> None:
    # A rectangle packed into a blob of touching tiles and their walls may sit across a face's
    # width half on its wall: the divider it shows is cut short. Slid a third of a width either
    # way, it shows the whole divider, and is centred on it and fitted to the face.
    image, x, y, angle = one_tile(4500 + seed)
    a = math.radians(angle)
    nx, ny = -math.sin(a), math.cos(a)
    side = 1.0 if nx * OFF[0] + ny * OFF[1] > 0 else -1.0  # towards the wall
    packed = Box(x + side * 0.45 * W * nx, y + side * 0.45 * W * ny, L, W, angle, True)
    found = on_divider(image, packed, VisionConfig(), 0.15)
    assert found
    assert math.dist((found.cx, found.cy), (x, y)) < 0.05 * L
    assert found.length == pytest.approx(L, rel=0.08) and found.width == pytest.approx(W, rel=0.15) and found.packed
    assert abs((found.angle - angle + 90) % 180 - 90) < 3
    unslid = on_divider(image, packed, VisionConfig(divider_slide=0.0), 0.15)
    assert not unslid or math.dist((unslid.cx, unslid.cy), (x, y)) > 0.05 * L



def along_pair(seed: int) -> tuple[np.ndarray, tuple[float, float], tuple[float, float], float]:
    """A :func:`touching_pair` drawn from ``seed``: the image, the centres of its first and second
    tile, and the direction from the first to the second in degrees."""
    image, truth = touching_pair(np.random.default_rng(seed))
    (x, y), (x1, y1) = truth[0].center, truth[1].center
    return image, (x, y), (x1, y1), math.degrees(math.atan2(y1 - y, x1 - x))


def fits_the_face(found: Box | None, x: float, y: float, width_tolerance: float) -> bool:
    return bool(found) and math.dist((found.cx, found.cy), (x, y)) < 0.05 * L \
        and abs(found.length - L) < 0.08 * L and abs(found.width - W) < width_tolerance * W


def test_a_rectangle_reaching_onto_the_next_tile_is_fitted_to_the_face_from_its_width() -> None:
    # A rectangle packed round a tile and part of the next one end to end is too long for the
    # face fitted near its own length: it is fitted from its width, in the set's proportions.
    # (In a frame or two of ten the face is fitted with its wall, as it is without stretching.)
    fitted = {"length": 0, "": 0}
    for seed in range(10):
        image, (x, y), _, angle = along_pair(7800 + seed)
        ux, uy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        # The face and its wall, and 0.6 of the next tile's length.
        long = Box(x + OFF[0] / 2 + 0.3 * L * ux, y + OFF[1] / 2 + 0.3 * L * uy, 1.6 * L, W, angle)
        for stretch in fitted:
            fitted[stretch] += fits_the_face(on_divider(image, long, VisionConfig(), stretch=stretch), x, y, 0.15)
    assert fitted == {"length": pytest.approx(10, abs=2), "": 0}


def test_a_rectangle_too_narrow_for_the_face_is_fitted_from_its_length() -> None:
    # A rectangle fitted to a face cut by a shadow along its side is too narrow: the face's
    # sides are looked for as far as its length, in the set's proportions, reaches.
    fitted = {"width": 0, "": 0}
    for seed in range(10):
        image, x, y, angle = one_tile(4600 + seed)
        narrow = Box(x, y, L, 0.7 * W, angle)
        for stretch in fitted:
            fitted[stretch] += fits_the_face(on_divider(image, narrow, VisionConfig(), stretch=stretch), x, y, 0.1)
    assert fitted == {"width": pytest.approx(10, abs=2), "": 0}


def test_a_packed_rectangle_a_quarter_tile_off_its_face_is_put_back_on_its_divider() -> None:
    # Packed against a neighbour's side wall, a rectangle may sit a quarter of a tile off its
    # face, beyond the packed reach. As far as a lone tile's reach, a line that ends inside the
    # rectangle at both sides is a divider (a seam between touching tiles runs right across).
    put_back = {"packed reach": 0, "whole": 0}
    for seed in range(6):
        image, (x, y), _, angle = along_pair(7900 + seed)
        ux, uy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        off = Box(x + 0.22 * L * ux, y + 0.22 * L * uy, L, W, angle, True)
        put_back["packed reach"] += fits_the_face(on_divider(image, off, VisionConfig(), 0.15), x, y, 0.15)
        put_back["whole"] += fits_the_face(on_divider(image, off, VisionConfig(), 0.25, whole=True), x, y, 0.15)
    assert put_back["whole"] >= 5 and put_back["packed reach"] <= 1


def test_a_seam_is_no_whole_divider() -> None:
    # A rectangle centred on the seam between two tiles end to end: the seam is the clearest
    # line within reach, and it runs right across the rectangle.
    for seed in range(4):
        image, (x, y), (x1, y1), angle = along_pair(7950 + seed)
        seam = Box((x + x1) / 2, (y + y1) / 2, L, W, angle, True)
        assert on_divider(image, seam, VisionConfig(), 0.25, whole=True) is None
