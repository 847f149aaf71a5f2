"""``referee.vision.facecolour``: the set's face colour and the tile length, from a frame's
foreground. Frames are drawn in Lab with known truth: tiles touching end to end (a line of
play), so no blob is shaped like one tile and the length comes from the arms' width."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.vision.config import VisionConfig
from referee.vision.facecolour import _chain_arms, face_colour

TABLE = (200.0, 128.0, 128.0)  # Lab: pale grey
FACE = (190.0, 128.0, 156.0)  # Lab: yellow ivory
PIP = (30.0, 128.0, 128.0)
L, W = 120, 60  # a tile, pixels
SHAPE = (480, 720)


def chain_pips(fg: np.ndarray) -> np.ndarray:
    """Where :func:`chain` drew the pips and dividers (0/1), in a frame of ``fg``'s shape."""
    marks = np.zeros(fg.shape, np.uint8)
    x0, y0 = (SHAPE[1] - 3 * L) // 2, (SHAPE[0] - W) // 2
    _marks(marks, x0, y0, 3, 1)
    return marks


def _marks(image: np.ndarray, x0: int, y0: int, tiles: int, ink: float | tuple[float, ...]) -> None:
    """Each tile's divider and three pips, drawn in ``ink``."""
    for t in range(tiles):
        cx = x0 + t * L
        cv2.line(image, (cx + L // 2, y0 + 8), (cx + L // 2, y0 + W - 9), ink, 3)
        for dx, dy in ((0.25, 0.3), (0.25, 0.7), (0.75, 0.5)):
            cv2.circle(image, (round(cx + dx * L), round(y0 + dy * W)), 5, ink, -1)


def chain(rng: np.random.Generator, tiles: int = 3, ragged: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A Lab frame (float32) of ``tiles`` tiles end to end across a pale table, each with a
    divider and a few pips, its outline made ``ragged``: every pixel within that many pixels of
    the chain's edge takes the face's or the table's colour at random (a photo's colour classes
    part in grain there); and its foreground (0/1: what differs from the table)."""
    lab = np.empty((*SHAPE, 3), np.float32)
    lab[:] = TABLE
    x0, y0 = (SHAPE[1] - tiles * L) // 2, (SHAPE[0] - W) // 2
    inside = np.zeros(SHAPE, np.uint8)
    cv2.rectangle(inside, (x0, y0), (x0 + tiles * L - 1, y0 + W - 1), 1, -1)
    lab[inside > 0] = FACE
    if ragged:
        k = np.ones((2 * ragged + 1, 2 * ragged + 1), np.uint8)
        band = (cv2.dilate(inside, k) > 0) & (cv2.erode(inside, k) == 0)
        flip = band & (rng.random(SHAPE) < 0.5)
        lab[flip] = FACE
        lab[band & ~flip] = TABLE
    _marks(lab, x0, y0, tiles, PIP)
    lab += rng.normal(0, 1.5, lab.shape).astype(np.float32)
    d = np.linalg.norm(lab - np.array(TABLE, np.float32), axis=2)
    return lab, (d > 12).astype(np.uint8)


def arms_length(fg: np.ndarray, config: VisionConfig) -> float | None:
    """The tile length the arms of the foreground's blob give (one class: the faces and
    their pips' holes), None when it is no arm."""
    count, comp, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=4)
    found = _chain_arms([(count, comp, stats)], config, fg.shape, (0, 0), np.ones(fg.shape, np.uint8))
    return None if found is None else found[1]


@pytest.mark.parametrize("seed", range(3))
def test_touching_tiles_give_the_tile_length_from_their_width(seed: int) -> None:
    _, fg = chain(np.random.default_rng(9000 + seed))
    faces = fg & (chain_pips(fg) == 0)
    config = VisionConfig()
    assert arms_length(faces, config) == pytest.approx(W * config.aspect, rel=0.1)


def test_a_double_across_a_line_gives_the_tile_length_too() -> None:
    # A T: a line of three tiles and one across its middle. The ridge's spur into each corner
    # runs lower than the arms' middle; the width is read where the ridge stands high.
    fg = np.zeros(SHAPE, np.uint8)
    cv2.rectangle(fg, (150, 200), (150 + 3 * L - 1, 200 + W - 1), 1, -1)
    cv2.rectangle(fg, (150 + 3 * L // 2 - W // 2, 200 + W), (150 + 3 * L // 2 + W // 2 - 1, 200 + W + L - 1), 1, -1)
    for x, y in ((190, 215), (250, 230), (370, 215), (330, 300)):
        cv2.circle(fg, (x, y), 4, 0, -1)
    config = VisionConfig()
    assert arms_length(fg, config) == pytest.approx(W * config.aspect, rel=0.05)


@pytest.mark.parametrize("gap", [W * 5 // 4, 2 * W])
def test_a_line_turning_back_on_itself_gives_the_tile_length_not_the_loops(gap: int) -> None:
    # A line of play turns twice and runs back beside itself, its end touching its start (a
    # double across the line there), a strip of table ``gap`` wide between: the strip is a hole
    # in the faces' blob, wider than any pip. Filled as face, the arms read as one wide arm.
    fg = np.zeros(SHAPE, np.uint8)
    x0, y0 = 120, 150
    cv2.rectangle(fg, (x0, y0), (x0 + 4 * L - 1, y0 + W - 1), 1, -1)  # the line out
    back = y0 + W + gap
    cv2.rectangle(fg, (x0, back), (x0 + 4 * L - 1, back + W - 1), 1, -1)  # ... and back
    cv2.rectangle(fg, (x0 + 4 * L, y0), (x0 + 4 * L + W - 1, back + W - 1), 1, -1)  # the turn
    cv2.rectangle(fg, (x0 - W, y0), (x0 - 1, back + W - 1), 1, -1)  # the double closing it
    rng = np.random.default_rng(9300 + gap)
    for _ in range(40):  # pips, on the faces only
        x, y = int(rng.integers(x0 + 8, x0 + 4 * L - 8)), int(rng.choice([y0, back]) + rng.integers(8, W - 8))
        cv2.circle(fg, (x, y), 4, 0, -1)
    config = VisionConfig()
    assert arms_length(fg, config) == pytest.approx(W * config.aspect, rel=0.1)
    # Filling every hole (arm_hole 0) reads the loop as one wide arm: the test sees the difference.
    assert arms_length(fg, VisionConfig(arm_hole=0.0)) != pytest.approx(W * config.aspect, rel=0.1)


def test_pips_run_together_into_holes_as_long_as_a_face_is_wide_are_still_face() -> None:
    # Large pips seen close, run together with the divider: holes across most of each face's
    # width, and their pips' rims biting into its edges, so the blob's own ridge stands low.
    fg = np.zeros(SHAPE, np.uint8)
    x0, y0 = 150, 200
    cv2.rectangle(fg, (x0, y0), (x0 + 3 * L - 1, y0 + W - 1), 1, -1)
    for t in range(3):
        cx = x0 + t * L
        cv2.rectangle(fg, (cx + L // 2 - 4, y0 + 6), (cx + L // 2 + 4, y0 + W - 7), 0, -1)  # divider and pips
        cv2.circle(fg, (cx + L // 4, y0 + 4), 7, 0, -1)  # rims at the edge
    config = VisionConfig()
    assert arms_length(fg, config) == pytest.approx(W * config.aspect, rel=0.1)


def test_face_colour_never_modifies_its_inputs() -> None:
    lab, fg = chain(np.random.default_rng(9200), ragged=2)
    light = np.ones(SHAPE, np.float32)
    copies = (lab.copy(), fg.copy(), light.copy())
    face_colour(lab, light, fg, VisionConfig())
    assert all(np.array_equal(a, b) for a, b in zip((lab, fg, light), copies, strict=True))


def test_a_bare_table_has_no_face_colour() -> None:
    lab = np.empty((*SHAPE, 3), np.float32)
    lab[:] = TABLE
    assert face_colour(lab, np.ones(SHAPE, np.float32), np.zeros(SHAPE, np.uint8), VisionConfig()) is None


def notched_line(rng: np.random.Generator, tiles: int, length: int) -> np.ndarray:
    """The foreground of ``tiles`` small tiles (``length`` pixels long) end to end in an L.
    Every other tile loses three quarters of its width from one long side (seeded) over half
    its length: a small six's pips merge with each other and with the shadow at its side,
    leaving a thin strip of face. Every tile's divider leaves a hole in its middle."""
    fg = np.zeros(SHAPE, np.uint8)
    width = length // 2
    down = tiles // 2
    x0, y0 = 150, 60
    corner_y = y0 + down * length
    cv2.rectangle(fg, (x0, y0), (x0 + width - 1, corner_y - 1), 1, -1)
    cv2.rectangle(fg, (x0, corner_y), (x0 + (tiles - down) * length - 1, corner_y + width - 1), 1, -1)
    deep = round(3 * width / 4)
    for t in range(tiles):  # each tile's divider shows as a hole in its middle
        c = (x0 + width // 2, y0 + t * length + length // 2) if t < down else \
            (x0 + (t - down) * length + length // 2, corner_y + width // 2)
        cv2.circle(fg, c, 1, 0, -1)
    for t in range(1, tiles - 1, 2):
        side = int(rng.integers(2))
        if t < down:
            top, x = y0 + t * length + length // 5, x0 if side == 0 else x0 + width - deep
            cv2.rectangle(fg, (x, top), (x + deep - 1, top + round(0.55 * length)), 0, -1)
        else:
            left, y = x0 + (t - down) * length + length // 5, corner_y if side == 0 else corner_y + width - deep
            cv2.rectangle(fg, (left, y), (left + round(0.55 * length), y + deep - 1), 0, -1)
    return fg


@pytest.mark.parametrize("seed", range(3))
def test_small_tiles_with_notched_outlines_still_make_arms(seed: int) -> None:
    # The thin strips of face beside the notches raise low ridges: unsmoothed, a chain of small
    # tiles looks as uneven as a speckled patch of cloth, and no length came from it.
    length = 36
    fg = notched_line(np.random.default_rng(9300 + seed), 14, length)
    config = VisionConfig()
    assert arms_length(fg, config) == pytest.approx(length, rel=0.15)
