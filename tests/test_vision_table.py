"""The table's model on drawn Lab planes and rendered frames with known truth: which seed the
surface is fitted from, the lamp's patch it cannot follow, and what stays apart from it (the
tiles)."""

from __future__ import annotations

import numpy as np
import pytest

from referee.vision.config import VisionConfig
from referee.vision.segment import foreground
from referee.vision.table import TableModel, fit_table

IVORY = (176.0, 125.0, 146.0)  # unlit Lab of ivory faces, as measured on a real photo


def test_a_wood_table_between_strips_of_plain_floor_is_the_table() -> None:
    # A rendered 1280 x 720 frame (seed 9511, frame 4 of a line set): black tiles on a wood table,
    # the dark floor showing along two sides. The wood's grain and planks part it into several
    # colours in small patches, the plain floor made the largest one-colour region, and the
    # table model fitted to it took the whole table for foreground: not a tile was found. The
    # floor's model explains little of the frame from a seed surrounding nothing; the wood's,
    # tried next, explains far more.
    from referee.render.generate import Options
    from referee.render.stills import render_still
    from referee.vision import detect
    from referee.vision.evaluate import pairs, parse_truth

    shot = render_still("line", np.random.default_rng([9511, 4]), Options(size=(1280, 720), tilt_max=20.0))
    truth = parse_truth(shot.truth)
    assert len(pairs(detect(shot.image), truth)) >= len(truth.tiles) // 2


def test_a_wood_table_the_floor_surrounds_is_the_table() -> None:
    # A rendered 4032 x 3024 frame (seed 5516, frame 31 of a reveal set): ivory tiles on a lit
    # wood table filling under half the frame, a dark floor round it on three sides. The floor
    # made the largest one-colour region, and its hull, round the table, spans most of the
    # frame: the table model was fitted to the floor, the table was foreground, and the frame
    # was called occluded with its 18 tiles lost. A plank colour lying inside the floor's hull
    # explains half again as much of the frame: that is the table.
    from referee.render.generate import Options
    from referee.render.stills import render_still
    from referee.vision import detect
    from referee.vision.evaluate import pairs, parse_truth

    shot = render_still("reveal", np.random.default_rng([5516, 31]), Options(tilt_max=20.0))
    truth = parse_truth(shot.truth)
    found = detect(shot.image)
    assert not found.occluded
    assert len(pairs(found, truth)) == len(truth.tiles)


def test_a_wood_table_beside_a_strip_of_floor_that_explains_less_is_the_table() -> None:
    # A rendered 1920 x 1080 frame (seed 712698, frame 22 of a line set): coloured tiles on a
    # wood table, a plain dark floor in a strip along one side. The floor made the largest
    # one-colour region and its model explained over a quarter of the frame, so no other seed
    # was tried: the table was foreground and the frame was called occluded, its 24 tiles lost.
    # A plank colour whose model explains half again as much is the table.
    from referee.render.generate import Options
    from referee.render.stills import render_still
    from referee.vision import detect
    from referee.vision.evaluate import match, parse_truth

    shot = render_still("line", np.random.default_rng([712698, 22]), Options(tilt_max=20.0))
    found = detect(shot.image)
    assert not found.occluded
    score = match(found, parse_truth(shot.truth))
    assert score.wrong == 0 and score.right >= score.tiles - 2


def test_of_the_seeds_after_the_floor_the_one_explaining_most_is_the_table() -> None:
    # A rendered 1280 x 720 frame (seed 88001, frame 12 of a line set): black tiles in a line on
    # a wood table, a plain dark floor round it on three sides. The floor made the largest
    # one-colour region, its model explaining 0.16 of the frame from a hull spanning a quarter
    # of it; each plank colour's model explained 0.26 to 0.31, short of the twice as much each
    # had to reach in turn. The floor stayed the table and not one of the 27 tiles was found.
    from referee.render.generate import Options
    from referee.render.stills import render_still
    from referee.vision import detect
    from referee.vision.evaluate import match, parse_truth

    shot = render_still("line", np.random.default_rng([88001, 12]), Options(tilt_max=20.0))
    found = detect(shot.image)
    assert not found.occluded
    score = match(found, parse_truth(shot.truth))
    assert score.wrong == 0 and score.matched >= 0.8 * score.tiles and score.right >= score.tiles // 2


LAMINATE = (176.0, 128.0, 134.0)  # unlit Lab of a pale laminate table


def lit_table(rng: np.random.Generator, strength: float, shape: tuple[int, int] = (540, 960)
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A laminate table under a lamp off to one side (the renderer's lamp: lightness falling
    off as cos cubed over half the frame's width, ``strength`` of it the lamp's), whose peak the
    quadratic cannot follow, with a dozen ivory tiles drawn on it: the Lab planes, the table's
    true colour and the tiles' mask."""
    h, w = shape
    ys, xs = np.mgrid[:h, :w].astype(np.float32)
    r2 = ((xs - 0.75 * w) ** 2 + (ys - 0.3 * h) ** 2) / (0.5 * w) ** 2
    truth = np.empty((h, w, 3), np.float32)
    truth[...] = LAMINATE
    truth[..., 0] *= (1.0 - strength) + strength / (1.0 + r2) ** 1.5
    lab = truth + rng.normal(0, 1.5, truth.shape).astype(np.float32)
    tiles = np.zeros((h, w), bool)
    for _ in range(12):
        x, y = int(rng.integers(60, w - 120)), int(rng.integers(40, h - 80))
        tiles[y:y + 30, x:x + 60] = True
    lab[tiles] = np.asarray(IVORY, np.float32) + rng.normal(0, 1.5, (int(tiles.sum()), 3)).astype(np.float32)
    return lab, truth, tiles


@pytest.mark.parametrize("seed", [1, 3, 4])
def test_a_lamps_bright_patch_joins_the_table_model(seed: int) -> None:
    # scattered-7130425-0024: a lamp lit one side of a laminate table 12 L units above the
    # quadratic surface; that patch was foreground, taken for faces reaching in from the edge,
    # and the frame was called occluded. (Where the lamp's light parts the table into bands of
    # one colour each, the surface is fitted from one band and misses the rest: seeds 2 and 5
    # draw such tables, which this does not mend.)
    rng = np.random.default_rng(seed)
    lab, truth, tiles = lit_table(rng, strength=0.3)
    before = lab.copy()
    model = fit_table(lab, VisionConfig())
    assert np.array_equal(lab, before), "the input was modified"
    assert model.lamp is not None

    def off(m: TableModel) -> float:
        """The share of the table the model misses by more than three of its spreads."""
        return float((np.abs(m.colour()[..., 0] - truth[..., 0])[~tiles] > 3 * m.spread).mean())

    plain = fit_table(lab, VisionConfig(lamp_blur=0))
    assert plain.lamp is None
    assert off(plain) > 0.05
    assert off(model) < 0.01
    # The tiles stay apart from the table: the model does not rise to meet them.
    assert (foreground(lab, model.colour(), model.spread)[tiles] > 4 * model.spread).mean() > 0.95


def test_a_table_without_a_lamp_gets_no_patch() -> None:
    # The quadratic follows an even fall-off: what is left is the table's own texture, and the
    # model stays the quadratic surface alone (its readings unchanged).
    rng = np.random.default_rng(3)
    lab, _, _ = lit_table(rng, strength=0.0)
    assert fit_table(lab, VisionConfig()).lamp is None


@pytest.mark.parametrize("value", [-1.0, 49.0])
def test_a_bad_lamp_blur_is_refused(value: float) -> None:
    with pytest.raises(ValueError, match="lamp_blur"):
        VisionConfig(lamp_blur=value)


FLOOR = (82.0, 128.0, 135.0)  # a plain grey floor round the table
PLANKS = ((84.0, 134.0, 155.0), (100.0, 136.0, 159.0), (69.0, 133.0, 150.0))  # a wood table's shades


def planks_in_floor(rng: np.random.Generator, shape: tuple[int, int] = (540, 960)) -> np.ndarray:
    """A wood table of nine planks in three shades, the floor round it on every side (colours
    measured on rendered hand 9304-000's frames, 4032 x 3024 shrunk to work size)."""
    h, w = shape
    lab = np.empty((h, w, 3), np.float32)
    lab[...] = FLOOR
    x0, x1, y0, y1 = int(0.22 * w), int(0.78 * w), int(0.25 * h), int(0.9 * h)
    width = (x1 - x0) / 9
    for k in range(9):
        lab[y0:y1, int(x0 + k * width):int(x0 + (k + 1) * width)] = PLANKS[k % 3]
    return lab + rng.normal(0, 2.0, lab.shape).astype(np.float32)


@pytest.mark.parametrize("seed", range(3))
def test_the_table_colour_the_frames_before_saw_picks_the_table_over_the_floor(seed: int) -> None:
    # Rendered hand 9304-000: black tiles on a wood table, the floor round it. Which made the
    # largest one-colour region, the floor or a plank shade, changed with the sensor's noise
    # from frame to frame; fitted to the floor, the table was foreground and nothing was read,
    # every other frame. Told the table's colour the frames before saw (a session's prior), the
    # model of the region near it in colour stands.
    lab = planks_in_floor(np.random.default_rng(seed))
    config = VisionConfig()
    assert np.linalg.norm(fit_table(lab, config).mean() - FLOOR) < 4  # on its own: the floor
    told = fit_table(lab, config, near=PLANKS[0]).mean()
    assert np.linalg.norm(told - PLANKS[0]) < config.prior_table
    # A colour no region is near (another table: the camera was moved) changes nothing, nor
    # does prior_table 0.
    assert np.linalg.norm(fit_table(lab, config, near=(200.0, 128.0, 128.0)).mean() - FLOOR) < 4
    off = VisionConfig(prior_table=0.0)
    assert np.linalg.norm(fit_table(lab, off, near=PLANKS[0]).mean() - FLOOR) < 4
    with pytest.raises(ValueError, match="prior_table"):
        VisionConfig(prior_table=-1.0)
