"""The renderer's camera: projection, the plane homographies, the lens maps, and aiming."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from referee.render.camera import Camera, CameraSpec
from referee.render.generate import Options, aim, boneyard, draw_setting, line_scene, reveal_tiles, rules_for
from referee.render.stills import played_hand

CAMERAS = [
    CameraSpec(1920, 1080, height_mm=800.0, tilt_deg=18.0, tilt_azimuth_deg=30.0, yaw_deg=40.0, roll_deg=2.0,
               hfov_deg=70.0, k1=-0.2, k2=0.05, target=(30.0, -20.0), principal_offset=(5.0, -4.0)),
    CameraSpec(1280, 720, height_mm=650.0, tilt_deg=20.0, tilt_azimuth_deg=200.0, yaw_deg=-120.0, roll_deg=-3.0,
               hfov_deg=60.0, k1=0.04, k2=-0.02),
    CameraSpec(4032, 3024, height_mm=1100.0, tilt_deg=5.0, hfov_deg=75.0, k1=-0.12, k2=0.06),
    CameraSpec(640, 360),  # straight down, no lens distortion
]


def table_points(n: int, z: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.uniform(-350, 350, n), rng.uniform(-250, 250, n), np.full(n, z)])


@pytest.mark.parametrize("spec", CAMERAS)
def test_project_is_the_plane_homography_then_the_lens(spec: CameraSpec) -> None:
    camera = Camera(spec)
    for z in (0.0, 7.5):
        pts = table_points(300, z)
        final = camera.project(pts)
        h = camera.plane_homography(z)
        undistorted = (h @ np.column_stack([pts[:, :2], np.ones(len(pts))]).T).T
        undistorted = undistorted[:, :2] / undistorted[:, 2:3]
        assert np.abs(camera.project_undistorted(pts) - undistorted).max() < 1e-6
        # The lens: back to normalised camera rays through K, then OpenCV's distortion model.
        rays = (np.linalg.inv(camera.K) @ np.column_stack([undistorted, np.ones(len(pts))]).T).T
        lensed, _ = cv2.projectPoints(rays.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), camera.K, camera.dist)
        assert np.abs(lensed.reshape(-1, 2) - final).max() < 1e-6
        # An offset homography is the same picture shifted.
        shifted = camera.plane_homography(z, (12.0, -7.0)) @ np.array([pts[0, 0], pts[0, 1], 1.0])
        assert np.allclose(shifted[:2] / shifted[2], undistorted[0] + (12.0, -7.0))
        # table_point inverts the homography.
        back = camera.table_point((float(undistorted[0, 0]), float(undistorted[0, 1])), z)
        assert math.dist(back, pts[0, :2]) < 1e-6


def test_the_camera_is_where_the_spec_says() -> None:
    spec = CameraSpec(1920, 1080, height_mm=900.0, tilt_deg=15.0, yaw_deg=30.0, target=(40.0, -25.0))
    camera = Camera(spec)
    assert camera.centre[2] == pytest.approx(900.0)
    # The optical axis meets the table at the target: the target is seen at the principal point.
    seen = camera.project_undistorted(np.array([[40.0, -25.0, 0.0]]))[0]
    assert np.allclose(seen, camera.K[:2, 2], atol=1e-6)
    # Tilt: the axis leans 15 degrees from straight down.
    axis = camera.R.T[:, 2]
    assert math.degrees(math.acos(-axis[2])) == pytest.approx(15.0)
    # Straight down with no yaw: +x is image right and +y image up.
    flat = Camera(CameraSpec(1920, 1080))
    p = flat.project(np.array([[0.0, 0.0, 0.0], [100.0, 0.0, 0.0], [0.0, 100.0, 0.0]]))
    assert p[1, 0] > p[0, 0] and abs(p[1, 1] - p[0, 1]) < 1e-6
    assert p[2, 1] < p[0, 1] and abs(p[2, 0] - p[0, 0]) < 1e-6


@pytest.mark.parametrize("spec", CAMERAS)
def test_lens_maps_send_each_final_pixel_to_its_canvas_position(spec: CameraSpec) -> None:
    camera = Camera(spec)
    map_x, map_y = camera.lens_maps()
    w, h = spec.width, spec.height
    assert map_x.shape == map_y.shape == (h, w) and map_x.dtype == map_y.dtype == np.float32
    mx, my = camera.canvas_margin()
    # Every final pixel reads from inside the canvas.
    assert map_x.min() >= 0 and map_x.max() <= w + 2 * mx - 1
    assert map_y.min() >= 0 and map_y.max() <= h + 2 * my - 1
    # World points: where the lens puts them (project) the maps read their undistorted place.
    pts = table_points(400, 7.5, seed=1)
    final = camera.project(pts)
    inside = camera.visible(final, border=1.0)
    assert inside.sum() > 50
    final = final[inside]
    canvas = camera.project_undistorted(pts[inside], (float(mx), float(my)))
    fx = final[:, 0].astype(np.float32).reshape(1, -1)
    fy = final[:, 1].astype(np.float32).reshape(1, -1)
    read_x = cv2.remap(map_x, fx, fy, cv2.INTER_LINEAR).ravel()
    read_y = cv2.remap(map_y, fx, fy, cv2.INTER_LINEAR).ravel()
    err = np.hypot(read_x - canvas[:, 0], read_y - canvas[:, 1])
    assert err.max() < 0.05, err.max()
    # And pixel by pixel on a grid: distorting the position a map gives returns the pixel.
    ys, xs = np.mgrid[0:h:17, 0:w:23]
    got = np.column_stack([map_x[ys.ravel(), xs.ravel()], map_y[ys.ravel(), xs.ravel()]]).astype(np.float64)
    rays = (np.linalg.inv(camera.K) @ np.column_stack([got - (mx, my), np.ones(len(got))]).T).T
    again, _ = cv2.projectPoints(rays.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), camera.K, camera.dist)
    err = np.hypot(*(again.reshape(-1, 2) - np.column_stack([xs.ravel(), ys.ravel()])).T)
    assert err.max() < 0.05, err.max()


def test_a_picture_through_the_lens_lands_where_project_says() -> None:
    """Draw dots on the undistorted canvas, remap with the lens maps, find them where project()
    puts the world points (the full chain the renderer uses)."""
    spec = CAMERAS[0]
    camera = Camera(spec)
    mx, my = camera.canvas_margin()
    canvas = np.zeros((spec.height + 2 * my, spec.width + 2 * mx), np.uint8)
    pts = np.array([[x, y, 0.0] for x in (-300.0, -100.0, 100.0, 300.0) for y in (-200.0, 0.0, 200.0)])
    where = camera.project_undistorted(pts, (float(mx), float(my)))
    for x, y in where:
        cv2.circle(canvas, (round(x * 16), round(y * 16)), 6 * 16, 255, -1, cv2.LINE_AA, shift=4)
    map_x, map_y = camera.lens_maps()
    image = cv2.remap(canvas, map_x, map_y, cv2.INTER_LINEAR)
    n, _, _, centres = cv2.connectedComponentsWithStats((image > 127).astype(np.uint8))
    expected = camera.project(pts)
    expected = expected[camera.visible(expected, border=10.0)]
    assert n - 1 == len(expected) >= 6
    for e in expected:
        assert min(math.dist(e, c) for c in centres[1:]) < 0.3


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (4032, 3024)])
def test_aim_shows_every_tile_corner(size: tuple[int, int]) -> None:
    """A whole hand's table (line, boneyard and reveal; up to four players) in every frame size
    and tilt: every corner of every tile, its top face and its foot, is inside the image."""
    for seed in range(6):
        rng = np.random.default_rng(seed)
        options = Options(size=size, variant=("draw", "fives", "partners")[seed % 3])
        rules = rules_for(options)
        setting = draw_setting(rng, options)
        hand = played_hand(rules, rng, to_end=True)
        _, poses = line_scene(setting, hand.table, rng)
        poses += boneyard(setting, [(t.high, t.low) for t in hand.boneyard()], poses, rng)
        held = [[(t.high, t.low) for t in hand.held(s)] for s in range(rules.players)]
        poses += reveal_tiles(setting, held, rules.players, rng, poses)
        camera = aim(setting, poses, rng)
        assert (camera.spec.width, camera.spec.height) == size
        assert camera.spec.tilt_deg <= 20.0
        tile = setting.size
        for z in (tile.thickness, 0.0):
            corners = np.concatenate([p.corners(tile, z) for p in poses])
            seen = camera.project(corners)
            assert camera.visible(seen).all(), (seed, z)


def test_every_drawn_lens_sees_a_real_ray_at_every_pixel() -> None:
    """OpenCV's radial model r_d = r (1 + k1 r^2 + k2 r^4) turns back on itself beyond some r;
    a lens the generator draws must not fold inside the picture, or the corner pixels see no
    ray at all (and the maps read nonsense there)."""
    folded = []
    radii = np.linspace(0.0, 3.0, 30001)
    for seed in range(400):
        spec = draw_setting(np.random.default_rng(seed), Options()).camera_spec
        camera = Camera(spec)
        corners = np.array([[0.0, 0.0], [spec.width - 1.0, 0.0], [0.0, spec.height - 1.0],
                            [spec.width - 1.0, spec.height - 1.0]])
        reach = float(np.hypot(*((corners - camera.K[:2, 2]) / camera.K[0, 0]).T).max())
        rd = radii * (1 + spec.k1 * radii**2 + spec.k2 * radii**4)
        rising = np.diff(rd) > 0
        fold = float(rd[int(np.argmin(rising))]) if not rising.all() else math.inf
        if reach >= fold:
            folded.append(f"seed {seed}: {spec.width}x{spec.height} hfov {spec.hfov_deg:.1f} k1 {spec.k1:.3f} "
                          f"k2 {spec.k2:.3f}: corner at r_d {reach:.3f}, the lens folds at r_d {fold:.3f}")
    assert folded == [], f"{len(folded)} of 400 lenses fold inside the picture, e.g.\n" + "\n".join(folded[:5])
