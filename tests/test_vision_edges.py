"""``referee.vision.refine.on_edges``: a tile's rectangle moved onto the sharp outline of its
face. Tiles are drawn with known truth (the drawing of ``test_vision_detect``) on a pale table,
with a soft shadow on one side and a darker rim round the face (its bevel and side wall), and
boxed half onto their shadows, as the finding stages leave a pale face whose shadow has its
colour; fitted to their edges, the boxes come back onto their faces and read them."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest
from test_vision_detect import DARK_INK, IVORY, NO_DOUBLE_BLANK, L, W, finish, lay, sprite, table
from test_vision_read import moved, read_at

from referee.render.generate import Options
from referee.render.stills import render_still
from referee.vision import VisionConfig, detect
from referee.vision.evaluate import match, parse_truth
from referee.vision.read import Reading, doubted_blank, gather, rectify
from referee.vision.reading import _read_fitted
from referee.vision.refine import on_edges
from referee.vision.split import Box

PALE_TABLE = (206, 222, 232)  # BGR: a table paler than the ivory faces, as pale as their shadows
SHAPE = (360, 480)


def shadowed(rng: np.random.Generator, pips: tuple[int, int]) -> tuple[np.ndarray, Box, float]:
    """A frame holding one drawn ivory tile at a random angle on a pale table: a soft shadow
    (the table darkened by 15%, to about the face's colour) falls across to one side of it, a
    sliver of darker side wall shows on that side, and a thin rim rings the face. The tile's
    true box, and the side (+1 or -1, across) its shadow falls to."""
    x, y, angle = SHAPE[1] / 2, SHAPE[0] / 2, float(rng.uniform(0, 360))
    side = float(rng.choice([-1, 1]))
    a = math.radians(angle)
    vx, vy = -math.sin(a) * side, math.cos(a) * side
    shade = np.zeros(SHAPE, np.float32)
    cast = Box(x + vx * 0.45 * W, y + vy * 0.45 * W, L * 1.05, W * 1.1, angle)
    cv2.fillPoly(shade, [np.round(cast.corners()).astype(np.int32)], 1.0)
    shade = cv2.GaussianBlur(shade, (0, 0), 0.12 * W)
    canvas = table(rng, PALE_TABLE, shape=SHAPE) * (1 - 0.15 * shade[..., None])
    wall = np.full((W, L, 3), [round(0.7 * c) for c in IVORY], np.uint8)
    face = sprite(pips, IVORY, DARK_INK)
    canvas = lay(canvas, (wall, face[1]), x + vx * 0.08 * W, y + vy * 0.08 * W, angle)
    canvas = lay(canvas, face, x, y, angle)
    rim = Box(x, y, L - 1.5, W - 1.5, angle).corners()
    cv2.polylines(canvas, [np.round(rim * 16).astype(np.int32)], True, [0.75 * c for c in IVORY], 2, cv2.LINE_AA, 4)
    return finish(canvas, rng), Box(x, y, float(L), float(W), angle), side


def onto_shadow(rng: np.random.Generator, truth: Box, side: float) -> Box:
    """The true box slid a quarter to nearly half its width onto the shadow, a little along,
    a few per cent off in size and a degree or two off in angle."""
    off = moved(truth, float(rng.uniform(-0.06, 0.06)), side * float(rng.uniform(0.25, 0.45)))
    return dataclasses.replace(off, length=L * float(rng.uniform(0.95, 1.05)), width=W * float(rng.uniform(0.95, 1.1)),
                               angle=truth.angle + float(rng.uniform(-2, 2)))


def _gap(found: Box, truth: Box) -> float:
    return math.dist((found.cx, found.cy), (truth.cx, truth.cy)) / truth.length


@pytest.mark.parametrize("seed", range(3))
def test_a_box_slid_onto_a_tiles_shadow_is_put_back_on_its_face(seed: int) -> None:
    config = VisionConfig()
    rng = np.random.default_rng(9600 + seed)
    for pips in [NO_DOUBLE_BLANK[i] for i in rng.permutation(len(NO_DOUBLE_BLANK))[:6]]:
        image, truth, side = shadowed(rng, pips)
        off = onto_shadow(rng, truth, side)
        contrast = float(gather(rectify(image, truth.corners(), config.cell_px), config).pips.max())
        assert read_at(image, off, config, contrast).confidence < config.min_confidence  # off its face: unsure
        found = on_edges(image, off, config)
        assert found is not None, pips
        assert _gap(found, truth) < 0.04, (pips, _gap(off, truth), _gap(found, truth))
        assert abs(found.length / L - 1) < 0.1 and abs(found.width / W - 1) < 0.15, (pips, found)  # a wall may show
        got = read_at(image, found, config, contrast)
        assert got.pips == pips and got.confidence >= config.min_confidence, (pips, got)


def test_a_plain_table_shows_no_edges_and_the_fit_can_be_turned_off() -> None:
    config = VisionConfig()
    rng = np.random.default_rng(9610)
    plain = finish(table(rng, PALE_TABLE, shape=SHAPE), rng)
    box = Box(SHAPE[1] / 2, SHAPE[0] / 2, float(L), float(W), 30.0)
    assert on_edges(plain, box, config) is None
    image, truth, side = shadowed(rng, (3, 5))
    off = onto_shadow(rng, truth, side)
    assert on_edges(image, off, config) is not None
    assert on_edges(image, off, dataclasses.replace(config, edge_rounds=0)) is None


def test_the_edge_settings_are_checked() -> None:
    for bad in ({"edge_rounds": -1}, {"edge_across": 0.0}, {"edge_along": 1.5}, {"edge_size": 0.5},
                {"edge_stand": 0.5}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            VisionConfig(**bad)  # type: ignore[arg-type]


def test_a_refitted_box_gives_no_blank_the_first_look_saw_pips_on_or_doubted() -> None:
    # A second look on a fitted box may read a half's faint pips as a sure blank (a 33-pixel
    # coloured 5-6 read a sure 5-0 on a box fitted to its edges): a blank the first reading
    # doubted, or where it saw pips, does not stand.
    config = VisionConfig()
    rng = np.random.default_rng(9620)
    image, truth, side = shadowed(rng, (0, 4))
    contrast = float(gather(rectify(image, truth.corners(), config.cell_px), config).pips.max())
    fitted = on_edges(image, onto_shadow(rng, truth, side), config)
    assert fitted is not None
    sure = _read_fitted(image, truth, fitted, contrast, config, None, True, True, Reading((0, 4), 0.3, (0.9, 0.3)))
    assert sure is not None and sure[0].pips == (0, 4)
    for first in (Reading((2, 4), 0.3, (0.3, 0.9)), Reading((0, 4), 0.3, (0.2, 0.9))):
        assert doubted_blank((0, 4), first, config.min_confidence)
        assert _read_fitted(image, truth, fitted, contrast, config, None, True, True, first) is None
    assert not doubted_blank((0, 4), Reading(None, 0.0), config.min_confidence)


def test_a_rendered_table_reads_more_tiles_on_their_edges() -> None:
    # A rendered 1920 x 1080 frame (seed 5519, frame 30 of a scattered set): ivory tiles on a
    # pale laminate whose shadows have the faces' colour; boxes took a shadow for half a face and
    # read unsure. Fitted to the faces' sharp outlines, more are read, and none wrongly.
    shot = render_still("scattered", np.random.default_rng([5519, 30]), Options(tilt_max=20.0))
    truth = parse_truth(shot.truth)
    fitted = match(detect(shot.image), truth)
    unfitted = match(detect(shot.image, VisionConfig(edge_rounds=0)), truth)
    assert fitted.wrong == 0
    assert fitted.right > unfitted.right
