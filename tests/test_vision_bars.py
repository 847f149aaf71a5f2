"""``referee.vision.bars``: divider bars found over a whole frame, drawn with known truth from
a seeded generator (the scikit-image pattern), on a table lit unevenly."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from referee.vision.bars import Bar, divider_bars
from referee.vision.config import ConfigError, VisionConfig

SHAPE = (600, 900)


def lit_table(rng: np.random.Generator, level: float) -> np.ndarray:
    """A plain grey table (float32 BGR) of lightness about ``level``, brighter at one end and dimmer
    at the other, with a dip in the middle no quadratic follows, and sensor noise."""
    h, w = SHAPE
    xs = np.linspace(0, 1, w, dtype=np.float32)[None, :]
    ys = np.linspace(0, 1, h, dtype=np.float32)[:, None]
    light = 1.0 + 0.15 * (xs - 0.5) - 0.15 * np.exp(-((ys - 0.6) / 0.15) ** 2)
    canvas = np.full((h, w, 3), level, np.float32) * light[..., None]
    return canvas + rng.normal(0, 2.0, canvas.shape).astype(np.float32)


def draw_bars(rng: np.random.Generator, n: int, level: float, ink: float) -> tuple[np.ndarray, list[Bar]]:
    """A frame with n bars of random length (30 to 80 px), thickness (3 to 8 px) and direction,
    well apart, and as many round dots (pips) beside them, with the bars' truth."""
    canvas = lit_table(rng, level)
    truth: list[Bar] = []
    centres: list[tuple[float, float]] = []
    while len(truth) < n:
        x, y = rng.uniform(80, SHAPE[1] - 80), rng.uniform(80, SHAPE[0] - 80)
        if any(math.dist((x, y), c) < 130 for c in centres):
            continue
        length, thick, angle = rng.uniform(30, 80), rng.uniform(3, 8), rng.uniform(0, 180)
        rect = ((x, y), (length, thick), angle)
        cv2.fillPoly(canvas, [np.round(cv2.boxPoints(rect) * 16).astype(np.int32)], (ink, ink, ink),
                     cv2.LINE_AA, 4)
        dot = (x + 30 * math.cos(math.radians(angle + 90)), y + 30 * math.sin(math.radians(angle + 90)))
        cv2.circle(canvas, (round(dot[0] * 16), round(dot[1] * 16)), round(thick * 1.2 * 16), (ink, ink, ink),
                   -1, cv2.LINE_AA, 4)
        centres.append((x, y))
        truth.append(Bar(x, y, length, thick, angle, ink < level))
    return np.clip(canvas, 0, 255).round().astype(np.uint8), truth


def turned(a: float, b: float) -> float:
    """The angle between two undirected lines, degrees (0..90)."""
    d = abs(a - b) % 180
    return min(d, 180 - d)


@pytest.mark.parametrize(("seed", "level", "ink"), [(0, 200, 30), (1, 190, 60), (2, 60, 220), (3, 150, 20)])
def test_every_drawn_bar_is_found_where_it_lies_and_no_dot_is_a_bar(seed: int, level: float, ink: float) -> None:
    image, truth = draw_bars(np.random.default_rng(seed), 8, level, ink)
    found = divider_bars(image, VisionConfig())
    assert len(found) == len(truth)
    for bar in truth:
        near = min(found, key=lambda f: math.dist((f.cx, f.cy), (bar.cx, bar.cy)))
        assert math.dist((near.cx, near.cy), (bar.cx, bar.cy)) < 1.5
        assert abs(near.length - bar.length) < 0.1 * bar.length + 2
        assert abs(near.thickness - bar.thickness) < 2.5
        assert turned(near.angle, bar.angle) < 3
        assert near.dark == bar.dark


def test_bars_come_longest_first_and_the_frame_is_not_modified() -> None:
    image, _ = draw_bars(np.random.default_rng(5), 6, 200, 30)
    before = image.copy()
    found = divider_bars(image, VisionConfig())
    assert np.array_equal(image, before)
    assert [b.length for b in found] == sorted((b.length for b in found), reverse=True)


def test_a_frame_with_no_bar_gives_an_empty_list() -> None:
    rng = np.random.default_rng(6)
    image = np.clip(lit_table(rng, 180), 0, 255).astype(np.uint8)
    assert divider_bars(image, VisionConfig()) == []


def test_bars_shorter_or_fainter_than_the_config_allows_are_not_found() -> None:
    image, truth = draw_bars(np.random.default_rng(7), 4, 200, 30)
    assert divider_bars(image, VisionConfig(bar_least_px=100)) == []
    assert divider_bars(image, VisionConfig(bar_ink=200)) == []
    assert len(divider_bars(image, VisionConfig())) == len(truth)


def test_a_large_frame_is_searched_shrunk_and_the_bars_are_in_its_own_pixels() -> None:
    image, truth = draw_bars(np.random.default_rng(8), 5, 200, 30)
    big = cv2.resize(image, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    found = divider_bars(big, VisionConfig(work_side=900))
    assert len(found) == len(truth)
    for bar in truth:
        assert min(math.dist((f.cx, f.cy), (2 * bar.cx, 2 * bar.cy)) for f in found) < 3


def test_a_bar_repr_pastes_back() -> None:
    bar = Bar(12.5, 30.0, 60.0, 6.0, 45.0, dark=False)
    assert eval(repr(bar)) == bar


@pytest.mark.parametrize("field", ["bar_ink", "bar_window", "bar_aspect", "bar_fill", "bar_least_px", "bar_share",
                                   "bar_least", "bar_reach", "bar_size", "bar_over", "bar_near", "bar_apart",
                                   "bar_known", "bar_halves", "bar_most_known"])
def test_a_bad_bar_setting_is_an_error_naming_it(field: str) -> None:
    with pytest.raises(ConfigError, match=field):
        VisionConfig(**{field: -1.0})


def test_the_lightness_the_detector_has_at_hand_finds_the_same_bars() -> None:
    image, _ = draw_bars(np.random.default_rng(9), 5, 200, 30)
    big = cv2.resize(image, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    config = VisionConfig(work_side=900)
    small = cv2.resize(big, (900, 600), interpolation=cv2.INTER_AREA)
    lightness = cv2.cvtColor(small, cv2.COLOR_BGR2Lab)[..., 0].astype(np.float32)
    assert divider_bars(big, config, lightness) == divider_bars(big, config)
