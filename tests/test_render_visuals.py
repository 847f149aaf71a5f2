"""The renderer's visual parts: tile sprites, table textures, photographic effects, the arm."""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np
import pytest

from referee.render import effects
from referee.render.arm import draw_arm
from referee.render.sprites import PIP_LAYOUT, tile_back, tile_side_colour, tile_top
from referee.render.styles import PIP_COLOURS, TableKind, TileLook, TileStyle
from referee.render.textures import floor_texture, table_texture

PPM = 8.0
LENGTH, WIDTH = 48.0, 24.0


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def halves(sprite: np.ndarray) -> list[np.ndarray]:
    """The two halves' interiors (BGR), leaving out the bevel and a band around the divider."""
    h, w = sprite.shape[:2]
    inset, band = int(0.1 * h), int(0.06 * w)
    return [sprite[inset:h - inset, inset:w // 2 - band, :3], sprite[inset:h - inset, w // 2 + band:w - inset, :3]]


def blobs(mask: np.ndarray) -> int:
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    return int(sum(1 for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 20))


# --- sprites -------------------------------------------------------------------------------------

def test_pip_layout_is_complete_and_spaced() -> None:
    assert sorted(PIP_LAYOUT) == list(range(13))
    for n, points in PIP_LAYOUT.items():
        assert len(points) == n == len(set(points))
        assert all(0.0 < x < 1.0 and 0.0 < y < 1.0 for x, y in points)
        for p, q in itertools.combinations(points, 2):
            assert math.dist(p, q) > 0.19, (n, p, q)
    assert PIP_LAYOUT[7] == (*PIP_LAYOUT[6], (0.5, 0.5))
    assert (0.5, 0.5) not in PIP_LAYOUT[8] and (0.5, 0.5) in PIP_LAYOUT[9]


@pytest.mark.parametrize("style", list(TileStyle))
def test_sprite_size_and_alpha(style: TileStyle) -> None:
    sprite = tile_top((3, 5), TileLook(style, pin=True), LENGTH, WIDTH, PPM, rng())
    assert sprite.shape == (192, 384, 4) and sprite.dtype == np.uint8
    alpha = sprite[..., 3]
    for y, x in ((0, 0), (0, -1), (-1, 0), (-1, -1), (2, 2), (-3, -3)):
        assert alpha[y, x] == 0  # rounded corners
    assert alpha[96, 192] == 255 and alpha[96, 10] == 255 and alpha[5, 192] == 255
    assert alpha[96, 0] > 0 and alpha[0, 192] > 0  # the straight edges reach the border
    back = tile_back(TileLook(style), LENGTH, WIDTH, PPM, rng())
    assert back.shape == sprite.shape and back.dtype == np.uint8
    assert np.array_equal(back[..., 3], tile_top((1, 1), TileLook(style), LENGTH, WIDTH, PPM, rng())[..., 3])


def test_sprite_other_sizes_and_determinism() -> None:
    look = TileLook(TileStyle.IVORY, tint=(5.0, -3.0, 2.0))
    small = tile_top((6, 6), look, 48, 24, 2.5, rng(1))
    assert small.shape == (60, 120, 4)
    assert np.array_equal(small, tile_top((6, 6), look, 48, 24, 2.5, rng(1)))
    assert not np.array_equal(small, tile_top((6, 6), look, 48, 24, 2.5, rng(2)))
    with pytest.raises(ValueError):
        tile_top((13, 0), look, 48, 24, 2.5, rng())


@pytest.mark.parametrize("pips", [(n, (n * 5 + 3) % 13) for n in range(13)])
def test_ivory_dark_blobs_count_the_pips(pips: tuple[int, int]) -> None:
    sprite = tile_top(pips, TileLook(TileStyle.IVORY, pin=True), LENGTH, WIDTH, PPM, rng(pips[0]))
    for half, n in zip(halves(sprite), pips, strict=True):
        grey = cv2.cvtColor(half, cv2.COLOR_BGR2GRAY)
        assert blobs(grey < 80) == n


@pytest.mark.parametrize("pips", [(0, 9), (4, 12), (7, 1), (10, 11)])
def test_black_bright_blobs_count_the_pips(pips: tuple[int, int]) -> None:
    sprite = tile_top(pips, TileLook(TileStyle.BLACK), LENGTH, WIDTH, PPM, rng(3))
    body = cv2.cvtColor(sprite[96:100, 150:160, :3], cv2.COLOR_BGR2GRAY).mean() if pips[0] == 0 else None
    for half, n in zip(halves(sprite), pips, strict=True):
        grey = cv2.cvtColor(half, cv2.COLOR_BGR2GRAY)
        assert blobs(grey > 150) == n
    if body is not None:
        assert body < 60  # a black body


def pip_colour(style: TileStyle, n: int) -> np.ndarray:
    sprite = tile_top((n, 0), TileLook(style), LENGTH, WIDTH, PPM, rng(n))
    half = halves(sprite)[0].reshape(-1, 3).astype(np.float32)
    body = np.median(half, axis=0)
    far = np.linalg.norm(half - body, axis=1) > 60
    assert far.sum() > 50
    return half[far].mean(axis=0)


def hue_deg(bgr: np.ndarray) -> float:
    px = np.clip(bgr, 0, 255).astype(np.uint8).reshape(1, 1, 3)
    return float(cv2.cvtColor(px, cv2.COLOR_BGR2HSV_FULL)[0, 0, 0]) * 360.0 / 256.0


def test_coloured_pips_take_their_number_colour() -> None:
    hues = {n: hue_deg(pip_colour(TileStyle.COLOURED, n)) for n in (1, 2, 3, 5, 6, 7)}
    for a, b in itertools.combinations(hues, 2):
        diff = abs(hues[a] - hues[b]) % 360
        assert min(diff, 360 - diff) > 15, (a, b, hues)
    for n in (2, 3, 6):  # and near the colour asked for
        want = hue_deg(np.array(PIP_COLOURS[n], np.float32))
        diff = abs(hues[n] - want) % 360
        assert min(diff, 360 - diff) < 25, (n, hues[n], want)
    ivory = pip_colour(TileStyle.IVORY, 5)
    assert ivory.max() < 80  # near-black


def test_side_colour_is_darker_than_the_top() -> None:
    for style in TileStyle:
        look = TileLook(style)
        top = tile_back(look, LENGTH, WIDTH, PPM, rng())[80:110, 150:230, :3].reshape(-1, 3).mean(axis=0)
        side = np.array(tile_side_colour(look), float)
        assert all(isinstance(v, int) and 0 <= v <= 255 for v in tile_side_colour(look))
        assert side.sum() < top.sum()


# --- textures ------------------------------------------------------------------------------------

def test_textures_shape_dtype_determinism_and_variety() -> None:
    made = {}
    for kind in TableKind:
        a = table_texture(kind, 320, 200, 1.5, rng(7))
        assert a.shape == (200, 320, 3) and a.dtype == np.uint8
        assert np.array_equal(a, table_texture(kind, 320, 200, 1.5, rng(7)))
        b = table_texture(kind, 320, 200, 1.5, rng(8))
        assert np.abs(a.astype(int) - b.astype(int)).mean() > 2
        assert a.std() > 0.5  # not a flat fill
        made[kind] = a.reshape(-1, 3).mean(axis=0)
    for k1, k2 in itertools.combinations(made, 2):
        assert np.abs(made[k1] - made[k2]).max() > 10, (k1, k2)


def test_texture_kinds_look_their_part() -> None:
    wood = table_texture(TableKind.WOOD, 400, 300, 1.6, rng(1)).reshape(-1, 3).mean(axis=0)
    felt = table_texture(TableKind.FELT, 400, 300, 1.6, rng(1)).reshape(-1, 3).mean(axis=0)
    lam = table_texture(TableKind.LAMINATE, 400, 300, 1.6, rng(1)).reshape(-1, 3).mean(axis=0)
    cloth = table_texture(TableKind.CLOTH, 400, 300, 1.6, rng(1)).reshape(-1, 3).mean(axis=0)
    assert wood[2] > wood[1] > wood[0]  # warm brown: R > G > B
    assert felt[1] > felt[0] and felt[1] > felt[2]  # green
    assert lam.min() > 130  # light
    assert cloth.max() < 130  # dark


def test_floor_texture() -> None:
    floor = floor_texture(500, 300, 0.9, rng(4))
    assert floor.shape == (300, 500, 3) and floor.dtype == np.uint8
    assert floor.mean() < 120
    assert np.array_equal(floor, floor_texture(500, 300, 0.9, rng(4)))
    with pytest.raises(ValueError):
        floor_texture(0, 10, 1.0, rng())


# --- effects -------------------------------------------------------------------------------------

@pytest.fixture
def frame() -> np.ndarray:
    return table_texture(TableKind.LAMINATE, 320, 240, 1.5, rng(11))


def test_effects_keep_shape_and_leave_inputs_alone(frame: np.ndarray) -> None:
    bgra = cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA)
    bgra[..., 3] = 77
    for img in (frame, bgra):
        before = img.copy()
        outs = [
            effects.light_gradient(img, (100, 80), 150, 0.4, 0.5, rng()),
            effects.vignette(img, 0.3),
            effects.glare(img, (160, 120), (30, 12), 25, 0.6),
            effects.focus_blur(img, 1.5),
            effects.sensor_noise(img, 4.0, rng()),
            effects.jpeg(img, 80),
        ]
        assert np.array_equal(img, before)
        for out in outs:
            assert out.shape == img.shape and out.dtype == np.uint8
            assert out is not img
            if img.shape[2] == 4:
                assert (out[..., 3] == 77).all()


def test_effects_do_what_they_say(frame: np.ndarray) -> None:
    grey = np.full((240, 320, 3), 128, np.uint8)
    lit = effects.light_gradient(grey, (60, 60), 80, 0.5, 0.0, rng()).astype(int)
    assert lit[60, 60].mean() > lit[230, 310].mean() + 20
    warm = effects.light_gradient(grey, (160, 120), 200, 0.0, 1.0, rng()).astype(int)
    assert warm[120, 160, 2] > warm[120, 160, 0] + 10  # red up, blue down
    vig = effects.vignette(grey, 0.4).astype(int)
    assert vig[120, 160].mean() > vig[0, 0].mean() + 20
    shiny = effects.glare(grey, (160, 120), (20, 10), 0, 0.8).astype(int)
    assert shiny[120, 160].mean() > 200 and (shiny[0, 0] == 128).all()
    assert effects.focus_blur(frame, 2.0).std() < frame.std()
    assert np.array_equal(effects.focus_blur(frame, 0.0), frame)
    noisy = effects.sensor_noise(grey, 4.0, rng(5)).astype(int)
    assert 2.5 < noisy.std() < 7 and abs(noisy.mean() - 128) < 1
    assert np.array_equal(noisy, effects.sensor_noise(grey, 4.0, rng(5)))
    black = effects.sensor_noise(np.zeros_like(grey), 4.0, rng(5))
    assert black.mean() < 3  # no abs() of negative noise
    squeezed = effects.jpeg(frame, 60)
    diff = np.abs(squeezed.astype(int) - frame.astype(int))
    assert diff.max() > 0 and diff.mean() < 4


# --- arm -----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("seed", "entry", "tip", "border"), [
    (0, (160, 250), (150, 90), "bottom"),
    (1, (-15, 60), (200, 150), "left"),
    (2, (330, 200), (120, 80), "right"),
    (3, (200, -20), (170, 170), "top"),
])
def test_arm_mask_reaches_the_entry_border(frame: np.ndarray, seed: int, entry: tuple[float, float],
                                           tip: tuple[float, float], border: str) -> None:
    before = frame.copy()
    out, mask = draw_arm(frame, entry, tip, 40, rng(seed))
    assert np.array_equal(frame, before)
    assert out.shape == frame.shape and out.dtype == np.uint8
    assert mask.shape == frame.shape[:2] and mask.dtype == np.uint8
    assert set(np.unique(mask)) <= {0, 255}
    assert (mask > 0).sum() > 1500
    edge = {"bottom": mask[-1], "top": mask[0], "left": mask[:, 0], "right": mask[:, -1]}[border]
    assert edge.any()
    ty, tx = int(tip[1]), int(tip[0])
    assert mask[max(0, ty - 12):ty + 12, max(0, tx - 12):tx + 12].any()  # the hand reaches the tip
    changed = np.abs(out.astype(int) - frame.astype(int)).sum(axis=2) > 0
    assert changed[mask > 0].mean() > 0.9
    far = cv2.distanceTransform(255 - mask, cv2.DIST_L2, 5) > 3.5 * 40
    assert far.any()
    assert np.array_equal(out[far], frame[far])  # shadow and arm stay near the arm
