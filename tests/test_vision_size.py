"""The tile length across a frame: fitted to tiles measured alone, so a tilted camera's far tiles
are packed smaller than its near ones."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.vision.config import VisionConfig
from referee.vision.size import TileSize
from referee.vision.split import Box, estimate_tile_size, split_blobs

SIDE = 1280.0


def _field(rng: np.random.Generator, n: int, base: float, dx: float, dy: float,
           noise: float) -> list[tuple[float, float, float]]:
    xs, ys = rng.uniform(0, SIDE, n), rng.uniform(0, 720, n)
    return [(float(x), float(y), float(base + dx * (x - 640) + dy * (y - 360) + rng.normal(0, noise)))
            for x, y in zip(xs, ys, strict=True)]


@pytest.mark.parametrize("seed", range(5))
def test_a_sloping_field_is_recovered_within_a_pixel(seed: int) -> None:
    rng = np.random.default_rng(seed)
    dx, dy = rng.uniform(-0.02, 0.02), rng.uniform(-0.03, 0.03)
    size = TileSize.fit(_field(rng, 14, 60.0, dx, dy, 0.5), 6, 0.15, SIDE)
    for x, y in ((100, 100), (640, 360), (1200, 650), (300, 600)):
        assert size.at(x, y) == pytest.approx(60 + dx * (x - 640) + dy * (y - 360), abs=1.5)


def test_a_blob_of_two_tiles_taken_for_one_does_not_tilt_the_field() -> None:
    rng = np.random.default_rng(7)
    samples = _field(rng, 12, 50.0, 0.0, 0.0, 0.4)
    samples[3] = (samples[3][0], samples[3][1], 100.0)
    size = TileSize.fit(samples, 6, 0.15, SIDE)
    assert size.length == pytest.approx(50, abs=1)
    assert size.at(samples[3][0], samples[3][1]) == pytest.approx(50, abs=1.5)


def test_few_tiles_give_the_same_length_everywhere() -> None:
    size = TileSize.fit([(100, 100, 40.0), (900, 600, 60.0), (500, 300, 50.0)], 6, 0.15, SIDE)
    assert size.at(0, 0) == size.at(1280, 720) == 50.0


def test_tiles_in_one_row_say_nothing_across_it() -> None:
    # Along the row the length grows; across it no tile was measured: the field stays level.
    samples = [(100.0 + 100 * i, 300.0, 50.0 + 1.0 * i) for i in range(10)]
    size = TileSize.fit(samples, 6, 0.15, SIDE)
    assert size.at(550, 0) == pytest.approx(size.at(550, 700), abs=0.5)
    assert size.at(1000, 300) > size.at(100, 300) + 6


def test_the_field_is_held_within_the_lengths_measured() -> None:
    rng = np.random.default_rng(3)
    samples = [(x, y, 40 + 0.02 * x) for x, y, _ in _field(rng, 10, 0, 0, 0, 0) if 300 < x < 900]
    samples += [(600.0, 100.0, 52.0), (320.0, 650.0, 46.4), (880.0, 500.0, 57.6)]
    size = TileSize.fit(samples, 6, 0.15, SIDE)
    most = max(s[2] for s in samples)
    assert size.at(5000, 360) == pytest.approx(most * 1.15)


def test_scaled_fields_scale_every_length() -> None:
    rng = np.random.default_rng(11)
    size = TileSize.fit(_field(rng, 10, 60.0, 0.01, -0.02, 0.3), 6, 0.15, SIDE)
    for x, y in ((10, 10), (700, 400)):
        assert size.scaled(2).at(2 * x, 2 * y) == pytest.approx(2 * size.at(x, y))


def _tile(mask: np.ndarray, cx: float, cy: float, length: float, angle: float = 0.0) -> None:
    box = Box(cx, cy, length, length / 2, angle)
    cv2.fillPoly(mask, [np.round(box.corners()).astype(np.int32)], 1)


def test_a_tilted_frames_near_run_is_packed_with_near_tiles() -> None:
    """Tiles alone shrink from 70 px at the bottom to 46 px at the top of the frame; a run of
    three touching tiles at the bottom is packed with three tiles of the bottom's length, not
    four of the frame's middle length."""
    config = VisionConfig()
    mask = np.zeros((720, 1280), np.uint8)

    def length_at(y: float) -> float:
        return 46 + 24 * y / 720

    for x in (150, 400, 650, 900, 1150):
        for y in (80, 330):
            _tile(mask, x, y, length_at(y))
    near = length_at(640)
    for i in range(3):
        _tile(mask, 500 + i * near, 640, near)
    size = estimate_tile_size(mask, config)
    assert size is not None
    assert size.at(640, 640) == pytest.approx(near, rel=0.06)
    assert size.measured == 10  # the lone tiles it rests on (not the run's three)
    boxes, _ = split_blobs(mask, size, config)
    run = sorted((b for b in boxes if b.cy > 600), key=lambda b: b.cx)
    assert len(run) == 3
    for i, box in enumerate(run):
        assert box.cx == pytest.approx(500 + i * near, abs=0.15 * near)
        assert box.length == pytest.approx(near, rel=0.1)
    assert len(boxes) == 13
