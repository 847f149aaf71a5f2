"""The renderer's truth agrees with its pixels.

The scikit-image pattern: draw with known truth, then check. Each face-up tile of a seeded still
is cut out of the image along its truth ``corners``, each half is rectified to a square and its
pips are counted; the count must equal the truth's ``pips``. ``halves`` and ``center`` must sit
where the corners say.

``TilePose.corners`` (scene.py) lists the top face's corners counter-clockwise on the table from
half 0's outer end: corners 0 and 3 close half 0's end, corners 1 and 2 half 1's end, so the
long sides are 0-1 and 3-2 and the divider joins their midpoints.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import cv2
import numpy as np

from referee.render.camera import Camera, CameraSpec
from referee.render.compose import Finish, render
from referee.render.generate import Options
from referee.render.scene import Lighting, Scene, Table, TilePose, TileSize
from referee.render.sprites import PIP_LAYOUT
from referee.render.stills import render_still
from referee.render.styles import TableKind, TileLook, TileStyle

SIZE = (1920, 1080)
S = 64  # side of a rectified half, in patch pixels
INSET = 0.15  # share of the half cut off each side: the bevel, the divider groove and the pin
PIP_AREA = math.pi * (0.09 * S) ** 2  # a pip's radius is 0.09 of the tile's width (sprites.py)

# Seeded stills: every kind in every style, two seeds each (the seed also draws the table,
# camera, tilt up to 20 degrees and lens). A style is fixed by Options, so each style gets its
# own seeds: the same seed in another style would only repaint the same scene.
SEEDS = {TileStyle.IVORY: (1, 2), TileStyle.COLOURED: (3, 4), TileStyle.BLACK: (5, 6)}
FRAMES = [(kind, style, seed) for style, seeds in SEEDS.items() for seed in seeds
          for kind in ("scattered", "line", "reveal")]


@functools.cache
def still(kind: str, style: TileStyle, seed: int) -> tuple[np.ndarray, dict[str, Any]]:
    shot = render_still(kind, np.random.default_rng(seed), Options(style=style, size=SIZE))
    return shot.image, shot.truth


def half_quads(corners: Any) -> list[np.ndarray]:
    """The two halves of a tile's quad, each as [outer end, divider, divider, outer end]."""
    c = np.asarray(corners, np.float64)
    m01, m32 = (c[0] + c[1]) / 2, (c[3] + c[2]) / 2
    return [np.array([c[0], m01, m32, c[3]]), np.array([c[1], m01, m32, c[2]])]


def rectify(grey: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The half as an S x S square (outer end at x = 0, divider at x = S), inset by INSET."""
    i = INSET * S
    dst = np.array([[-i, -i], [S - i, -i], [S - i, S - i], [-i, S - i]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    n = round(S - 2 * i)
    return cv2.warpPerspective(grey, m, (n, n), flags=cv2.INTER_CUBIC)


def pip_blobs(patch: np.ndarray) -> list[tuple[float, float]]:
    """Centres (in half coordinates, 0..S) of the dark pips on a light patch."""
    median = float(np.median(patch))
    darkest = float(np.percentile(patch, 0.5))
    if median - darkest < 40:  # no ink at all: a blank half
        return []
    mask = (patch < (median + darkest) / 2).astype(np.uint8)
    n, _, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=4)
    out = []
    for k in range(1, n):
        area = stats[k, cv2.CC_STAT_AREA]
        w, h = stats[k, cv2.CC_STAT_WIDTH], stats[k, cv2.CC_STAT_HEIGHT]
        if 0.3 * PIP_AREA <= area <= 1.8 * PIP_AREA and max(w, h) <= 2 * min(w, h):
            out.append((float(centres[k][0]) + INSET * S, float(centres[k][1]) + INSET * S))
    return out


def layout_error(blobs: list[tuple[float, float]], n: int) -> float:
    """How far (in S units) the blobs lie from the standard pattern of n, in the best of its
    mirror images (which diagonal a 2 or 3 takes is the sprite's business, not the truth's)."""
    best = math.inf
    for fx in (False, True):
        for fy in (False, True):
            expected = [((1 - u) if fx else u, (1 - v) if fy else v) for u, v in PIP_LAYOUT[n]]
            worst = max(min(math.dist((x / S, y / S), e) for e in expected) for x, y in blobs)
            best = min(best, worst)
    return best


def counted_tiles() -> tuple[int, int, list[str]]:
    """Count the pips of every readable tile; return how many tiles were read, how many were
    left out for glare, and every disagreement."""
    tiles, glared, problems = 0, 0, []
    for kind, style, seed in FRAMES:
        image, truth = still(kind, style, seed)
        # A frame with an arm over the table is marked occluded: the arm may cover any tile.
        if truth["occluded"]:
            continue
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        if style is TileStyle.BLACK:
            grey = 255 - grey  # light pips on dark tiles
        # A tile that catches the lamp's glare is washed out on purpose; the truth names it
        # (``scene.glare_tiles`` holds indices into the truth's ``tiles``).
        glare = set(truth["scene"]["glare_tiles"])
        for i, tile in enumerate(truth["tiles"]):
            if i in glare:
                glared += 1
                continue
            tiles += 1
            for half, (quad, n) in enumerate(zip(half_quads(tile["corners"]), tile["pips"], strict=True)):
                blobs = pip_blobs(rectify(grey, quad))
                where = f"{kind} {style.value} seed {seed} tile {i} {tile['pips']} half {half}"
                if len(blobs) != n:
                    problems.append(f"{where}: counted {len(blobs)} pips")
                elif n and layout_error(blobs, n) > 0.08:
                    problems.append(f"{where}: pips {layout_error(blobs, n):.3f} of a half off the pattern")
    return tiles, glared, problems


def test_every_half_shows_its_truth_pips() -> None:
    tiles, glared, problems = counted_tiles()
    assert tiles >= 60
    assert glared <= tiles // 4  # glare is occasional: the exclusion leaves most tiles in
    assert problems == [], "\n".join(problems)


def test_the_sample_has_every_kind_and_style_and_enough_readable_frames() -> None:
    readable = [(kind, style) for kind, style, seed in FRAMES if not still(kind, style, seed)[1]["occluded"]]
    assert {kind for kind, _ in readable} == {"scattered", "line", "reveal"}
    assert {style for _, style in readable} == set(TileStyle)
    tilts = [still(*frame)[1]["scene"]["camera"]["tilt_deg"] for frame in FRAMES]
    assert max(tilts) > 10.0 and all(0.0 <= t <= 20.0 for t in tilts)
    lenses = [still(*frame)[1]["scene"]["camera"]["k1"] for frame in FRAMES]
    assert min(lenses) < -0.05


def _cross(a: np.ndarray, b: np.ndarray) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def test_halves_and_center_lie_where_the_corners_say() -> None:
    for frame in FRAMES:
        image, truth = still(*frame)
        h, w = image.shape[:2]
        assert (truth["width"], truth["height"]) == (w, h) == SIZE
        for tile in truth["tiles"]:
            corners = np.asarray(tile["corners"], np.float64)
            assert corners.shape == (4, 2)
            quads = half_quads(corners)
            # Half i's centre is inside half i of the quad, well away from its edges, and at the
            # crossing of that half's diagonals up to the lens's curvature.
            side = min(np.linalg.norm(corners[3] - corners[0]), np.linalg.norm(corners[2] - corners[1]))
            for half, centre in enumerate(tile["halves"]):
                inside = cv2.pointPolygonTest(quads[half].astype(np.float32), tuple(map(float, centre)), True)
                assert inside > 0.3 * side, (frame, tile, half)
                other = cv2.pointPolygonTest(quads[1 - half].astype(np.float32), tuple(map(float, centre)), True)
                assert other < -0.3 * side, (frame, tile, half)
                q = quads[half]
                mid = (q[0] + q[1] + q[2] + q[3]) / 4
                assert math.dist(mid, centre) < 1.0, (frame, tile, half)
            mid = (np.asarray(tile["halves"][0]) + np.asarray(tile["halves"][1])) / 2
            assert math.dist(mid, tile["center"]) <= 1.5, (frame, tile)
            # The quad is convex and counter-clockwise on the table; seen from above through a
            # camera (image y down) that is a consistent winding too.
            cross = [_cross(corners[(k + 1) % 4] - corners[k], corners[(k + 2) % 4] - corners[(k + 1) % 4])
                     for k in range(4)]
            assert all(c > 0 for c in cross) or all(c < 0 for c in cross), (frame, tile)
            # The long sides are 0-1 and 3-2, about twice the ends.
            long_side = np.linalg.norm(corners[1] - corners[0])
            assert 1.6 < long_side / side < 2.5, (frame, tile)
        for tile in truth["face_down"]:
            corners = np.asarray(tile["corners"], np.float64)
            assert math.dist(corners.mean(axis=0), tile["center"]) < 1.5


def test_every_tile_is_inside_the_image_and_no_two_overlap() -> None:
    """Tiles on a real table never lie on top of each other, and every tile of a still is in
    the frame (the camera is aimed at all of them)."""
    problems = []
    for frame in FRAMES:
        _, truth = still(*frame)
        quads = [np.asarray(t["corners"], np.float32) for t in truth["tiles"] + truth["face_down"]]
        for q in quads:
            assert (q >= 0).all() and (q[:, 0] <= SIZE[0] - 1).all() and (q[:, 1] <= SIZE[1] - 1).all()
        for a in range(len(quads)):
            for b in range(a + 1, len(quads)):
                # Touching tiles may share a sliver along an edge (angle jitter); a real overlap
                # covers a good part of a tile.
                area, _ = cv2.intersectConvexConvex(quads[a], quads[b])
                smaller = min(cv2.contourArea(quads[a]), cv2.contourArea(quads[b]))
                if area > 0.02 * smaller:
                    problems.append(f"{frame}: tiles {a} and {b} overlap by {area / smaller:.0%}")
    assert problems == [], "\n".join(problems)


def test_line_and_reveal_tiles_never_overlap_over_many_hands() -> None:
    """The same at a small size over more hands: the snake of a long line and the reveal rows
    at the players' edges must find room instead of laying tiles on others."""
    problems = []
    for seed in range(10, 22):
        for kind in ("line", "reveal"):
            truth = render_still(kind, np.random.default_rng(seed), Options(size=(640, 360))).truth
            quads = [np.asarray(t["corners"], np.float32) for t in truth["tiles"] + truth["face_down"]]
            for a in range(len(quads)):
                for b in range(a + 1, len(quads)):
                    area, _ = cv2.intersectConvexConvex(quads[a], quads[b])
                    smaller = min(cv2.contourArea(quads[a]), cv2.contourArea(quads[b]))
                    if area > 0.02 * smaller:
                        problems.append(f"{kind} seed {seed}: tiles {a} and {b} overlap by {area / smaller:.0%}")
    assert problems == [], "\n".join(problems)


# -- a neighbour never paints over a tile's top face -------------------------------------------
def _two_tiles(order: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tile A and, just beyond it seen from the camera, tile B (end to end, no gap), drawn in
    ``order``; and the same scene with A alone. Returns both images and A's top-face quad."""
    size = TileSize()
    look = TileLook(TileStyle.IVORY)
    a = TilePose((3, 5), 250.0, 0.0, 0.0, True, look)
    b = TilePose((2, 6), 250.0 + size.length, 0.0, 0.0, True, look)
    camera = Camera(CameraSpec(1280, 720, height_mm=600.0, hfov_deg=70.0))
    table = Table(TableKind.FELT, seed=3)
    lighting = Lighting(strength=0.0, vignette=0.0)
    finish = Finish(blur_sigma=0.0, noise_sigma=0.0, jpeg_quality=0)
    tiles = [a, b]
    both = Scene(table, size, tuple(tiles[k] for k in order), lighting)
    alone = dataclasses.replace(both, tiles=(a,))
    image_both = render(both, camera, finish, np.random.default_rng(0))
    image_alone = render(alone, camera, finish, np.random.default_rng(0))
    return image_both, image_alone, camera.project(a.corners(size, size.thickness))


def test_a_neighbour_drawn_later_leaves_the_top_face_alone() -> None:
    """Seen from above at an angle, tile B's side face towards the camera hides behind tile A's
    top; it must not be painted over it. A's top face (two pixels in from its outline) is the
    same with and without B, whichever is drawn first."""
    for order in ((0, 1), (1, 0)):
        both, alone, quad = _two_tiles(order)
        mask = np.zeros(both.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
        mask = cv2.erode(mask, np.ones((5, 5), np.uint8))
        diff = np.abs(both.astype(np.int16) - alone.astype(np.int16)).max(axis=2)[mask > 0]
        assert mask.sum() > 1000
        assert int(diff.max()) <= 12, (order, int(diff.max()), int((diff > 12).sum()))
