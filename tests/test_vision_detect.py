"""``referee.vision.detect``: what a person at the table cares about.

The scikit-image pattern: draw frames with known truth from a seeded generator, run the
detector, check within tolerances. Four kinds of frame:

1. tiles drawn here (rounded 2:1 rectangles with a divider and pips at the places of
   ``referee.render.sprites.PIP_LAYOUT``) on a plain, gently shaded table: every tile found and
   read, nothing invented;
2. the same frames in other pixel formats, and inputs that are not frames at all;
3. frames from the project's renderer (seeded, in process) and the sample sequences' arm frames:
   never a silent guess, a recall floor, occlusion;
4. the labelled real photographs in ``../shared/real_photos`` (see ``helpers.REAL``).

Floors here are regression floors, set well below what the detector measured when they were
written; the targets live in ``referee evaluate``. Never tune the detector to these tests.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from helpers import REAL, REPO, need_real_photos

from referee.render.generate import Options
from referee.render.sprites import PIP_LAYOUT
from referee.render.stills import render_still
from referee.render.styles import TileStyle
from referee.vision import Detection, FaceDown, FaceModel, TileReading, VisionConfig, detect
from referee.vision.config import ConfigError
from referee.vision.evaluate import Totals, halves_right, match, one_to_one, pairs, parse_truth
from referee.vision.images import ImageError, read_image
from referee.vision.reading import read_boxes
from referee.vision.size import TileSize
from referee.vision.split import Box, split_blobs

SEQUENCES = REPO / "sample_images" / "sequences"

Point = tuple[float, float]

# -- drawing tiles with known truth -----------------------------------------------------------
L, W = 120, 60  # a drawn tile's length and width in pixels (2:1)
SS = 4  # the sprite is drawn this many times larger, then shrunk (anti-aliased edges and pips)
REACH = 0.15 * L  # a found tile's centre lies this near the drawn one
GAP = 20  # drawn tiles lie at least this many pixels apart
SHAPE = (640, 960)  # frame height, width
DOUBLE_SIX = [(a, b) for a in range(7) for b in range(a, 7)]
NO_DOUBLE_BLANK = [t for t in DOUBLE_SIX if t != (0, 0)]  # the double blank has a test of its own

FELT = (40, 110, 45)  # BGR
WOOD = (110, 160, 205)
IVORY = (176, 208, 224)
BLACK = (30, 29, 28)
DARK_INK = (26, 25, 28)
LIGHT_INK = (222, 226, 228)


@dataclasses.dataclass(frozen=True)
class Drawn:
    """One drawn tile: ``halves[i]`` is the centre of the half showing ``pips[i]``; pips None is a
    tile lying face down."""

    pips: tuple[int, int] | None
    halves: tuple[Point, Point]
    center: Point


def sprite(pips: tuple[int, int] | None, body: tuple[int, int, int],
           ink: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """A tile seen straight down, (W, L) BGR and its coverage 0..1: half 0 on the left; a rounded
    outline; face up, a thin divider (0.04 of the width, as the renderer inks it) and round pips
    (radius 0.09 of the width) at PIP_LAYOUT's places; face down (None), plain."""
    lw, ww = L * SS, W * SS
    img = np.empty((ww, lw, 3), np.uint8)
    img[:] = body
    cover = np.zeros((ww, lw), np.uint8)
    r = round(0.1 * ww)
    cv2.rectangle(cover, (r, 0), (lw - 1 - r, ww - 1), 255, -1)
    cv2.rectangle(cover, (0, r), (lw - 1, ww - 1 - r), 255, -1)
    for cx, cy in ((r, r), (lw - 1 - r, r), (r, ww - 1 - r), (lw - 1 - r, ww - 1 - r)):
        cv2.circle(cover, (cx, cy), r, 255, -1)
    if pips is not None:
        cv2.line(img, (lw // 2, round(0.1 * ww)), (lw // 2, round(0.9 * ww)), ink, round(0.04 * ww))
        for half, n in enumerate(pips):
            for u, v in PIP_LAYOUT[n]:
                cv2.circle(img, (round((half + u) * ww), round(v * ww)), round(0.09 * ww), ink, -1, cv2.LINE_AA)
    small = cv2.resize(img, (L, W), interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(cover, (L, W), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    return small, alpha


def table(rng: np.random.Generator, colour: tuple[int, int, int], noise: float = 3.0,
          shade: float = 0.1, shape: tuple[int, int] = SHAPE) -> np.ndarray:
    """A plain table (float32 BGR): its colour, a gentle linear fall-off of light (up to
    ``shade`` across the frame) in a random direction and a grain of ``noise`` grey levels."""
    h, w = shape
    xs = np.linspace(-0.5, 0.5, w, dtype=np.float32)[None, :]
    ys = np.linspace(-0.5, 0.5, h, dtype=np.float32)[:, None]
    gx, gy = rng.uniform(-1, 1, 2)
    light = 1 + shade * (gx * xs + gy * ys)
    out = np.asarray(colour, np.float32)[None, None, :] * light[..., None]
    return (out + rng.normal(0, noise, out.shape)).astype(np.float32)


def finish(canvas: np.ndarray, rng: np.random.Generator, noise: float = 2.0) -> np.ndarray:
    """Sensor noise, then 8-bit pixels."""
    return np.clip(canvas + rng.normal(0, noise, canvas.shape), 0, 255).round().astype(np.uint8)


def places(rng: np.random.Generator, n: int, shape: tuple[int, int] = SHAPE) -> list[tuple[float, float, float]]:
    """n (x, y, angle) with the tiles' circumscribed circles GAP apart and inside the frame: no
    overlaps, every pair of tiles at least GAP pixels apart."""
    h, w = shape
    rad = math.hypot(L, W) / 2
    out: list[tuple[float, float, float]] = []
    for _ in range(20000):
        if len(out) == n:
            return out
        x, y = rng.uniform(rad + GAP, w - rad - GAP), rng.uniform(rad + GAP, h - rad - GAP)
        if all(math.hypot(x - a, y - b) > 2 * rad + GAP for a, b, _ in out):
            out.append((x, y, float(rng.uniform(0, 360))))
    raise AssertionError(f"no room for {n} tiles")


def draw_tiles(rng: np.random.Generator, n: int, *, face_down: int = 0, colour: tuple[int, int, int] = FELT,
               body: tuple[int, int, int] = IVORY, ink: tuple[int, int, int] = DARK_INK,
               include: tuple[tuple[int, int], ...] = (),
               pool: list[tuple[int, int]] = DOUBLE_SIX) -> tuple[np.ndarray, list[Drawn]]:
    """A frame of n face-up tiles (distinct tiles of ``pool``, ``include`` among them, either way
    round) and ``face_down`` backs, at random places and angles, with their truth."""
    rest = [t for t in pool if t not in include]
    chosen = list(include) + [rest[i] for i in rng.permutation(len(rest))[:n - len(include)]]
    faces: list[tuple[int, int] | None] = [(b, a) if rng.random() < 0.5 else (a, b) for a, b in chosen]
    faces += [None] * face_down
    canvas = table(rng, colour)
    truth = []
    for pips, (x, y, angle) in zip(faces, places(rng, len(faces)), strict=True):
        canvas = lay(canvas, sprite(pips, body, ink), x, y, angle)
        ux, uy, q = math.cos(math.radians(angle)), math.sin(math.radians(angle)), L / 4
        truth.append(Drawn(pips, ((x - ux * q, y - uy * q), (x + ux * q, y + uy * q)), (x, y)))
    return finish(canvas, rng), truth


def lay(canvas: np.ndarray, drawn: tuple[np.ndarray, np.ndarray], x: float, y: float, angle: float) -> np.ndarray:
    """``canvas`` (float32 BGR) with a sprite and its coverage laid on it, centred on (x, y) and
    turned by ``angle`` degrees (half 0 towards -angle)."""
    img, alpha = drawn
    a = math.radians(angle)
    ux, uy, vx, vy = math.cos(a), math.sin(a), -math.sin(a), math.cos(a)
    # Sprite pixel (sx, sy) -> frame: the sprite's centre ((L - 1) / 2, (W - 1) / 2) lands on (x, y).
    cx, cy = (L - 1) / 2, (W - 1) / 2
    m = np.array([[ux, vx, x - ux * cx - vx * cy], [uy, vy, y - uy * cx - vy * cy]], np.float32)
    size = (canvas.shape[1], canvas.shape[0])
    warped = cv2.warpAffine(img, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    cover = cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR)[..., None]
    return canvas * (1 - cover) + warped.astype(np.float32) * cover


# -- checking ---------------------------------------------------------------------------------
def run(image: np.ndarray, config: VisionConfig | None = None) -> Detection:
    """detect(), with what must hold of every detection: the frame's size, an occluded frame
    carries nothing, confidences within 0..1."""
    d = detect(image, config) if config is not None else detect(image)
    assert isinstance(d, Detection)
    assert (d.width, d.height) == (image.shape[1], image.shape[0])
    if d.occluded:
        assert d.tiles == () and d.face_down == (), "an occluded frame carries tiles"
    for t in d.tiles:
        assert 0.0 <= t.confidence <= 1.0, t
    return d


def nearest_pairs(found: list[Point], truth: list[Point], reach: float) -> list[tuple[int, int]]:
    """(found index, truth index) within ``reach``, one to one, nearest first."""
    return one_to_one([(math.dist(f, t), i, j) for i, f in enumerate(found) for j, t in enumerate(truth)
                       if math.dist(f, t) <= reach])


def read_as(tile: TileReading, truth: Drawn) -> tuple[int, int]:
    """The tile's pips in the order of the truth's halves (halves paired by nearest centre)."""
    (a0, a1), (b0, b1) = tile.halves, truth.halves
    if math.dist(a0, b0) + math.dist(a1, b1) <= math.dist(a0, b1) + math.dist(a1, b0):
        return tile.pips
    return (tile.pips[1], tile.pips[0])


def problems(d: Detection, truth: list[Drawn]) -> list[str]:
    """Everything wrong with a detection of a drawn frame: a tile missed or read wrong, a tile
    or a face-down tile that is not there, a face-down tile missed."""
    out = []
    if d.occluded:
        out.append("frame reported occluded")
    up = [t for t in truth if t.pips is not None]
    down = [t for t in truth if t.pips is None]
    matched = nearest_pairs([t.center for t in d.tiles], [t.center for t in up], REACH)
    for i, j in matched:
        got = read_as(d.tiles[i], up[j])
        if got != up[j].pips:
            out.append(f"tile {up[j].pips} at {up[j].center[0]:.0f},{up[j].center[1]:.0f} read as {got}"
                       f" (confidence {d.tiles[i].confidence}, uncertain {d.tiles[i].uncertain})")
    seen = {j for _, j in matched}
    for j, t in enumerate(up):
        if j not in seen:
            back = any(math.dist(f.center, t.center) <= REACH for f in d.face_down)
            out.append(f"tile {t.pips} at {t.center[0]:.0f},{t.center[1]:.0f} missed"
                       + (" (reported face down)" if back else ""))
    out += [f"false tile {d.tiles[i].pips} at {d.tiles[i].center}"
            for i in sorted(set(range(len(d.tiles))) - {i for i, _ in matched})]
    backs = nearest_pairs([f.center for f in d.face_down], [t.center for t in down], REACH)
    out += [f"face-down tile at {t.center[0]:.0f},{t.center[1]:.0f} missed"
            for j, t in enumerate(down) if j not in {j for _, j in backs}]
    out += [f"false face-down tile at {d.face_down[i].center}"
            for i in sorted(set(range(len(d.face_down))) - {i for i, _ in backs})]
    return out


# -- 1. drawn tiles ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_drawn_ivory_tiles_on_felt_are_all_found_and_read(seed: int) -> None:
    image, truth = draw_tiles(np.random.default_rng(seed), 8)
    assert problems(run(image), truth) == []


def test_drawn_black_tiles_with_white_pips_on_wood_are_all_found_and_read() -> None:
    found = []
    for seed in (100, 101):
        image, truth = draw_tiles(np.random.default_rng(seed), 8, colour=WOOD, body=BLACK, ink=LIGHT_INK)
        found += [f"seed {seed}: {p}" for p in problems(run(image), truth)]
    assert found == []


GREY_FLOOR = (70, 72, 74)  # BGR: a tiled floor round the table
GROUT = (40, 40, 42)


@pytest.mark.parametrize("seed", range(2))
def test_a_tiled_floor_round_the_table_does_not_pass_for_the_tiles(seed: int) -> None:
    # The floor beyond the table is laid with tiles of its own, 2:1 like dominoes and far more
    # of them than the three dominoes on the table: a colour class whose blobs lie mostly off
    # the table must not win the face colour.
    rng = np.random.default_rng(7400 + seed)
    h, w = SHAPE
    canvas = table(rng, GREY_FLOOR, shape=SHAPE)
    for y in range(0, h, 36):  # bricks 72 by 36, their joints staggered
        canvas[y:y + 3] = GROUT
    for row, y in enumerate(range(0, h, 36)):
        for x in range(-36 * (row % 2), w, 72):
            canvas[y:y + 36, max(0, x):max(0, x + 3)] = GROUT
    left, top, right, bottom = 130, 90, 830, 550
    canvas[top:bottom, left:right] = table(rng, WOOD, shape=(bottom - top, right - left))
    chosen = [DOUBLE_SIX[i] for i in rng.permutation(len(DOUBLE_SIX))[:3]]
    truth = []
    for pips, (x, y) in zip(chosen, [(380.0, 220.0), (580.0, 260.0), (470.0, 420.0)], strict=True):
        angle = float(rng.uniform(0, 180))
        canvas = lay(canvas, sprite(pips, IVORY, DARK_INK), x, y, angle)
        ux, uy, q = math.cos(math.radians(angle)), math.sin(math.radians(angle)), L / 4
        truth.append(Drawn(pips, ((x - ux * q, y - uy * q), (x + ux * q, y + uy * q)), (x, y)))
    assert problems(run(finish(canvas, rng)), truth) == []


def corner_pile(rng: np.random.Generator, body: tuple[int, int, int] = BLACK,
                table_colour: tuple[int, int, int] = FELT) -> tuple[np.ndarray, list[Drawn]]:
    """Three pairs of backs, each pair touching at a corner at a random angle between them (a
    boneyard pushed together), and two lone face-up tiles, with their truth."""
    canvas = table(rng, table_colour, shape=SHAPE)
    truth: list[Drawn] = []
    for k, cx in enumerate((170.0, 480.0, 790.0)):
        a0 = float(rng.uniform(0, 180))
        a1 = a0 + float(rng.choice([-1, 1]) * rng.uniform(25, 65))
        # The second back's corner on the first's far corner, pushed a tenth of a width in; the
        # pair centred on (cx, cy).
        r0, r1 = math.radians(a0), math.radians(a1)
        corner = (L / 2 * math.cos(r0) - W / 2 * math.sin(r0), L / 2 * math.sin(r0) + W / 2 * math.cos(r0))
        reach = (L / 2 - 0.1 * W, W / 2 - 0.1 * W)
        second = (corner[0] + reach[0] * math.cos(r1) - reach[1] * math.sin(r1),
                  corner[1] + reach[0] * math.sin(r1) + reach[1] * math.cos(r1))
        cy = 220.0 + 60 * (k % 2)
        first = (cx - second[0] / 2, cy - second[1] / 2)
        second = (first[0] + second[0], first[1] + second[1])
        for (x, y), angle in ((first, a0), (second, a1)):
            canvas = lay(canvas, sprite(None, body, LIGHT_INK), x, y, angle)
            truth.append(Drawn(None, ((x, y), (x, y)), (x, y)))
    for pips, x in (((3, 5), 300.0), ((6, 2), 660.0)):
        canvas = lay(canvas, sprite(pips, body, LIGHT_INK), x, 520.0, 0.0)
        truth.append(Drawn(pips, ((x - L / 4, 520.0), (x + L / 4, 520.0)), (x, 520.0)))
    return finish(canvas, rng), truth


@pytest.mark.parametrize("seed", range(3))
def test_backs_touching_at_a_corner_are_each_counted(seed: int) -> None:
    # Backs pushed together at angles touch at their corners: their blob is no tile and no
    # packing (one angle for all) covers it. Parted where it is narrow, each part is one back.
    image, truth = corner_pile(np.random.default_rng(8800 + seed))
    assert problems(run(image), truth) == []


#: The outline of three backs of a rendered pile (4032 x 3024, the mask at 0.32 scale, a tile
#: 53 pixels long): two side by side at one angle, the third at another, touching the second's
#: end at its corner.
THREE_BACKS = np.array([
    (1, 3), (0, 4), (0, 11), (1, 12), (1, 23), (2, 24), (2, 35), (3, 36), (3, 44), (4, 45), (4, 54), (6,
    55), (8, 53), (9, 54), (14, 54), (15, 53), (21, 53), (22, 52), (29, 52), (30, 53), (29, 54), (29,
    59), (28, 60), (28, 65), (27, 66), (27, 68), (28, 69), (31, 69), (32, 70), (38, 70), (39, 71), (45,
    71), (46, 72), (54, 72), (55, 73), (57, 71), (58, 72), (57, 76), (64, 83), (65, 83), (70, 89), (72,
    90), (72, 91), (78, 97), (77, 98), (78, 99), (79, 98), (85, 104), (87, 105), (90, 104), (104, 89),
    (105, 86), (102, 83), (102, 82), (73, 53), (69, 53), (64, 58), (64, 59), (59, 64), (59, 65), (55,
    69), (54, 68), (54, 65), (55, 64), (55, 59), (56, 58), (56, 53), (57, 52), (57, 47), (58, 46), (58,
    41), (59, 40), (59, 35), (60, 34), (60, 29), (61, 28), (61, 22), (60, 21), (55, 21), (54, 20), (48,
    20), (47, 19), (39, 19), (38, 18), (36, 18), (35, 19), (35, 22), (34, 23), (33, 34), (32, 35), (32,
    38), (31, 39), (30, 38), (30, 28), (29, 27), (29, 16), (28, 15), (28, 5), (27, 4), (27, 1), (26, 0),
    (20, 0), (19, 1), (13, 1), (12, 2), (6, 2), (5, 3)
], np.int32)


def test_backs_a_packing_covers_all_but_one_of_are_parted_where_narrow() -> None:
    # The packing, at one angle, covered the two side by side and left the third out (a third
    # of the blob, within what a packing may leave): the referee, short of a back, saw a draw
    # no one made. Parted where narrow, every part one back, the blob is all three.
    mask = np.zeros((110, 110), np.uint8)
    cv2.fillPoly(mask, [THREE_BACKS], 1)
    boxes, _ = split_blobs(mask, TileSize(53.3), VisionConfig())
    assert len(boxes) == 3
    assert all(abs(b.length - 53.3) < 0.15 * 53.3 for b in boxes)


def test_a_whole_set_touching_in_one_line_is_split_into_its_tiles() -> None:
    # All 28 tiles of a double-six set in one line, every tile touching the next (rows joined
    # by tiles at the turns), a tenth longer than the frame's estimate says (it rests on a lone
    # tile where the camera sees tiles smaller), and each face's mask grown by its rim: the blob
    # holds more than 40 estimated tiles, and was once taken for no heap of tiles at all.
    seen, drawn, width = 40.0, 44, 22
    mask = np.zeros((300, 520), np.uint8)
    x0, y0, tiles = 40, 40, 0
    for row, count in enumerate((9, 8, 9)):
        y = y0 + row * (drawn + width)
        left = x0 if row != 1 else x0 + width
        cv2.rectangle(mask, (left, y), (left + count * drawn - 1, y + width - 1), 1, -1)
        tiles += count
        if row < 2:  # the tile at the turn, across the rows' ends
            x = x0 + 9 * drawn - width if row == 0 else x0
            cv2.rectangle(mask, (x, y + width), (x + width - 1, y + width + drawn - 1), 1, -1)
            tiles += 1
    assert tiles == 28
    mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    assert mask.sum() / (seen * seen / 2) > 40
    boxes, big = split_blobs(mask, TileSize(seen), VisionConfig())
    assert big == []
    # Packed at the estimated length, a row holds a tile or so more than it does: the runs'
    # seams put that right later (chain.align_runs).
    assert tiles <= len(boxes) <= tiles * drawn / seen + 1


@pytest.mark.parametrize("angle", [30.0, 38.0, 52.0])
def test_every_arm_of_a_long_turning_line_is_packed(angle: float) -> None:
    # A line of play in a Z of three arms, 24 tiles touching end to end, turned so that it
    # runs diagonally across the frame. Turned upright to be packed, such a blob reaches past
    # the corners of its own box: one whole arm once fell off the canvas and was never packed.
    length, width = 50.0, 25.0
    a = math.radians(angle)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([math.sin(a), -math.cos(a)])
    centres: list[tuple[np.ndarray, np.ndarray]] = []
    at = np.array([40.0, 900.0 - 8 * length * u[1]]) + 0.5 * length * u
    for arm, turn in ((u, v), (v, u), (u, None)):
        for _ in range(8):
            centres.append((at.copy(), arm))
            at = at + length * arm
        if turn is not None:  # the next arm starts beside this one's end, at right angles
            end = at - 0.5 * length * arm
            at = end - 0.5 * width * arm + 0.5 * (width + length) * turn
    mask = np.zeros((1000, 1300), np.uint8)
    for c, arm in centres:
        side = np.array([-arm[1], arm[0]])
        corners = [c + sa * 0.5 * length * arm + sb * 0.5 * width * side
                   for sa, sb in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        cv2.fillPoly(mask, [np.round(corners).astype(np.int32)], 1)
    assert mask[0].sum() == mask[-1].sum() == mask[:, 0].sum() == mask[:, -1].sum() == 0
    boxes, _ = split_blobs(mask, TileSize(length), VisionConfig())
    missed = [c for c, _ in centres if min(math.dist(c, (b.cx, b.cy)) for b in boxes) > 0.3 * length]
    assert missed == []
    assert len(boxes) <= len(centres) + 1


@pytest.mark.parametrize("seed", [21, 22])
def test_a_face_down_tile_among_face_up_ones_is_face_down(seed: int) -> None:
    image, truth = draw_tiles(np.random.default_rng(seed), 6, face_down=1, pool=NO_DOUBLE_BLANK)
    d = run(image)
    assert problems(d, truth) == []
    assert (len(d.tiles), len(d.face_down)) == (6, 1)


def test_a_double_blank_face_up_is_a_tile_not_a_back() -> None:
    # A double blank shows a divider and no pips; a back shows neither. Twenty seeded frames,
    # each with a double blank among five face-up tiles and a back.
    found = []
    for seed in range(1, 21):
        image, truth = draw_tiles(np.random.default_rng(seed), 5, face_down=1, include=((0, 0),))
        found += [f"seed {seed}: {p}" for p in problems(run(image), truth)]
    assert found == []


def boneyard_and_line(rng: np.random.Generator, blank_at_end: bool,
                      back_beside: bool = False) -> tuple[np.ndarray, tuple[float, float]]:
    """Ten backs in two rows on the left, and on the right a tile x-0 with the double blank
    across its 0 end (``blank_at_end``; with a back lying beside it, side by side, when
    ``back_beside``) or lying among the backs, side by side with them; the frame and the
    double blank's centre."""
    canvas = table(rng, FELT)
    for k in range(10):
        canvas = lay(canvas, sprite(None, IVORY, DARK_INK), 80 + (k % 5) * (W + 12), 180 + (k // 5) * (L + 40), 90.0)
    x, y = 620.0, 320.0
    canvas = lay(canvas, sprite((int(rng.integers(2, 7)), 0), IVORY, DARK_INK), x, y, 0.0)
    blank = (x + L / 2 + W / 2 + 1, y) if blank_at_end else (80 + 5 * (W + 12), 180.0)
    canvas = lay(canvas, sprite((0, 0), IVORY, DARK_INK), *blank, 90.0)
    if back_beside:
        canvas = lay(canvas, sprite(None, IVORY, DARK_INK), blank[0] + W + 14, blank[1], 90.0)
    return finish(canvas, rng), blank


@pytest.mark.parametrize("seed", range(3))
def test_among_backs_a_double_blank_across_a_lines_end_is_a_face(seed: int) -> None:
    # Where backs outnumber faces, a face with no pips reads as a back (a back may show a seam
    # like a divider). Laid across the end of a face, as in a line of play, it is the double
    # blank, read as surely as it reads (rendered hand 9308-001: an illegal 0-0 across a 5
    # went uncalled while it was reported unsure); with a back beside it, it may be a box
    # straddling two backs, and it is unsure, for the rules to judge. The same tile among the
    # backs, side by side with them, stays a back.
    image, blank = boneyard_and_line(np.random.default_rng(9100 + seed), blank_at_end=True)
    d = run(image)
    at = [t for t in d.tiles if math.dist(t.center, blank) < REACH]
    assert [(t.pips, t.uncertain) for t in at] == [((0, 0), False)]
    assert len(d.face_down) == 10
    image, blank = boneyard_and_line(np.random.default_rng(9300 + seed), blank_at_end=True, back_beside=True)
    d = run(image)
    at = [t for t in d.tiles if math.dist(t.center, blank) < REACH]
    assert [(t.pips, t.uncertain) for t in at] == [((0, 0), True)]
    assert len(d.face_down) == 11
    image, blank = boneyard_and_line(np.random.default_rng(9200 + seed), blank_at_end=False)
    d = run(image)
    assert not [t for t in d.tiles if math.dist(t.center, blank) < REACH]
    assert len(d.face_down) == 11


def test_lone_blank_is_checked_and_zero_keeps_every_blank_among_backs_unsure() -> None:
    with pytest.raises(ConfigError, match="lone_blank"):
        VisionConfig(lone_blank=-1.0)
    image, blank = boneyard_and_line(np.random.default_rng(9100), blank_at_end=True)
    d = run(image, VisionConfig(lone_blank=0.0))
    assert [(t.pips, t.uncertain) for t in d.tiles if math.dist(t.center, blank) < REACH] == [((0, 0), True)]


def backs_side_by_side(rng: np.random.Generator) -> tuple[np.ndarray, list[Box]]:
    """Three faces and a lone back, each with its box, and two backs side by side, long sides
    touching across a seam of table a few pixels wide, whose pair no box is given for."""
    canvas = table(rng, FELT)
    boxes = []
    for pips, (x, y, a) in (((3, 5), (200, 150, 10)), ((6, 2), (200, 450, 100)), ((4, 1), (760, 500, 30)),
                            (None, (760, 200, 60))):
        canvas = lay(canvas, sprite(pips, IVORY, DARK_INK), x, y, a)
        boxes.append(Box(x, y, L, W, a))
    for dy in (-(W + 3) / 2, (W + 3) / 2):
        canvas = lay(canvas, sprite(None, IVORY, DARK_INK), 520, 300 + dy, 0.0)
    return finish(canvas, rng), boxes


@pytest.mark.parametrize("seed", range(3))
def test_a_box_packed_across_two_backs_side_by_side_is_no_sure_double_blank(seed: int) -> None:
    # Packed across two backs lying side by side (a rendered hand's boneyard, its backs pushed
    # together), a box holds half of each: no pips, and their seam for a divider. It read as a
    # double blank, sure, and the referee saw a tile nobody played. Where backs lie, a double
    # blank packed among touching tiles, off the end of every face read surely, is uncertain.
    read = read_boxes
    image, boxes = backs_side_by_side(np.random.default_rng(seed))
    h, w = image.shape[:2]
    across = Box(520, 300, L, W, 90.0, packed=True)
    d = read(image, [*boxes, across], 1.0, VisionConfig(), w, h)
    assert sorted(t.pips for t in d.tiles if not t.uncertain) == [(3, 5), (4, 1), (6, 2)]
    assert [(t.pips, t.uncertain) for t in d.tiles if math.dist(t.center, (520, 300)) < REACH] == [((0, 0), True)]
    # The double blank's own box packed across the end of a face read surely, as in a line of
    # play, reads as it did, backs or none (a lone one: test_a_double_blank_face_up_...).
    canvas = table(np.random.default_rng(seed), FELT)
    blank = (600 + L / 2 + W / 2 + 1, 450.0)
    laid = (((3, 5), (200, 150), 10), (None, (760, 200), 60), ((4, 0), (600, 450), 0), ((0, 0), blank, 90))
    for pips, (x, y), a in laid:
        canvas = lay(canvas, sprite(pips, IVORY, DARK_INK), x, y, a)
    image = finish(canvas, np.random.default_rng(seed))
    boxes = [Box(200, 150, L, W, 10), Box(760, 200, L, W, 60), Box(600, 450, L, W, 0, packed=True),
             Box(*blank, L, W, 90, packed=True)]
    d = read(image, boxes, 1.0, VisionConfig(), w, h)
    assert sorted((t.pips, t.uncertain) for t in d.tiles) == [((0, 0), False), ((3, 5), False), ((4, 0), False)]


@pytest.mark.parametrize("seed", range(3))
def test_a_box_half_off_a_back_is_no_sure_double_blank(seed: int) -> None:
    # A box 0.4 of a tile along from a back, across its end: the back's side wall, dark, lies
    # across the box's middle like a divider, and neither half holds a pip. It read as a sure
    # double blank (a rendered still, a back on pale laminate). One tile's halves are of one
    # material; here one half is the table: such a double blank is uncertain (blank_halves).
    rng = np.random.default_rng(seed)
    canvas = table(rng, FELT)
    boxes = []
    for pips, (x, y, a) in (((3, 5), (200, 150, 10)), ((6, 2), (200, 450, 100)), ((4, 1), (760, 500, 30)),
                            (None, (520, 300, 0))):
        canvas = lay(canvas, sprite(pips, IVORY, DARK_INK), x, y, a)
        if pips is not None:
            boxes.append(Box(x, y, L, W, a))
    wall = round(520 + L / 2)
    cv2.line(canvas, (wall, round(300 - W / 2 + 3)), (wall, round(300 + W / 2 - 3)), (40, 40, 40), 3)
    image = finish(canvas, rng)
    h, w = image.shape[:2]
    read = read_boxes
    off = [*boxes, Box(520 + 0.4 * L, 300, L, W, 0)]

    def there(config: VisionConfig) -> list[tuple[tuple[int, int], bool]]:
        d = read(image, off, 1.0, config, w, h)
        assert sorted(t.pips for t in d.tiles if not t.uncertain and t.pips != (0, 0)) == [(3, 5), (4, 1), (6, 2)]
        return [(t.pips, t.uncertain) for t in d.tiles if t.pips == (0, 0)]

    assert there(VisionConfig(blank_halves=0)) == [((0, 0), False)]  # without the check: sure
    assert there(VisionConfig()) == [((0, 0), True)]


def test_a_double_blanks_halves_are_alike_and_the_setting_is_checked() -> None:
    halves_apart = sys.modules["referee.vision.read"].halves_apart
    face, _ = sprite((0, 0), IVORY, DARK_INK)
    assert halves_apart(cv2.resize(face, (64, 32))) < 0.25 * VisionConfig().blank_halves
    half_off = np.concatenate([face[:, L // 4:], np.full((W, L // 4, 3), FELT, np.uint8)], axis=1)
    assert halves_apart(cv2.resize(half_off, (64, 32))) > VisionConfig().blank_halves
    with pytest.raises(ValueError, match="blank_halves"):
        VisionConfig(blank_halves=-1)


def grained_pile(rng: np.random.Generator) -> np.ndarray:
    """Fourteen worn backs in two rows (a faint seam across the middle and a few specks, as a
    rendered 4032 x 3024 pile showed), and two faces with pips beside them."""
    canvas = table(rng, FELT)
    for k in range(14):
        x, y = 70 + (k % 7) * (W + 14), 150 + (k // 7) * (L + 30)
        canvas = lay(canvas, sprite(None, IVORY, DARK_INK), x, y, 90.0)
        seam = tuple(0.9 * v for v in IVORY)
        cv2.line(canvas, (int(x - W / 2 + 4), int(y)), (int(x + W / 2 - 4), int(y)), seam, 2, cv2.LINE_AA)
        for _ in range(3):
            speck = (int(x + rng.uniform(-0.3, 0.3) * W), int(y + rng.uniform(-0.4, 0.4) * L))
            cv2.circle(canvas, speck, 2, tuple(0.7 * v for v in IVORY), -1, cv2.LINE_AA)
    for pips, x in (((3, 5), 560.0), ((6, 2), 680.0)):
        canvas = lay(canvas, sprite(pips, IVORY, DARK_INK), x, 480.0, 0.0)
    return finish(canvas, rng)


@pytest.mark.parametrize("seed", [0, 4, 5])
def test_worn_backs_outnumbering_faces_are_backs_not_double_blanks(seed: int) -> None:
    # The typical tile of such a frame is a back: its grain set the frame's pip contrast, the
    # seams passed for dividers against it, and a pile of 14 backs was read as double blanks
    # (sure ones: the referee saw tiles appear and the boneyard empty).
    image = grained_pile(np.random.default_rng(seed))
    d = run(image)
    assert sorted(t.pips for t in d.tiles) == [(3, 5), (6, 2)]
    assert len(d.face_down) == 14


@pytest.mark.parametrize("seed", [41, 42])
def test_tile_sized_blocks_on_the_floor_beyond_the_table_are_not_face_down_tiles(seed: int) -> None:
    # A parquet floor round the table (a dark floor with light blocks the size of a tile, in a
    # band along the frame's edges) looks like backs lying in a row: they are off the table, so
    # they are no part of the boneyard.
    rng = np.random.default_rng(seed)
    image, truth = draw_tiles(rng, 6, face_down=1, pool=NO_DOUBLE_BLANK)
    band = 70
    h, w = SHAPE[0] + 2 * band, SHAPE[1] + 2 * band
    floor = np.empty((h, w, 3), np.float32)
    floor[:] = (38, 44, 52)
    for x0 in range(5, w - L, L + 14):
        for y0 in (5, h - 5 - W):
            floor[y0:y0 + W, x0:x0 + L] = IVORY
    for y0 in range(band + 5, h - band - L, L + 14):
        for x0 in (5, w - 5 - W):
            floor[y0:y0 + L, x0:x0 + W] = IVORY
    framed = finish(floor, rng)
    framed[band:band + SHAPE[0], band:band + SHAPE[1]] = image
    moved = [dataclasses.replace(t, center=(t.center[0] + band, t.center[1] + band),
                                 halves=((t.halves[0][0] + band, t.halves[0][1] + band),
                                         (t.halves[1][0] + band, t.halves[1][1] + band))) for t in truth]
    assert problems(run(framed), moved) == []


@pytest.mark.parametrize("colour", [FELT, WOOD], ids=["felt", "wood"])
def test_a_plain_table_gives_an_empty_detection(colour: tuple[int, int, int]) -> None:
    for seed in (31, 32):
        rng = np.random.default_rng(seed)
        d = run(finish(table(rng, colour), rng))
        assert (d.tiles, d.face_down, d.occluded) == ((), (), False), f"seed {seed}"


@pytest.mark.parametrize("image", [np.full((480, 640, 3), 128, np.uint8), np.zeros((480, 640, 3), np.uint8),
                                   np.full((480, 640, 3), 255, np.uint8), np.full((8, 8, 3), 90, np.uint8),
                                   np.full((1, 1, 3), 90, np.uint8), np.full((480, 640), 90, np.uint8)],
                         ids=["grey", "black", "white", "8x8", "1x1", "2-D"])
def test_a_featureless_frame_gives_an_empty_detection(image: np.ndarray) -> None:
    d = run(image)
    assert (d.tiles, d.face_down, d.occluded) == ((), (), False)


def test_a_plain_table_with_sensor_noise_gives_an_empty_detection() -> None:
    rng = np.random.default_rng(33)
    d = run(finish(table(rng, FELT, noise=6.0), rng))
    assert (len(d.tiles), len(d.face_down), d.occluded) == (0, 0, False)


# -- 2. inputs --------------------------------------------------------------------------------
@functools.cache
def drawn_frame() -> tuple[np.ndarray, list[Drawn]]:
    image, truth = draw_tiles(np.random.default_rng(4), 6, face_down=1, pool=NO_DOUBLE_BLANK)
    image.setflags(write=False)
    return image, truth


@functools.cache
def drawn_detection() -> Detection:
    return run(drawn_frame()[0])


@pytest.mark.parametrize("kind", ["bgr", "gray", "bgra", "read-only", "rgb view"])
def test_detect_never_modifies_its_input(kind: str) -> None:
    base = drawn_frame()[0].copy()
    image = {"bgr": base, "gray": cv2.cvtColor(base, cv2.COLOR_BGR2GRAY),
             "bgra": cv2.cvtColor(base, cv2.COLOR_BGR2BGRA), "read-only": base,
             "rgb view": base[..., ::-1]}[kind]
    if kind == "read-only":
        image.setflags(write=False)
    before = image.copy()
    run(image)
    assert image.shape == before.shape and image.dtype == before.dtype
    assert image.tobytes() == before.tobytes()


def test_grayscale_and_bgra_frames_are_read_like_bgr() -> None:
    image, truth = drawn_frame()
    assert problems(drawn_detection(), truth) == []
    assert run(cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)) == drawn_detection()
    assert problems(run(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)), truth) == []


@pytest.mark.parametrize("bad", [
    np.zeros((0, 0, 3), np.uint8), np.zeros((0, 640), np.uint8), np.zeros((48, 64, 3), np.float32),
    np.zeros((48, 64, 3), np.float64), np.zeros((48, 64, 3), np.uint16), np.zeros((48, 64, 2), np.uint8),
    np.zeros((48, 64, 5), np.uint8), np.zeros(64, np.uint8),
    np.zeros((2, 48, 64, 3), np.uint8), [[0, 0, 0]], None, "frame.jpg",
], ids=["empty", "empty-2d", "float32", "float64", "uint16", "2-channels", "5-channels", "1-D", "4-D",
        "list", "None", "path"])
def test_bad_inputs_raise_image_error(bad: Any) -> None:
    with pytest.raises(ImageError) as caught:
        detect(bad)
    assert isinstance(caught.value, ValueError)


def tile_at(pips: tuple[int, int], x: float, confidence: float = 0.9) -> TileReading:
    """A tile read surely at ``confidence``, 80 x 40 px, lying along x with its centre at (x, 100)."""
    corners = ((x - 40, 80.0), (x + 40, 80.0), (x + 40, 120.0), (x - 40, 120.0))
    return TileReading(pips, ((x - 20, 100.0), (x + 20, 100.0)), corners, (x, 100.0), confidence, False,
                       (confidence, confidence))


def test_two_boxes_on_one_tile_make_one_tile_uncertain_when_they_disagree() -> None:
    # Rendered hand 9301-000, frame 65: a box found by its shape lay 4 px from a run's box on
    # the same tile, reading 1-0 at 0.86 where the run's read 4-0 (the truth); the referee
    # called a legal play illegal. One place holds one tile: read alike, one stands; read
    # differently, which is right cannot be told.
    from referee.vision.reading import _one_per_place

    first, other, apart = tile_at((4, 0), 200.0, 0.5), tile_at((1, 0), 204.0, 0.86), tile_at((2, 3), 290.0)
    (one, two) = _one_per_place([first, other, apart])
    assert (one.pips, one.uncertain, two) == ((4, 0), True, apart)
    assert _one_per_place([first, tile_at((0, 4), 205.0), apart]) == (first, apart)
    assert _one_per_place([first, apart]) == (first, apart)


def test_a_set_holds_each_tile_once() -> None:
    # Rendered frame line-ivory-12: a box across the seam beside a 2-2 read that double again,
    # surely, 21 px from the box on it, and the frame held a sure tile nobody laid. Read alike
    # at one place, the two are one tile, the surer standing; read alike far apart, one of them
    # is misread and which cannot be told.
    from referee.vision.reading import one_of_each

    near = VisionConfig().one_set_place
    double, across, other = tile_at((2, 2), 200.0, 0.55), tile_at((2, 2), 230.0, 0.52), tile_at((6, 2), 280.0)
    assert one_of_each((double, across, other), near) == (double, other)
    assert one_of_each((across, double, other), near) == (double, other)
    far = tile_at((2, 6), 500.0)
    kept = one_of_each((double, other, far), near)
    assert [t.pips for t in kept] == [(2, 2), (6, 2), (2, 6)]
    assert [t.uncertain for t in kept] == [False, True, True]
    # An unsure reading far off is a guess: it casts no doubt on a sure one.
    unsure = dataclasses.replace(far, confidence=0.2, uncertain=True)
    assert one_of_each((double, other, unsure), near) == (double, other, unsure)
    two_sets = VisionConfig(one_set=False)
    assert VisionConfig.from_json({"one_set": False}) == two_sets
    assert VisionConfig.from_json(two_sets.to_json()) == two_sets
    with pytest.raises(ValueError, match="one_set: expected true or false"):
        VisionConfig.from_json({"one_set": 0})


# -- 3. rendered frames -----------------------------------------------------------------------
# Six seeded stills at 1280x720 mixing kinds and styles (seeds 11..16 taken in order, none
# picked for how the detector does on it).
RENDERED = [("scattered", TileStyle.IVORY, 11), ("line", TileStyle.IVORY, 12), ("line", TileStyle.BLACK, 13),
            ("reveal", TileStyle.COLOURED, 14), ("scattered", TileStyle.BLACK, 15),
            ("line", TileStyle.COLOURED, 16)]
#: Regression floor: recall over RENDERED measured 0.51 (52 of 102 tiles) when this was written;
#: the floor is that minus 15 points. The targets live in ``referee evaluate``.
RECALL_FLOOR = 0.36


@functools.cache
def rendered(kind: str, style: TileStyle, seed: int) -> tuple[Detection, dict[str, Any]]:
    shot = render_still(kind, np.random.default_rng(seed), Options(style=style, size=(1280, 720)))
    return run(shot.image), shot.truth


def confident_false(d: Detection, truth: dict[str, Any]) -> list[TileReading]:
    """Tiles reported without doubt that match no truth tile."""
    used = {i for i, _ in pairs(d, parse_truth(truth))}
    return [t for i, t in enumerate(d.tiles) if i not in used and not t.uncertain]


@pytest.mark.parametrize("frame", [1, 2, 4, 5])
def test_the_floor_beyond_the_table_holds_no_face_down_tiles(frame: int) -> None:
    # Rendered tables with the floor showing round them (its boards and tiles are packed into
    # tile-sized rectangles with no pips): every face-down tile reported lies on a real tile.
    shot = render_still("scattered", np.random.default_rng([424200, frame]), Options())
    d = run(shot.image)
    truth = parse_truth(shot.truth)
    length = float(np.median([t.length for t in truth.tiles])) if truth.tiles else 50.0
    real = [t.center for t in truth.tiles] + [tuple(f["center"]) for f in shot.truth["face_down"]]
    phantom = [f.center for f in d.face_down if all(math.dist(f.center, r) > 0.5 * length for r in real)]
    assert phantom == []


@pytest.mark.parametrize(("kind", "style", "seed"), RENDERED, ids=[f"{k}-{s.value}-{n}" for k, s, n in RENDERED])
def test_rendered_frames_are_never_guessed_silently(kind: str, style: TileStyle, seed: int) -> None:
    d, truth = rendered(kind, style, seed)
    score = match(d, truth)
    assert score.wrong == 0, "a tile read wrong was not flagged uncertain"
    assert confident_false(d, truth) == []


def test_tiles_too_small_to_read_are_never_trusted() -> None:
    # Seed 17 (unused above), shrunk to 0.35: its tiles come out about 27 pixels long, their pips
    # a pixel or two across. The tiles are still found, but none is trusted.
    shot = render_still("scattered", np.random.default_rng(17), Options(style=TileStyle.IVORY, size=(1280, 720)))
    small = cv2.resize(shot.image, None, fx=0.35, fy=0.35, interpolation=cv2.INTER_AREA)
    d = run(small)
    assert d.tiles
    assert [t for t in d.tiles if not t.uncertain] == []


@pytest.mark.parametrize("seed", range(2))
def test_tiles_thirty_pixels_long_are_read_and_trusted(seed: int) -> None:
    # Drawn tiles shrunk to 30 pixels (halves of 15, as the far tiles at 1280 x 720 are): their
    # pips are three or four pixels across, and they read right and surely. The bar before
    # (min_cell_px 16) left them all uncertain, and a rendered hand at that size unrefereed.
    rng = np.random.default_rng(7300 + seed)
    canvas = table(rng, FELT)
    truth = []
    for (x, y, angle), i in zip(places(rng, 6), rng.permutation(len(NO_DOUBLE_BLANK)), strict=False):
        canvas = lay(canvas, sprite(NO_DOUBLE_BLANK[i], IVORY, DARK_INK), x, y, angle)
        truth.append(tuple(sorted(NO_DOUBLE_BLANK[i])))
    small = cv2.resize(finish(canvas, rng), None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    d = detect(small)
    assert sorted(tuple(sorted(t.pips)) for t in d.tiles if not t.uncertain) == sorted(truth)
    assert all(t.uncertain for t in detect(small, VisionConfig(min_cell_px=16.0)).tiles)


def test_a_box_drawn_long_on_a_small_tile_is_no_more_legible() -> None:
    # A hard-set hand of tiles about 28 pixels long: a box fitted 33 pixels long read 2-4 as
    # 0-0 without doubt. Its pips are no larger than its neighbours': legibility goes by the
    # shorter of the box and the frame's usual tile.
    from referee.vision.reading import _legible

    assert _legible([28.0, 27.0, 29.0, 33.0, 35.0], 16.0) == [False] * 5
    assert _legible([40.0, 41.0, 39.0, 30.0], 16.0) == [True, True, True, False]
    assert _legible([], 16.0) == []


def test_rendered_frames_recall_floor() -> None:
    totals = Totals.of(match(*rendered(*frame)) for frame in RENDERED)
    assert totals.tiles > 60
    assert totals.recall is not None and totals.recall >= RECALL_FLOOR


def sequence_frames() -> tuple[list[Path], list[Path]]:
    """The first two arm frames and the first clear frame of each sample sequence (by order)."""
    arm, clear = [], []
    for folder in sorted(SEQUENCES.iterdir()):
        frames = sorted(folder.glob("frame-*.json"))
        occluded = [json.loads(p.read_text(encoding="utf-8"))["occluded"] for p in frames]
        arm += [p.with_suffix(".jpg") for p, o in zip(frames, occluded, strict=True) if o][:2]
        clear += [p.with_suffix(".jpg") for p, o in zip(frames, occluded, strict=True) if not o][:1]
    return arm, clear


def test_an_arm_over_the_table_is_recognised_and_ignored() -> None:
    arm, clear = sequence_frames()
    assert len(arm) >= 2 and len(clear) >= 2
    seen = {p: run(read_image(p)) for p in arm + clear}  # run(): an occluded detection carries nothing
    assert any(seen[p].occluded for p in arm), "no arm frame recognised"
    assert [p.relative_to(SEQUENCES).as_posix() for p in clear if seen[p].occluded] == []


@pytest.mark.parametrize("frame", [44, 48])
def test_ivory_on_pale_wood_is_found_where_no_face_clears_the_table_bar(frame: int) -> None:
    # The sample hand's frames 44 and 48: ivory tiles on pale planks, whose spread sets a bar no
    # face cleared whole, and the frames came back empty (the hand's last play went unseen).
    # The faces are then looked for in what differs from the table at all.
    path = SEQUENCES / "sequence-11-000" / f"frame-{frame:04d}.jpg"
    truth = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    score = match(run(read_image(path)), truth)
    assert score.wrong == 0
    assert score.right >= len(truth["tiles"]) // 3


def test_which_plank_makes_the_largest_region_does_not_decide_the_table() -> None:
    # The sample hand's frames 44 and 45: the same pale planked table under other sensor noise.
    # In frame 44 the lightest plank made the largest region of one colour, and the table's
    # surface fitted from it reached out to the ivory faces (its band at the cap, its spread
    # twice frame 45's): 4 of 13 tiles and 10 of 14 backs went unseen, and the play of 5-0
    # waited a second for frame 45. The next plank's surface, under the cap, seeds it.
    from referee.vision.segment import to_lab
    from referee.vision.table import fit_table

    spreads = []
    for frame in (44, 45):
        image = read_image(SEQUENCES / "sequence-11-000" / f"frame-{frame:04d}.jpg")
        spreads.append(fit_table(to_lab(image)).spread)
    assert max(spreads) < 1.5 * min(spreads)
    path = SEQUENCES / "sequence-11-000" / "frame-0044.jpg"
    truth = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    found = run(read_image(path))
    score = match(found, truth)
    assert score.wrong == 0 and score.right >= len(truth["tiles"]) - 1
    assert len(found.face_down) == len(truth["face_down"])


@pytest.mark.parametrize("frame", [41, 47])
def test_the_spinner_its_branches_leave_from_is_read_surely(frame: int) -> None:
    # The sample hand's spinner, 6-6, lies across the line with its branches leaving its ends,
    # end to end with it: its box lies in a run. A double read along a run was taken for a box
    # straddling a seam (touching halves match), and the spinner was left unsure in every
    # frame from its first branch on. A line passing across its middle says what it is.
    path = SEQUENCES / "sequence-11-000" / f"frame-{frame:04d}.jpg"
    truth = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    spinner = truth["layout"]["line"][truth["layout"]["spinner"]]
    assert spinner == "6-6" and truth["layout"]["branches"]["up"]
    found = run(read_image(path))
    centre = next(t["center"] for t in truth["tiles"] if t["pips"] == [6, 6])
    read = [t for t in found.tiles if math.dist(t.center, centre) < 10]
    assert [(t.pips, t.uncertain) for t in read] == [((6, 6), False)]
    score = match(found, truth)
    assert score.wrong == 0 and score.right == len(truth["tiles"])


def test_a_tile_length_resting_on_one_lone_tile_is_checked() -> None:
    # A rendered 1280 x 720 frame (seed 5516, frame 15 of a reveal set): black tiles on felt,
    # all but one touching in a line of play. The tile length rested on that one lone blob, a
    # tenth off, and the line was packed with the wrong length: 1 tile of 28 read right. The
    # length the face colour was found with is tried too, and the reading with more tiles read
    # surely stands. (Fitted to their faces' sharp outlines, edge_rounds, the tiles packed at the
    # wrong length read 18 right unchecked: the fit is left out here, to see the check.)
    shot = render_still("reveal", np.random.default_rng([5516, 15]), Options(tilt_max=20.0))
    truth = parse_truth(shot.truth)
    found = match(detect(shot.image), truth)
    assert found.wrong == 0 and found.right >= 10
    checked = match(detect(shot.image, VisionConfig(edge_rounds=0)), truth)
    unchecked = match(detect(shot.image, VisionConfig(size_check=0, edge_rounds=0)), truth)
    assert checked.wrong == 0
    assert checked.right >= 10 > unchecked.right


def test_specks_shaped_like_tiles_do_not_set_the_face_colour() -> None:
    # A rendered 1280 x 720 frame (seed 712698, frame 28 of a line set): coloured tiles on pale
    # wood, whose planks' spread sets a high bar. Above it only specks of the line stood out, a
    # few of them shaped like a chain of tiles 12 px long: shorter than any tile a frame may
    # hold, so the frame was taken for an empty table and its 15 tiles were lost. The faces are
    # then looked for in what differs from the table at all.
    shot = render_still("line", np.random.default_rng([712698, 28]), Options(tilt_max=20.0))
    score = match(detect(shot.image), parse_truth(shot.truth))
    assert score.wrong == 0
    assert score.right >= score.tiles // 2


def test_a_wood_tables_plank_seams_do_not_cut_the_tiles_off_the_table() -> None:
    # A rendered 4032 x 3024 frame (seed 88001, frame 17 of a line set): black tiles on pale
    # planks. The seams between the planks stood out from the table as thin lines: they parted
    # the table into strips (the largest, taken for the table, held no tile) and joined the line
    # of play to the floor at the frame's edge, so no blob counted as tiles on the table and
    # the frame's 22 tiles were lost. Foreground narrower than seam_px is left out first.
    shot = render_still("line", np.random.default_rng([88001, 17]), Options(tilt_max=20.0))
    truth = parse_truth(shot.truth)
    score = match(detect(shot.image), truth)
    assert score.wrong == 0 and score.right >= score.tiles - 4
    assert match(detect(shot.image, VisionConfig(seam_px=1)), truth).right == 0


def test_a_frame_left_unsure_is_read_again_on_the_next_likeliest_face_colour() -> None:
    # A rendered 1280 x 720 frame (seed 60601, frame 27 of a reveal set): read on the colour
    # class whose blobs looked most like tiles, it read 13 of its 18 tiles right, one false.
    # Read again on the runner-up, it reads more tiles surely, and that reading stands. (Frame
    # 24 of the set showed this until the packing held whole lines at a slant: read once, it
    # now reads as well as twice.) Read with the glare disc, the first colour alone reads all 18
    # right, and with the fit to the faces' outlines (edge_rounds) 16: both are left out here,
    # so that the second try still has tiles to win.
    shot = render_still("reveal", np.random.default_rng([60601, 27]), Options(size=(1280, 720), tilt_max=20.0))
    truth = parse_truth(shot.truth)
    once = match(detect(shot.image, VisionConfig(face_tries=1, glare_disc=0, edge_rounds=0)), truth)
    twice = match(detect(shot.image, VisionConfig(glare_disc=0, edge_rounds=0)), truth)
    assert match(detect(shot.image, VisionConfig(face_tries=1)), truth).right == len(truth.tiles)
    assert twice.right >= once.right + 3 and twice.wrong == 0 and twice.false <= once.false


def test_black_tiles_under_glare_are_read_with_the_glare_taken_out() -> None:
    # A rendered 1920 x 1080 frame (seed 5519, frame 15 of a scattered set): black tiles on a
    # wood table, three of them under a lamp's highlight. A streak of glare over a black face is
    # bright like its pips, and its centre-minus-surround stands out: two of the three were left
    # unsure. What a disc 1.4 times as wide as the frame's pips fits into is taken out of every
    # face first: all three read right, surely, and nothing is read wrong.
    shot = render_still("scattered", np.random.default_rng([5519, 15]), Options(tilt_max=20.0))
    truth = parse_truth(shot.truth)
    glared = shot.truth["scene"]["glare_tiles"]
    assert shot.truth["scene"]["style"] == "black" and len(glared) == 3

    def right(found: Detection) -> set[int]:
        return {j for i, j in pairs(found, truth)
                if not found.tiles[i].uncertain and halves_right(found.tiles[i], truth.tiles[j]) == 2}

    plain = detect(shot.image, VisionConfig(glare_disc=0))
    found = detect(shot.image)
    assert not set(glared) <= right(plain)
    assert set(glared) <= right(found)
    assert match(found, truth).wrong == 0 and match(found, truth).right > match(plain, truth).right


def test_a_frame_is_read_again_at_the_tile_length_its_pips_show() -> None:
    # A rendered 1280 x 720 frame (seed 60611, frame 18 of a reveal set): the tile length from
    # the tiles' outlines (side walls and shadows in them) left 8 of its 23 tiles unsure. The
    # tiles read surely show the length by their pips; read again at it, the frame reads more
    # tiles surely, and that reading stands. (With a run read again to end at its doubles,
    # run_abut, two more of its tiles read surely on the way, and their pips give a length that
    # reads the frame no better: it reads 13 tiles right, not 16. Off here, to see the re-read.
    # So is the glare disc: with it, the outlines' length reads 14 right, as the re-read does;
    # and the fit to the faces' sharp outlines, edge_rounds: with it, the outlines' length reads
    # 15 right.)
    shot = render_still("reveal", np.random.default_rng([60611, 18]), Options(size=(1280, 720), tilt_max=20.0))
    truth = parse_truth(shot.truth)
    outlines = match(detect(shot.image, VisionConfig(pip_length=0, run_abut=0, glare_disc=0, edge_rounds=0)), truth)
    pips = match(detect(shot.image, VisionConfig(run_abut=0, glare_disc=0, edge_rounds=0)), truth)
    assert pips.wrong == 0 and pips.right >= outlines.right + 2 and pips.false <= outlines.false
    # With a prior (the face colour and length the frames before agree on) the frame is read
    # once: the frames settle the length, and a session's frames must agree on it.
    prior = detect(shot.image).face
    assert prior is not None
    assert detect(shot.image, prior=prior) == detect(shot.image, VisionConfig(pip_length=0), prior=prior)


def test_a_frame_read_surely_or_with_a_prior_is_not_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # The runner-up face colour is tried only when a tile is left unsure: a frame whose tiles all
    # read surely is read once, as with face_tries 1.
    module = sys.modules["referee.vision.detect"]
    reads: list[object] = []
    real = module._read_frame

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(args[4])  # the guess at the face colour
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "_read_frame", counted)
    image, _ = drawn_frame()
    got = detect(image)
    assert got.tiles and not got.uncertain and len(reads) == 1
    assert got == detect(image, VisionConfig(face_tries=1))
    # Nor is a frame read with what the frames before agree on (a prior), though it leaves
    # tiles unsure: they settle the faces.
    reads.clear()
    shot = render_still("reveal", np.random.default_rng([60601, 24]), Options(size=(1280, 720), tilt_max=20.0))
    alone = detect(shot.image)
    assert alone.uncertain and alone.face is not None and len(reads) == 2
    reads.clear()
    detect(shot.image, prior=alone.face)
    assert len(reads) == 1


def test_a_face_colour_that_finds_nothing_gives_way_to_the_next(monkeypatch: pytest.MonkeyPatch) -> None:
    # A lens's dark rim round a pale table may be the likeliest guess at the faces: its mask
    # joins the tiles to the frame's edge, and that guess finds nothing at all (a rendered line
    # of 25 ivory tiles on laminate, 4032 x 3024, was read as an empty table, its runner-up
    # never tried, as nothing found left no tile unsure). Nothing found is no reading to keep:
    # the next guess is read. Here the first guess's reading is made to find nothing.
    module = sys.modules["referee.vision.detect"]
    real = module._read_frame
    guesses: list[object] = []

    def first_finds_nothing(*args: Any, **kwargs: Any) -> Any:
        guesses.append(args[4])
        got = real(*args, **kwargs)
        return Detection(got.width, got.height, False) if len(guesses) == 1 else got

    shot = render_still("reveal", np.random.default_rng([60601, 24]), Options(size=(1280, 720), tilt_max=20.0))
    truth = parse_truth(shot.truth)
    monkeypatch.setattr(module, "_read_frame", first_finds_nothing)
    got = detect(shot.image)
    assert len(guesses) == 2
    score = match(got, truth)
    assert score.wrong == 0 and score.right >= score.tiles // 2
    # With one guess allowed, nothing it is.
    guesses.clear()
    assert not detect(shot.image, VisionConfig(face_tries=1)).tiles and len(guesses) == 1


def test_another_face_colour_stands_only_on_more_tiles_read_surely_and_no_more_unsure() -> None:
    better = sys.modules["referee.vision.detect"]._better

    def reading(sure: int, unsure: int, occluded: bool = False) -> Detection:
        tiles = [TileReading((1, 2), ((0.0, 0.0), (1.0, 0.0)), ((0.0, 0.0),) * 4, (float(i), 0.0),
                             0.9 if i < sure else 0.1, i >= sure) for i in range(sure + unsure)]
        return Detection(640, 480, occluded, () if occluded else tuple(tiles))

    held = reading(8, 6)
    assert better(reading(12, 2), held)
    assert better(reading(9, 6), held)
    assert not better(reading(8, 0), held)  # no more read surely
    assert not better(reading(12, 40), held)  # grain taken for faces: many boxes, few sure
    # A rendered line of ivory tiles on laminate (test_rendered_frames_are_never_guessed_silently,
    # line 12) read 5 of 11 surely, and on the runner-up 7 of 14, one of them wrong.
    assert not better(reading(7, 7), reading(5, 6))
    assert not better(reading(0, 0, occluded=True), held)
    # Beside a reading that found nothing, one reading most of its tiles surely stands.
    assert better(reading(3, 2), reading(0, 0)) and not better(reading(2, 3), reading(0, 0))


def test_the_face_tries_setting_is_checked() -> None:
    for bad in (0, 5):
        with pytest.raises(ValueError, match="face_tries"):
            VisionConfig(face_tries=bad)


# -- 4. real photographs ----------------------------------------------------------------------
#: Regression floor for herzog_8 (14 separate tiles): 4 read right when this was first written,
#: 10 once the pips' rims were taken into the faces, 13 once pips by a broken edge were too
#: (segment.pip_spots), 14 once a rectangle out of the set's proportions was fitted on its
#: divider from its other side; the floor is that minus about 15 points of 14 tiles.
HERZOG_8_FLOOR = 12
#: Regression floor for all the photos together (54 tiles): 23 read right once lone tiles were
#: found again from their dividers (15 before), 27 once packed rectangles half on a side wall
#: were slid onto the face, 29 once a fitted rectangle read unsure took the second look around
#: it, 38 once the pips' rims were taken into the faces, 40 once pips by a broken edge were too,
#: 42 once rectangles out of the set's proportions were fitted on their dividers from their
#: other side, 43 once the arms' width was read where their ridge stands high, 44 once a packed
#: rectangle's divider was looked for as far as a lone tile's where no seam can pass for it, 53
#: once tiles were looked for on every divider bar no tile held (referee.vision.rescue); the
#: floor is that minus about 5 points.
REAL_RIGHT_FLOOR = 50


def real_photos() -> list[Path]:
    need_real_photos()
    photos = sorted(p for p in REAL.glob("*.jpeg") if p.with_suffix(".json").exists())
    assert photos, f"no labelled photos in {REAL}"
    return photos


@functools.cache
def real(path: Path) -> tuple[Detection, dict[str, Any]]:
    return run(read_image(path)), json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))


def test_real_photos_are_never_guessed_silently() -> None:
    found = []
    for path in real_photos():
        d, truth = real(path)
        score = match(d, truth)
        if score.wrong:
            found.append(f"{path.name}: {score.wrong} tiles read wrong without doubt")
        if false := confident_false(d, truth):
            found.append(f"{path.name}: {len(false)} false tiles without doubt")
    assert found == []


def test_a_grey_photo_is_not_read_as_hundreds_of_specks() -> None:
    # herzog_3 without colour (ivory on white paper): the pips were taken for the tiles (9
    # pixels long) and the frame came back with 147 tiles and 543 backs. Tiles shorter than
    # min_tile_px cannot be read: the frame shows nothing readable, and says so. (Grey frames
    # are read poorly in general: herzog_5 grey shows 9 backs that are not there.)
    path = next((p for p in real_photos() if p.name == "herzog_3.jpeg"), None)
    assert path is not None
    d = run(cv2.cvtColor(read_image(path), cv2.COLOR_BGR2GRAY))
    assert len(d.tiles) + len(d.face_down) <= 7


@pytest.mark.parametrize(("name", "least"), [("herzog_1.jpeg", 13), ("herzog_2.jpeg", 4)])
def test_tiles_seen_with_their_side_walls_and_shadows_are_read(name: str, least: int) -> None:
    # herzog_2: four tiles touching in an L, photographed from a side: the blob holds their
    # side walls, and two rectangles packed into it sat half a width off their faces, their
    # dividers cut short. Slid onto the face, and read at the frame's tile size when the face
    # fitted among the walls comes out small, three of the four are read (one was before); the
    # fourth once the tile length was read where the ridge of their blob stands high (266 px
    # with the spurs into its corners, 276 without).
    # herzog_1: fourteen lone tiles casting shadows on paper; fitted on their dividers, two
    # still read unsure with an end on the shadow's edge, and are read by the second look
    # around the fitted rectangle: twelve of fourteen (ten before). One rectangle reached onto
    # its neighbour's end, too long for the face fitted near its length: fitted from its width,
    # in the set's proportions, all fourteen are read.
    path = next((p for p in real_photos() if p.name == name), None)
    assert path is not None
    score = match(*real(path))
    assert score.right >= least and score.wrong == 0


def test_real_photos_regression_floor() -> None:
    # Most photos are taken from a side: the rectangles take in the tiles' side walls and
    # shadows, and only the divider puts them back on the faces.
    assert sum(match(*real(p)).right for p in real_photos()) >= REAL_RIGHT_FLOOR


def test_herzog_8_regression_floor() -> None:
    path = next((p for p in real_photos() if p.name == "herzog_8.jpeg"), None)
    assert path is not None
    assert match(*real(path)).right >= HERZOG_8_FLOOR


def test_herzog_8_reads_at_least_half_its_tiles() -> None:
    # On ivory nearly as light as the paper, the grey rims of the pips read as shadow and broke
    # the faces with many pips apart: 4 of the 14 tiles were found. The rims are now grown from
    # the pips into the face (segment.pip_rims); pips beside an edge the face mask lost (a
    # shadowed bevel) opened their holes onto the table, and are now taken in too
    # (segment.pip_spots): all 14 are found.
    path = next((p for p in real_photos() if p.name == "herzog_8.jpeg"), None)
    assert path is not None
    score = match(*real(path))
    assert score.tiles == 14 and score.matched == 14
    assert score.right >= 7


@pytest.mark.parametrize(("name", "least"), [("herzog_5.jpeg", 3), ("herzog_6.jpeg", 4), ("herzog_7.jpeg", 3)])
def test_tiles_the_faces_blobs_miss_are_read_on_their_dividers(name: str, least: int) -> None:
    # herzog_5 and herzog_6: four tiles end to end on a white table lit warm at one end and cool
    # in the middle: the table's quadratic took the bright end for foreground, joined to the
    # column, and no colour class made a tile-shaped blob: no tile was found. herzog_7: a
    # rectangle packed half a tile off along an L of tiles read two halves, unsure, and the tile
    # there was missed. Every divider bar no tile read surely holds is now a tile's middle:
    # all eleven are found, and read but for one left unsure.
    path = next((p for p in real_photos() if p.name == name), None)
    assert path is not None
    score = match(*real(path))
    assert score.matched == score.tiles and score.right >= least and score.wrong == 0
    assert score.found == score.matched


def other_shots(image: np.ndarray, truth: dict[str, Any]) -> list[tuple[str, np.ndarray, dict[str, Any]]]:
    """The same table photographed otherwise, with its truth moved to match: the camera turned by
    37 degrees (the frame grown to hold it all, the new margin the photo's median colour, with a
    little noise), from twice as far (half the size), and in dimmer, warmer light; each saved as
    a JPEG, as a camera saves it. Made in memory from ../shared at test time: the photos are
    never copied into the repository."""
    h, w = image.shape[:2]
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), 37, 1.0)
    c, s = abs(turn[0, 0]), abs(turn[0, 1])
    nw, nh = int(h * s + w * c), int(h * c + w * s)
    turn[0, 2] += nw / 2 - w / 2
    turn[1, 2] += nh / 2 - h / 2
    margin = [float(v) for v in np.median(image.reshape(-1, 3), axis=0)]
    turned = cv2.warpAffine(image, turn, (nw, nh), borderMode=cv2.BORDER_CONSTANT, borderValue=margin)
    turned = np.clip(turned + np.random.default_rng(1).normal(0, 2, turned.shape), 0, 255).astype(np.uint8)
    half = np.float64([[0.5, 0, 0], [0, 0.5, 0]])
    dim = np.clip(((image / 255.0) ** 1.6) * 255 * np.array([0.85, 1.0, 1.1]), 0, 255).astype(np.uint8)

    def moved(m: np.ndarray | None, size: tuple[int, int]) -> dict[str, Any]:
        out = json.loads(json.dumps(truth))
        out["width"], out["height"] = size
        if m is not None:
            def at(p: list[float]) -> list[float]:
                x, y = p
                return [float(m[0, 0] * x + m[0, 1] * y + m[0, 2]), float(m[1, 0] * x + m[1, 1] * y + m[1, 2])]
            for tile in out["tiles"]:
                tile["halves"] = [at(p) for p in tile["halves"]]
                tile["center"] = at(tile["center"])
        return out

    def saved(shot: np.ndarray) -> np.ndarray:
        """As a camera saves it: JPEG (quality 85)."""
        return cv2.imdecode(cv2.imencode(".jpg", shot, [cv2.IMWRITE_JPEG_QUALITY, 85])[1], cv2.IMREAD_COLOR)

    halved = cv2.resize(image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    return [("turned", saved(turned), moved(turn, (nw, nh))),
            ("halved", saved(halved), moved(half, (halved.shape[1], halved.shape[0]))),
            ("dimmed", saved(dim), moved(None, (w, h)))]


def test_photos_of_the_same_tables_taken_otherwise_are_read_without_a_silent_misreading() -> None:
    # What the eight photos show is all the real tables we have: the detector must not be built
    # for those shots alone. The same tables turned, from twice as far and in dimmer, warmer light
    # (herzog_2: an L of touching tiles; herzog_5: a column on a table lit unevenly; herzog_8:
    # fourteen lone tiles): before the tiles were looked for on their dividers, 20 of these 66
    # tiles were read right, one read wrong without doubt (every tile of the turned photos was
    # lost: the table's quadratic cannot follow their light up to the plain margin); now 52,
    # none wrong. The floor is that less about 10%. No box read surely is not there: herzog_5
    # turned packed a 4-0 a third too long across the seam between its 0-3 and 4-6, until the
    # chain's arms stopped leaving big pips run into the divider out of the faces' width.
    right, wrong, false, backs = 0, [], {}, {}
    for name in ("herzog_2.jpeg", "herzog_5.jpeg", "herzog_8.jpeg"):
        path = next((p for p in real_photos() if p.name == name), None)
        assert path is not None
        for how, image, truth in other_shots(read_image(path), json.loads(path.with_suffix(".json").read_text())):
            d = run(image)
            score = match(d, truth)
            right += score.right
            if score.wrong:
                wrong.append(f"{name} {how}: {score.wrong} read wrong without doubt")
            if sure_false := confident_false(d, truth):
                false[f"{name} {how}"] = len(sure_false)
            if d.face_down:
                backs[f"{name} {how}"] = len(d.face_down)
    assert wrong == []
    assert false == {}
    assert right >= 47
    # No photo shows a back. herzog_8 dimmed was read at 71 px, its tiles 177 px long, and the
    # boxes of that length over and round its faces made 18 backs, until the tiles found on
    # their dividers showed the length (rescue.bar_small). herzog_5 halved keeps 2.
    assert sum(backs.values()) <= 2, backs


def test_real_photos_without_an_arm_are_not_occluded() -> None:
    # herzog_5 (four touching tiles running off the frame) came back occluded while the floor's
    # blobs could win the face colour: its tiles' blob from the frame's edge was not packed.
    assert [p.name for p in real_photos() if real(p)[0].occluded] == []


def test_a_shadow_strip_beside_a_line_of_tiles_is_no_row_of_backs() -> None:
    # herzog_6: four tiles in a column cast a soft shadow strip along it; packed into
    # rectangles it read as ten backs. Nothing parts its rectangles: backs pushed together show
    # their seams.
    path = next((p for p in real_photos() if p.name == "herzog_6.jpeg"), None)
    assert path is not None
    d, truth = real(path)
    length = math.dist(*truth["tiles"][0]["halves"]) * 2
    off = [f.center for f in d.face_down
           if all(math.dist(f.center, t["center"]) > length / 2 for t in truth["tiles"])]
    assert off == []


def test_real_photos_show_no_phantom_face_down_tiles() -> None:
    # herzog_6 showed a face-down tile on a tile's blank half, its faces unfound (the tiles' soft
    # shadow was taken for the face colour); the tile is now read on its divider, and the back
    # packed on its half is that tile.
    found = {p.name: (len(real(p)[0].face_down), len(real(p)[1].get("face_down", []))) for p in real_photos()}
    assert {name: (seen, label) for name, (seen, label) in found.items() if seen > label} == {}


# -- 5. JSON and reprs ------------------------------------------------------------------------
def test_detection_json_shape_and_round_trip() -> None:
    d = drawn_detection()
    assert d.tiles and d.face_down
    doc = d.to_json()
    assert set(doc) == {"width", "height", "occluded", "tiles", "face_down"}
    assert json.loads(json.dumps(doc)) == doc  # plain JSON types only
    for tile in doc["tiles"]:
        assert {"pips", "halves", "corners", "center", "confidence"} <= set(tile)
        assert set(tile) <= {"pips", "halves", "corners", "center", "confidence", "uncertain", "half_confidence"}
        assert len(tile["half_confidence"]) == 2 and min(tile["half_confidence"]) <= tile["confidence"] + 1e-3
        assert len(tile["pips"]) == 2 and len(tile["halves"]) == 2 and len(tile["center"]) == 2
        assert len(tile["corners"]) == 4 and all(len(c) == 2 for c in tile["corners"])
    for back in doc["face_down"]:
        assert len(back["corners"]) == 4
    assert Detection.from_json(doc) == d
    assert Detection.from_json(json.loads(json.dumps(doc))) == d


def test_reprs_paste_back_as_code() -> None:
    d = drawn_detection()
    names = {"Detection": Detection, "TileReading": TileReading, "FaceDown": FaceDown, "FaceModel": FaceModel}
    for tile in d.tiles:
        assert eval(repr(tile), names) == tile
    for back in d.face_down:
        assert eval(repr(back), names) == back
    assert eval(repr(d), names) == d
    assert eval(repr(d), names).face == d.face  # the face model too (kept out of equality)


# -- 6. vision never imports the rules engine -------------------------------------------------
PROBE = """
import json, sys
import referee.vision, referee.vision.detect, referee.vision.evaluate, referee.vision.calibrate
print(json.dumps(sorted(m for m in sys.modules if m == "referee.rules" or m.startswith(("referee.rules.",
                                                                                       "referee.render")))))
"""


def test_vision_imports_neither_rules_nor_render() -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, env=env, capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


# -- a known tile size (what a calibration profile gives) ---------------------------------------
def test_a_known_tile_size_reads_as_well_and_a_wrong_one_is_not_trusted() -> None:
    image, truth = draw_tiles(np.random.default_rng(5), 8)
    assert problems(detect(image, VisionConfig(tile_px=float(L))), truth) == []
    # A profile made at another camera height (tiles twice the size) must not blind the detector.
    assert problems(detect(image, VisionConfig(tile_px=2.0 * L)), truth) == []
