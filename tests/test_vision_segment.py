"""Single segmentation functions on drawn Lab planes with known truth (the scikit-image pattern):
what each adds to the tiles' mask, and what it leaves alone."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.vision.config import VisionConfig
from referee.vision.facecolour import _closed_blobs
from referee.vision.segment import Colour, glare_gaps, pip_rims, pip_spots

LENGTH = 120.0  # the tile length in the drawn planes' pixels
PAPER = (180.0, 132.0, 125.0)  # unlit Lab, as measured on a real photo of ivory on white paper
IVORY = (176.0, 125.0, 146.0)
BLACK_PIP = (40.0, 128.0, 130.0)


def colour(lab: tuple[float, float, float], rng: np.random.Generator) -> Colour:
    return Colour.of((np.asarray(lab, np.float32) + rng.normal(0, 2, (500, 3))).astype(np.float32))


def plane(shape: tuple[int, int], lab: tuple[float, float, float], rng: np.random.Generator) -> np.ndarray:
    return (np.asarray(lab, np.float32) + rng.normal(0, 1.5, (*shape, 3))).astype(np.float32)


def disc(shape: tuple[int, int], centre: tuple[int, int], radius: float) -> np.ndarray:
    ys, xs = np.mgrid[:shape[0], :shape[1]]
    return np.hypot(xs - centre[0], ys - centre[1]) <= radius


def rimmed_pip(rng: np.random.Generator, rim_lab: tuple[float, float, float],
               around: tuple[float, float, float] = IVORY) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A pip (radius 0.05 of a tile) in a rim (out to 0.075) on a field of ``around``: the planes,
    the pip and the rim as masks."""
    shape = (100, 100)
    lab = plane(shape, around, rng)
    pip = disc(shape, (50, 50), 0.05 * LENGTH)
    rim = disc(shape, (50, 50), 0.075 * LENGTH) & ~pip
    lab[rim] = np.asarray(rim_lab, np.float32)
    lab[pip] = np.asarray(BLACK_PIP, np.float32)
    return lab, pip, rim


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_pips_rim_of_the_faces_hue_is_added(seed: int) -> None:
    # herzog_8: round each pip a rim darker than face and paper, of the face's hue at half its
    # chroma; the face mask left it out and a row of pips cut a face in two.
    rng = np.random.default_rng(seed)
    rim_lab = (150.0, 126.0, 135.0)  # measured on the photo's rims
    lab, _, rim = rimmed_pip(rng, rim_lab)
    before = lab.copy()
    out = pip_rims(lab, colour(IVORY, rng), colour(PAPER, rng), LENGTH, VisionConfig())
    assert out.dtype == np.uint8 and out.shape == lab.shape[:2]
    assert np.array_equal(lab, before), "the input was modified"
    assert out[rim].mean() > 0.95
    # Nothing beyond the rim's reach (the pip grown by pip_rim of a tile), whatever its colour.
    reach = disc(lab.shape[:2], (50, 50), 0.05 * LENGTH + 0.06 * LENGTH / 2 + 1.5)
    assert not out[~reach].any()


def test_a_dark_speck_on_red_felt_adds_nothing() -> None:
    # A dark fleck in the shadow between two tiles on red felt is as small as a pip, but round it
    # lies the felt's red, not the face's hue: nothing bridges the gap.
    rng = np.random.default_rng(4)
    felt = (62.0, 160.0, 140.0)
    lab, _, _ = rimmed_pip(rng, (50.0, 155.0, 138.0), around=felt)
    out = pip_rims(lab, colour(IVORY, rng), colour(felt, rng), LENGTH, VisionConfig())
    assert not out.any()


def test_large_dark_areas_are_not_pips() -> None:
    # A black tile's face (or a dark stain) is far larger than a pip: it grows no rim.
    rng = np.random.default_rng(5)
    shape = (100, 100)
    lab = plane(shape, IVORY, rng)
    lab[20:80, 20:80] = np.asarray(BLACK_PIP, np.float32)
    lab[16:84, 16:84][~np.pad(np.ones((60, 60), bool), 4)] = np.asarray((150.0, 126.0, 135.0), np.float32)
    assert not pip_rims(lab, colour(IVORY, rng), colour(PAPER, rng), LENGTH, VisionConfig()).any()


def test_a_face_without_hue_adds_nothing_and_pip_rim_zero_turns_it_off() -> None:
    rng = np.random.default_rng(6)
    lab, _, rim = rimmed_pip(rng, (150.0, 126.0, 135.0))
    grey = (200.0, 128.0, 129.0)
    assert not pip_rims(lab, colour(grey, rng), colour(PAPER, rng), LENGTH, VisionConfig()).any()
    off = VisionConfig(pip_rim=0.0)
    assert not pip_rims(lab, colour(IVORY, rng), colour(PAPER, rng), LENGTH, off).any()
    assert pip_rims(lab, colour(IVORY, rng), colour(PAPER, rng), LENGTH, VisionConfig())[rim].any()


def face_with_pips(rng: np.random.Generator,
                   broken: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """An ivory face (a tile 120 long, 60 wide) on paper with three black pips, one of them
    0.04 of a tile from the face's edge; with ``broken``, the face mask misses a strip along
    that edge (a shadowed bevel), so the pip's hole opens onto the table. The planes, the face
    mask, the foreground and the pips."""
    shape = (100, 180)
    lab = plane(shape, PAPER, rng)
    face = np.zeros(shape, bool)
    face[20:80, 30:150] = True
    lab[face] = np.asarray(IVORY, np.float32)
    pips = [disc(shape, c, 0.05 * LENGTH) for c in ((60, 31), (90, 50), (120, 69))]
    for pip in pips:
        lab[pip] = np.asarray(BLACK_PIP, np.float32)
    mask = (face & ~np.logical_or.reduce(pips)).astype(np.uint8)
    if broken:
        mask[20:26, 30:150] = 0
    return lab, mask, face.astype(np.uint8), pips


@pytest.mark.parametrize("seed", [7, 8, 9])
def test_pips_by_a_broken_edge_are_added_to_the_face(seed: int) -> None:
    # herzog_8: ivory on white paper, the face mask broken along a shadowed bevel beside a pip:
    # its hole opens onto the table, filling holes leaves it out and the face falls apart.
    rng = np.random.default_rng(seed)
    lab, mask, loose, pips = face_with_pips(rng, broken=True)
    before = (lab.copy(), mask.copy())
    out = pip_spots(mask, loose, lab, colour(IVORY, rng), LENGTH, VisionConfig())
    assert np.array_equal(lab, before[0]) and np.array_equal(mask, before[1]), "the input was modified"
    assert out.dtype == np.uint8 and out.shape == mask.shape
    for pip in pips:
        assert out[pip].mean() > 0.95
    # Each pip grown by its rim, no further: nothing far from a pip.
    reach = np.logical_or.reduce([cv2.dilate(p.astype(np.uint8), np.ones((17, 17), np.uint8)) > 0 for p in pips])
    assert not out[~reach].any()


def test_dark_spots_on_the_table_gaps_and_large_stains_are_not_pips() -> None:
    rng = np.random.default_rng(10)
    shape = (100, 180)
    lab = plane(shape, PAPER, rng)
    lab[disc(shape, (40, 50), 6)] = np.asarray(BLACK_PIP, np.float32)  # a dark speck on the bare table
    lab[20:80, 100:104] = np.asarray(BLACK_PIP, np.float32)  # a dark gap, long and thin
    lab[20:80, 120:175] = np.asarray(BLACK_PIP, np.float32)  # a dark stain far larger than a pip
    mask = np.zeros(shape, np.uint8)
    mask[15:85, 105:119] = 1  # a face beside the gap and the stain
    loose = np.ones(shape, np.uint8)
    assert not pip_spots(mask, loose, lab, colour(IVORY, rng), LENGTH, VisionConfig()).any()


def test_pip_ring_zero_turns_pip_spots_off() -> None:
    rng = np.random.default_rng(11)
    lab, mask, loose, _ = face_with_pips(rng, broken=True)
    assert pip_spots(mask, loose, lab, colour(IVORY, rng), LENGTH, VisionConfig()).any()
    assert not pip_spots(mask, loose, lab, colour(IVORY, rng), LENGTH, VisionConfig(pip_ring=0.0)).any()


# Unlit Lab measured on rendered hands 9301-003 and 9301-009, where a streak of glare cut a
# black tile in two and the tile was lost.
WOOD = (122.0, 136.0, 151.0)
FELT = (95.0, 99.0, 146.0)
BLACK = (20.0, 128.0, 128.0)
GLARE_EDGE = (114.0, 129.0, 130.0)  # between the black face and the glare: the wood's lightness
WIDTH = 60  # the tile width in the drawn planes' pixels


def streaked_tile(rng: np.random.Generator, table: tuple[float, float, float], streak: tuple[float, float, float],
                  face: tuple[float, float, float] = BLACK) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A face (120 by 60) on ``table``, a streak of ``streak`` 8 pixels wide across it at a
    slant, which the face mask leaves out: the planes, the mask, the foreground (the face and
    the streak) and the streak."""
    lab, tile, across = slanted_faces(rng, 180, table, face)
    band = tile & (across <= 4)
    lab[band] = np.asarray(streak, np.float32)
    return lab, (tile & ~band).astype(np.uint8), tile.astype(np.uint8), band


def slanted_faces(rng: np.random.Generator, width: int, table: tuple[float, float, float],
                  face: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Planes 100 by ``width`` of ``table`` with a band of ``face`` 60 high, 30 pixels in from
    either end: the planes, the face's pixels, and each pixel's distance across a slanting line
    through the middle."""
    lab = plane((100, width), table, rng)
    tile = np.zeros((100, width), bool)
    tile[20:80, 30:width - 30] = True
    lab[tile] = np.asarray(face, np.float32)
    ys, xs = np.mgrid[:100, :width]
    return lab, tile, np.abs((xs - width / 2) - 0.5 * (ys - 50))


@pytest.mark.parametrize("seed", [12, 13, 14])
@pytest.mark.parametrize(("table", "streak"), [(WOOD, GLARE_EDGE), (FELT, (150.0, 128.0, 131.0))])
def test_a_streak_of_glare_across_a_black_face_is_face(seed: int, table: tuple[float, float, float],
                                                       streak: tuple[float, float, float]) -> None:
    rng = np.random.default_rng(seed)
    lab, mask, fg, band = streaked_tile(rng, table, streak)
    before = (lab.copy(), mask.copy(), fg.copy())
    out = glare_gaps(mask, fg, lab, colour(BLACK, rng), colour(table, rng), WIDTH, VisionConfig())
    assert all(np.array_equal(a, b) for a, b in zip((lab, mask, fg), before, strict=True)), "the input was modified"
    assert out.dtype == np.uint8 and out.shape == mask.shape
    assert out[band].mean() > 0.95
    assert not out[fg == 0].any(), "nothing outside the tile"
    assert not glare_gaps(mask, fg, lab, colour(BLACK, rng), colour(table, rng), WIDTH,
                          VisionConfig(glare_gap=0.0)).any(), "glare_gap 0 turns it off"


def test_backs_lying_close_are_not_joined() -> None:
    # Two black backs on felt 6 pixels apart: between them lie pixels where back and felt blur
    # into each other (measured on hand 9301-009's boneyard), a shadow on the felt, and the felt.
    rng = np.random.default_rng(15)
    face, felt = colour(BLACK, rng), colour(FELT, rng)
    for gap in ((66.0, 112.5, 136.5), (70.0, 99.0, 146.0), FELT):
        lab = plane((100, 200), FELT, rng)
        mask = np.zeros((100, 200), np.uint8)
        mask[20:80, 20:80] = mask[20:80, 86:146] = 1
        lab[mask > 0] = np.asarray(BLACK, np.float32)
        lab[20:80, 80:86] = np.asarray(gap, np.float32)
        fg = mask.copy()
        fg[20:80, 80:86] = 1  # differs from the felt: the test is the colour's, not the foreground's
        assert not glare_gaps(mask, fg, lab, face, felt, WIDTH, VisionConfig()).any(), gap
    # The felt itself between them, where it does not differ from the table, is never taken in.
    lab = plane((100, 200), FELT, rng)
    lab[20:80, 80:86] = np.asarray((150.0, 128.0, 131.0), np.float32)
    assert not glare_gaps(mask, mask, lab, face, felt, WIDTH, VisionConfig()).any()


def test_a_seam_between_whole_tiles_stays_open() -> None:
    # Two black tiles end to end on wood, their seam lit grey as a glare's edge is (black tiles
    # on dark cloth: their bevels passed every colour test). Each side is a whole tile: the seam
    # is no cut across a face, and stays open; so does a short notch by a speck.
    rng = np.random.default_rng(17)
    lab = plane((100, 300), WOOD, rng)
    mask = np.zeros((100, 300), np.uint8)
    mask[20:80, 20:140] = mask[20:80, 146:266] = 1
    lab[mask > 0] = np.asarray(BLACK, np.float32)
    lab[20:80, 140:146] = np.asarray(GLARE_EDGE, np.float32)
    mask[85:95, 20:30] = 1  # a speck below the first tile, a grey notch between them
    lab[80:85, 20:30] = np.asarray(GLARE_EDGE, np.float32)
    fg = np.zeros_like(mask)
    fg[15:98, 15:270] = 1
    assert not glare_gaps(mask, fg, lab, colour(BLACK, rng), colour(WOOD, rng), WIDTH, VisionConfig()).any()


GLARE_CORE = (185.0, 128.0, 129.0)  # the streak's white middle (hand 9305-001): far from the table


def streaked_chain(rng: np.random.Generator, core: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Three black tiles end to end on wood (one blob of the mask, 360 by 60), a streak of glare
    at a slant across the middle one: its white core (in the mask when ``core``, else left
    out as the rest of the streak is) between two strips of the table's lightness, which the
    mask leaves out. The planes, the mask, the foreground and the two strips."""
    lab, tiles, across = slanted_faces(rng, 420, WOOD, BLACK)
    middle = tiles & (across <= 3)
    strips = tiles & (across > 3) & (across <= 7)
    lab[middle] = np.asarray(GLARE_CORE, np.float32)
    lab[strips] = np.asarray(GLARE_EDGE, np.float32)
    mask = tiles & ~strips & (core | ~middle)
    return lab, mask.astype(np.uint8), tiles.astype(np.uint8), strips


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_a_streak_of_glare_across_a_tile_in_a_chain_is_face(seed: int) -> None:
    # The streak's white core is far from the table, so in the mask, and joins the pieces the
    # strips either side of it leave: no piece is too small to be a tile, but the strips run
    # beside the glare itself, and are filled (hand 9305-001 lost a 6-3 in a line so).
    rng = np.random.default_rng(seed)
    lab, mask, fg, strips = streaked_chain(rng, core=True)
    out = glare_gaps(mask, fg, lab, colour(BLACK, rng), colour(WOOD, rng), WIDTH, VisionConfig())
    assert out[strips].mean() > 0.95
    assert not out[fg == 0].any(), "nothing outside the tiles"


def test_a_lit_seam_in_a_chain_without_a_core_stays_open() -> None:
    # The same strips without the white core between them (a seam's lit bevels between whole
    # tiles): nothing lighter than the table lies beside them, and they stay open.
    rng = np.random.default_rng(24)
    lab, mask, fg, _ = streaked_chain(rng, core=False)
    lab[mask == 0] = np.where(fg[mask == 0, None] > 0, np.asarray(GLARE_EDGE, np.float32), lab[mask == 0])
    assert not glare_gaps(mask, fg, lab, colour(BLACK, rng), colour(WOOD, rng), WIDTH, VisionConfig()).any()


def test_a_light_face_takes_in_no_glare_gap() -> None:
    # On ivory (real photos of ivory on white paper) the closing took in the faces' lit parts
    # and joined tiles lying side by side: glare there is near the face's own colour anyway.
    rng = np.random.default_rng(16)
    lab, mask, fg, _ = streaked_tile(rng, PAPER, (215.0, 124.0, 145.0), face=IVORY)
    assert not glare_gaps(mask, fg, lab, colour(IVORY, rng), colour(PAPER, rng), WIDTH, VisionConfig()).any()


def test_the_glare_settings_are_checked() -> None:
    for bad in ({"glare_gap": -0.1}, {"glare_gap": 1.0}, {"glare_tint": -1.0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            VisionConfig(**bad)


def test_a_class_labelled_over_its_own_box_gives_opencvs_labels() -> None:
    """The face colour labels each colour class over the class's bounding box only: the labels
    and the blobs' stats must be those of closing and labelling the whole window."""
    rng = np.random.default_rng(12)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    for trial in range(20):
        mask = np.zeros((120, 160), np.uint8)
        h, w = int(rng.integers(1, 120)), int(rng.integers(1, 160))
        y, x = int(rng.integers(0, 120 - h + 1)), int(rng.integers(0, 160 - w + 1))
        mask[y:y + h, x:x + w] = rng.random((h, w)) < rng.uniform(0.05, 0.9)
        count, comp, stats, _ = cv2.connectedComponentsWithStats(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel),
                                                                   connectivity=4)
        got_count, got_comp, got_stats = _closed_blobs(mask, kernel)
        assert got_count == count, trial
        assert np.array_equal(got_comp, comp), trial
        assert np.array_equal(got_stats[1:], stats[1:]), trial
    empty = _closed_blobs(np.zeros((5, 7), np.uint8), kernel)
    assert empty[0] == 1 and not empty[1].any()
