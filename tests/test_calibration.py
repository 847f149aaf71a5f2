"""Calibration: markers and checkerboards drawn with known truth (the renderer's camera and lens),
then found again; profiles; the marker sheet; ``referee calibrate`` as a real subprocess."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import helpers
import numpy as np
import pytest
from helpers import REPO, one_error_line

from referee.render.camera import Camera, CameraSpec
from referee.vision.calibrate import (
    CalibrationError,
    CheckerboardNotFound,
    MarkersNotFound,
    calibrate,
    calibrate_lens,
    find_markers,
    table_homography,
)
from referee.vision.config import ConfigError, VisionConfig
from referee.vision.markers import MarkerSheet, load_sheet, marker_cells, sheet_svg
from referee.vision.profile import Profile, load_profile, save_profile

SHEET = MarkerSheet()
CORNERS = np.array([(-300.0, -220.0), (300.0, -220.0), (300.0, 220.0), (-300.0, 220.0)])  # near left first
LENS = dict(k1=-0.18, k2=0.03)


# -- drawing with known truth ----------------------------------------------------------------------
class Canvas:
    """The table top in millimetres, drawn at ``res`` mm per pixel (pixel centres on the grid)."""

    def __init__(self, rng: np.random.Generator, extent: tuple[float, float, float, float], res: float = 0.5) -> None:
        self.x0, x1, y0, self.y1 = extent
        self.res = res
        w, h = int((x1 - self.x0) / res) + 1, int((self.y1 - y0) / res) + 1
        coarse = cv2.GaussianBlur(rng.normal(0, 1, (h // 8 + 2, w // 8 + 2)).astype(np.float32), (0, 0), 2)
        grain = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.2)
        lum = 120 + 25 * cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC) + 10 * grain
        self.image = np.clip(np.stack([lum * 0.6, lum * 0.8, lum], axis=2), 0, 255).astype(np.uint8)

    def paint(self, cells: np.ndarray, cell_mm: float, centre: tuple[float, float], turn: float) -> None:
        """A pattern of black (True) and white cells, row 0 at the far (+y) side, with a white
        margin one cell wide, turned by ``turn`` about its centre; area-sampled 4x4 per pixel."""
        rows, cols = cells.shape
        hw, hh = cols * cell_mm / 2, rows * cell_mm / 2
        reach = math.hypot(hw + cell_mm, hh + cell_mm) + self.res
        i0, i1 = int((centre[0] - reach - self.x0) / self.res), int((centre[0] + reach - self.x0) / self.res) + 1
        j0, j1 = int((self.y1 - centre[1] - reach) / self.res), int((self.y1 - centre[1] + reach) / self.res) + 1
        jj, ii = np.mgrid[j0:j1 + 1, i0:i1 + 1].astype(np.float64)
        white, black = np.zeros(ii.shape), np.zeros(ii.shape)
        c, s = math.cos(turn), math.sin(turn)
        for dy in np.arange(4) / 4 - 0.375:
            for dx in np.arange(4) / 4 - 0.375:
                x = self.x0 + (ii + dx) * self.res - centre[0]
                y = self.y1 - (jj + dy) * self.res - centre[1]
                lx, ly = c * x + s * y, -s * x + c * y
                inside = (np.abs(lx) < hw + cell_mm) & (np.abs(ly) < hh + cell_mm)
                k, r = np.floor((lx + hw) / cell_mm).astype(int), np.floor((hh - ly) / cell_mm).astype(int)
                on = (k >= 0) & (k < cols) & (r >= 0) & (r < rows)
                dark = np.zeros(ii.shape, bool)
                dark[on] = cells[r[on], k[on]]
                white += inside & ~dark
                black += dark
        white, black = white[:, :, None] / 16, black[:, :, None] / 16
        patch = self.image[j0:j1 + 1, i0:i1 + 1].astype(np.float64)
        patch = patch * (1 - white - black) + 235 * white + 25 * black
        self.image[j0:j1 + 1, i0:i1 + 1] = np.clip(np.round(patch), 0, 255).astype(np.uint8)

    def photograph(self, camera: Camera, rng: np.random.Generator, noise: float = 3.0, blur: float = 0.8) -> np.ndarray:
        """The canvas through the camera and its lens (drawn at twice the size, then averaged)."""
        a = np.array([[1 / self.res, 0, -self.x0 / self.res], [0, -1 / self.res, self.y1 / self.res], [0, 0, 1]])
        mx, my = camera.canvas_margin()
        w, h = camera.spec.width + 2 * mx, camera.spec.height + 2 * my
        twice = np.array([[2, 0, 0.5], [0, 2, 0.5], [0, 0, 1]]) @ camera.plane_homography(0.0, (mx, my))
        big = cv2.warpPerspective(self.image, twice @ np.linalg.inv(a), (2 * w, 2 * h), flags=cv2.INTER_LINEAR,
                                  borderValue=(60, 60, 60))
        flat = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
        image = cv2.remap(flat, *camera.lens_maps(), cv2.INTER_LINEAR)
        image = cv2.GaussianBlur(image, (0, 0), blur) if blur else image
        return np.clip(image + rng.normal(0, noise, image.shape), 0, 255).astype(np.uint8)


def marker_scene(seed: int, spec: CameraSpec | None = None, hide: int | None = None) -> tuple[np.ndarray, Camera,
                                                                                              np.ndarray]:
    """A frame of the four markers, laid by hand near the corners at any turn; also the camera
    and the markers' true centres (world mm)."""
    rng = np.random.default_rng(seed)
    if spec is None:
        spec = CameraSpec(1280, 960, height_mm=1000.0, tilt_deg=float(rng.uniform(0, 20)),
                          tilt_azimuth_deg=float(rng.uniform(0, 360)), yaw_deg=float(rng.uniform(-25, 25)),
                          roll_deg=float(rng.uniform(-3, 3)), hfov_deg=65.0)
    centres = CORNERS + rng.uniform(-30, 30, CORNERS.shape)
    canvas = Canvas(rng, (-700, 700, -600, 600))
    for marker_id, centre, turn in zip(SHEET.ids, centres, rng.uniform(-math.pi, math.pi, 4), strict=True):
        if marker_id != hide:
            canvas.paint(marker_cells(SHEET, marker_id), SHEET.marker_mm / 6, (centre[0], centre[1]), turn)
    camera = Camera(spec)
    return canvas.photograph(camera, rng, noise=float(rng.uniform(1, 4)), blur=float(rng.uniform(0.5, 1.2))), \
        camera, centres


def to_table(centres: np.ndarray, world: np.ndarray) -> np.ndarray:
    """World mm -> the table frame: origin at marker 0, x towards marker 1 (y towards marker 3)."""
    d = centres[1] - centres[0]
    c, s = math.cos(-math.atan2(d[1], d[0])), math.sin(-math.atan2(d[1], d[0]))
    q = world - centres[0]
    return np.column_stack([c * q[:, 0] - s * q[:, 1], s * q[:, 0] + c * q[:, 1]])


def table_error(profile: Profile, camera: Camera, centres: np.ndarray, seed: int = 0) -> float:
    """The largest distance (mm) between where the profile puts table points seen in the frame
    and where they are, over the area between the markers."""
    rng = np.random.default_rng(seed)
    world = np.column_stack([rng.uniform(-320, 320, 300), rng.uniform(-240, 240, 300)])
    seen = camera.project(np.column_stack([world, np.zeros(len(world))]))
    return float(np.linalg.norm(profile.image_to_table(seen) - to_table(centres, world), axis=1).max())


def board_views(count: int, seed: int = 5) -> list[np.ndarray]:
    """A 9x6 (inner corners) checkerboard of 25 mm squares on the table, seen from ``count``
    tilted viewpoints through one lens."""
    rng = np.random.default_rng(seed)
    canvas = Canvas(rng, (-350, 350, -260, 260))
    canvas.paint(np.indices((7, 10)).sum(axis=0) % 2 == 0, 25.0, (0.0, 0.0), 0.1)
    views = []
    for k in range(count):
        spec = CameraSpec(960, 720, height_mm=float(rng.uniform(380, 460)), tilt_deg=float(rng.uniform(15, 35)),
                          tilt_azimuth_deg=360.0 * k / count + float(rng.uniform(-20, 20)),
                          yaw_deg=float(rng.uniform(-30, 30)), hfov_deg=70.0,
                          target=(float(rng.uniform(-40, 40)), float(rng.uniform(-30, 30))), **LENS)
        views.append(canvas.photograph(Camera(spec), rng, noise=2.0, blur=0.7))
    return views


# -- markers and the table plane ---------------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_table_plane_is_found_within_a_millimetre(seed: int) -> None:
    frame, camera, centres = marker_scene(seed)
    before = frame.copy()
    profile = calibrate(frame, SHEET)
    assert np.array_equal(frame, before)
    assert table_error(profile, camera, centres) < 1.0
    assert profile.marker_rms_px is not None and profile.marker_rms_px < 0.2
    assert profile.markers_mm is not None
    assert np.abs(np.array(profile.markers_mm) - to_table(centres, centres)).max() < 1.0
    assert profile.markers_mm[3][1] > 0  # y towards marker 3
    # The scale a tile sees at the centre: the camera's own, through its homography.
    w, h = camera.spec.width, camera.spec.height
    jac = _truth_scale(camera, profile, (w - 1) / 2, (h - 1) / 2)
    assert profile.px_per_mm((w - 1) / 2, (h - 1) / 2) == pytest.approx(jac, rel=0.005)
    assert profile.tile_px(w, h) == pytest.approx(48.0 * jac, rel=0.005)
    assert np.allclose(table_homography(frame, SHEET), np.array(profile.homography), rtol=1e-6, atol=1e-9)


def _truth_scale(camera: Camera, profile: Profile, x: float, y: float) -> float:
    m = camera.table_point((x, y))
    pts = np.array([[m[0], m[1], 0.0], [m[0] + 0.5, m[1], 0.0], [m[0], m[1] + 0.5, 0.0]])
    p = camera.project(pts)
    return math.sqrt(abs(np.linalg.det(np.column_stack([p[1] - p[0], p[2] - p[0]]) / 0.5)))


def test_find_markers_gives_ids_and_corners_and_nothing_on_a_bare_table() -> None:
    frame, _, _ = marker_scene(4)
    found = find_markers(frame)
    assert sorted(found) == [0, 1, 2, 3] and all(c.shape == (4, 2) for c in found.values())
    bare = np.full((480, 640, 3), 128, np.uint8)
    assert find_markers(bare) == {} and not find_markers(cv2.cvtColor(bare, cv2.COLOR_BGR2GRAY))


def test_a_hidden_marker_is_named() -> None:
    frame, _, _ = marker_scene(6, hide=2)
    with pytest.raises(MarkersNotFound, match=r"markers not found: 2 \(saw 0, 1, 3\)") as caught:
        calibrate(frame, SHEET)
    assert caught.value.missing == (2,) and isinstance(caught.value, ValueError)
    with pytest.raises(MarkersNotFound, match="saw none"):
        table_homography(np.zeros((300, 400), np.uint8), SHEET)


# -- the lens ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def boards() -> list[np.ndarray]:
    return board_views(6)


def test_the_lens_is_recovered_from_checkerboards(boards: list[np.ndarray]) -> None:
    truth = Camera(CameraSpec(960, 720, hfov_deg=70.0, **LENS))
    k, dist, rms = calibrate_lens(boards, (9, 6), 25.0)
    assert rms < 0.3
    assert dist[0] == pytest.approx(LENS["k1"], abs=0.02)
    assert k[0, 0] == pytest.approx(truth.K[0, 0], rel=0.01) and k[1, 1] == pytest.approx(truth.K[1, 1], rel=0.01)
    assert np.abs(k[:2, 2] - truth.K[:2, 2]).max() < 5.0


def test_lens_calibration_errors(boards: list[np.ndarray]) -> None:
    blank = np.full_like(boards[0], 200)
    with pytest.raises(CheckerboardNotFound, match="checkerboard frame 2: no 9x6") as caught:
        calibrate_lens([boards[0], boards[1], blank, boards[2]])
    assert caught.value.index == 2
    with pytest.raises(CalibrationError, match="at least 3 checkerboard frames, got 2"):
        calibrate_lens(boards[:2])
    with pytest.raises(CalibrationError, match="frame 1 is 480x360"):
        calibrate_lens([boards[0], cv2.resize(boards[1], (480, 360)), boards[2]])


def test_a_calibrated_lens_keeps_the_table_within_a_millimetre(boards: list[np.ndarray]) -> None:
    spec = CameraSpec(960, 720, height_mm=1150.0, tilt_deg=12.0, tilt_azimuth_deg=70.0, yaw_deg=8.0, hfov_deg=70.0,
                      **LENS)
    frame, camera, centres = marker_scene(7, spec)
    plain = calibrate(frame, SHEET)
    lensed = calibrate(frame, SHEET, boards, (9, 6), 25.0)
    assert lensed.has_lens and lensed.lens_rms_px is not None
    assert table_error(lensed, camera, centres) < 1.0
    assert table_error(plain, camera, centres) > 3.0  # what the lens costs when it is ignored
    x, y = 300.0, 200.0
    assert lensed.px_per_mm(x, y) == pytest.approx(_truth_scale(camera, lensed, x, y), rel=0.01)


# -- profiles ----------------------------------------------------------------------------------
PROFILE = Profile((1280, 960), ((1.1, 0.02, -700.0), (-0.01, -1.05, 500.0), (1e-5, 2e-5, 1.0)),
                  ((1000.0, 0.0, 640.0), (0.0, 1000.0, 480.0), (0.0, 0.0, 1.0)), (-0.18, 0.03, 0.0, 0.0, 0.0),
                  60.0, VisionConfig(tile_mm=(40.0, 20.0)), 0.05, 0.2, ((0.0, 0.0), (600.0, 0.0), (600.0, 440.0),
                                                                           (0.0, 440.0)))


def test_profile_round_trips_through_json_and_repr(tmp_path: Path) -> None:
    assert Profile.from_json(json.loads(json.dumps(PROFILE.to_json()))) == PROFILE
    assert eval(repr(PROFILE), {"Profile": Profile, "VisionConfig": VisionConfig}) == PROFILE
    save_profile(PROFILE, tmp_path / "sub" / "p.json")
    assert load_profile(tmp_path / "sub" / "p.json") == PROFILE
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["p.json"]  # no temporary file left
    with pytest.raises(ConfigError, match=r"p\.json already exists"):
        save_profile(PROFILE, tmp_path / "sub" / "p.json")
    # numpy in, plain floats out (so the repr stays code)
    numpy_made = Profile(np.array([640, 480]), np.eye(3), None, None, np.float64(60.0))
    assert "np." not in repr(numpy_made) and numpy_made.image_size == (640, 480)


def test_profile_geometry() -> None:
    pts = np.array([[10.0, 20.0], [900.0, 700.0], [640.0, 480.0]])
    assert np.allclose(PROFILE.distort_points(PROFILE.undistort_points(pts)), pts, atol=1e-6)
    assert np.allclose(PROFILE.table_to_image(PROFILE.image_to_table(pts)), pts, atol=1e-6)
    plain = Profile((1280, 960), PROFILE.homography)
    assert np.array_equal(plain.undistort_points(pts), pts)
    no_bend = Profile((1280, 960), PROFILE.homography, PROFILE.camera_matrix, (0.0, 0.0, 0.0, 0.0))
    assert plain.px_per_mm(300, 200) == pytest.approx(no_bend.px_per_mm(300, 200), rel=1e-5)  # both ways agree
    assert plain.tile_px(640, 480) == pytest.approx(plain.tile_px(1280, 960) / 2)


def test_a_tilted_profile_expects_smaller_tiles_on_the_far_side() -> None:
    """The tile size a profile expects follows the table plane across the frame: within a few
    per cent of the exact size at any point, and half as large in a half-size frame."""
    tilted = Profile((1280, 960), ((1.0, 0.0, -600.0), (0.0, 1.0, -400.0), (0.0, 4e-4, 1.0)),
                     vision=VisionConfig(tile_mm=(40.0, 20.0)))
    size = tilted.tile_size(1280, 960)
    for x, y in ((100.0, 100.0), (640.0, 480.0), (1100.0, 900.0), (300.0, 800.0)):
        assert size.at(x, y) == pytest.approx(40.0 * tilted.px_per_mm(x, y), rel=0.04)
    assert size.at(640, 900) > 1.2 * size.at(640, 60)
    assert tilted.tile_size(640, 480).at(320, 240) == pytest.approx(size.at(640, 480) / 2, rel=1e-6)
    flat = Profile((1280, 960), ((2.0, 0.0, 0.0), (0.0, 2.0, 0.0), (0.0, 0.0, 1.0)),
                   vision=VisionConfig(tile_mm=(40.0, 20.0)))
    assert flat.tile_size(1280, 960).at(0, 0) == pytest.approx(flat.tile_px(1280, 960)) == pytest.approx(20.0)


@pytest.mark.parametrize(("change", "field"), [
    ({"homography": [[1, 0, 0], [0, 1, 0]]}, "homography"),
    ({"homography": [[1, 0, 0], [0, 1, 0], [0, 0, 0]]}, "homography"),
    ({"homography": None}, "homography"),
    ({"image_size": [1280]}, "image_size"),
    ({"image_size": "1280x960"}, "image_size"),
    ({"camera_matrix": None}, "camera_matrix"),
    ({"camera_matrix": [[0, 0, 1], [0, 1, 1], [0, 0, 1]]}, "camera_matrix"),
    ({"dist_coeffs": [0.1, 0.2, 0.3]}, "dist_coeffs"),
    ({"marker_mm": -5}, "marker_mm"),
    ({"markers_mm": [[0, 0], [1]]}, "markers_mm"),
    ({"vision": {"max_pips": 7}}, "max_pips"),
    ({"vision": {"relook_packed_support": -1}}, "relook_packed_support"),
    ({"vision": {"work_side": 100}}, "work_side"),
    ({"vision": {"bogus": 1}}, "bogus"),
    ({"version": 9}, "version"),
    ({"extra": 1}, "extra"),
])
def test_bad_profile_files_name_the_file_and_the_field(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    data = {**PROFILE.to_json(), **change}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_profile(path)
    message = str(caught.value)
    assert str(path) in message and field in message and "\n" not in message


def test_unreadable_profiles(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"cannot read profile .*missing\.json"):
        load_profile(tmp_path / "missing.json")
    (tmp_path / "x.json").write_text("{nope", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"x\.json: not valid JSON"):
        load_profile(tmp_path / "x.json")
    (tmp_path / "m.json").write_text(json.dumps({"image_size": [10, 10]}), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"m\.json: homography: missing"):
        load_profile(tmp_path / "m.json")


# -- what calibration/ ships ---------------------------------------------------------------------
def test_the_shipped_sheet_example_and_description() -> None:
    assert load_sheet(REPO / "calibration" / "markers.json") == SHEET
    svg = (REPO / "calibration" / "marker-sheet.svg").read_text(encoding="utf-8")
    assert svg == sheet_svg(SHEET)  # regenerated by calibration/make_sheet.py
    assert len(svg) < 20_000 and "<image" not in svg and "60 mm" in svg and "100 mm" in svg
    example = load_profile(REPO / "calibration" / "profiles" / "example.json")
    assert example.marker_mm == 60.0 and example.has_lens


def test_the_printed_sheet_holds_the_markers_at_their_size() -> None:
    """Rasterise the sheet's black rectangles at 4 px/mm and find the markers on it."""
    svg = sheet_svg(SHEET)
    page = np.full((297 * 4, 210 * 4), 255, np.uint8)
    for group in re.findall(r'<g fill="black"[^>]*>(.*?)</g>', svg, re.S):
        for x, y, w, h in re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/>', group):
            x0, y0 = round(float(x) * 4), round(float(y) * 4)
            page[y0:y0 + round(float(h) * 4), x0:x0 + round(float(w) * 4)] = 0
    found = find_markers(page)
    assert sorted(found) == [0, 1, 2, 3]
    for corners in found.values():
        sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1) / 4
        assert np.allclose(sides, 60.0, atol=0.05)
    assert 'width="100"' in svg  # the scale bar


def test_make_sheet_is_deterministic_and_never_overwrites(tmp_path: Path) -> None:
    out = tmp_path / "sheet.svg"
    run = [sys.executable, str(REPO / "calibration" / "make_sheet.py"), "--out", str(out)]
    assert subprocess.run(run, capture_output=True, text=True, timeout=60, check=False).returncode == 0
    assert out.read_text(encoding="utf-8") == (REPO / "calibration" / "marker-sheet.svg").read_text(encoding="utf-8")
    again = subprocess.run(run, capture_output=True, text=True, timeout=60, check=False)
    assert again.returncode == 2 and "already exists" in again.stderr


# -- referee calibrate -------------------------------------------------------------------------
def referee(cwd: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return helpers.referee("calibrate", *args, cwd=cwd, timeout=120)


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory, boards: list[np.ndarray]) -> Path:
    where = tmp_path_factory.mktemp("frames")
    cv2.imwrite(str(where / "table.png"), marker_scene(8)[0])
    cv2.imwrite(str(where / "hidden.png"), marker_scene(9, hide=3)[0])
    for i, board in enumerate(boards[:3]):
        cv2.imwrite(str(where / f"board{i}.png"), board)
    cv2.imwrite(str(where / "blank.png"), np.full((720, 960, 3), 200, np.uint8))
    (where / "notes.png").write_text("not an image", encoding="utf-8")
    return where


def test_calibrate_saves_a_profile_and_prints_one_line(frames: Path, tmp_path: Path) -> None:
    result = referee(tmp_path, frames / "table.png", "--name", "kitchen", "--tile-mm", "40x20")
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and len(result.stdout.splitlines()) == 1
    line = result.stdout
    assert "calibration/profiles/kitchen.json" in line and "px/mm" in line and "fitted to" in line
    profile = load_profile(tmp_path / "calibration" / "profiles" / "kitchen.json")
    assert profile.image_size == (1280, 960) and profile.vision.tile_mm == (40.0, 20.0)
    again = one_error_line(referee(tmp_path, frames / "table.png", "--name", "kitchen"))
    assert "kitchen.json already exists" in again


def test_calibrate_user_errors_are_one_line(frames: Path, tmp_path: Path) -> None:
    boards = [frames / f"board{i}.png" for i in range(3)]
    cases: list[tuple[list[str | Path], str]] = [
        ([frames / "nope.png"], "cannot read image .*nope.png: No such file"),
        ([frames / "notes.png"], "notes.png: not an image"),
        ([frames / "hidden.png", "--out", tmp_path / "h.json"], r"hidden.png: markers not found: 3 \(saw 0, 1, 2\)"),
        ([frames / "table.png", "--pattern", "9by6"], "--pattern: expected COLSxROWS"),
        ([frames / "table.png", "--name", "../up"], "--name '../up'"),
        ([frames / "table.png", "--marker-mm", "-4"], "--marker-mm: expected a size in mm above 0"),
        ([frames / "table.png", "--checkerboard", boards[0]], "at least 3 frames, got 1"),
        ([frames / "table.png", "--checkerboard", *boards], r"board0.png is 960x720 but .*table.png is 1280x960"),
        ([frames / "blank.png", "--checkerboard", boards[0], frames / "blank.png", boards[1]],
         "blank.png: no 9x6 checkerboard found"),
        ([frames / "table.png", "--sheet", tmp_path / "none.json"], "cannot read marker sheet .*none.json"),
    ]
    for args, pattern in cases:
        line = one_error_line(referee(tmp_path, *args))
        assert line.startswith("referee calibrate: ") and re.search(pattern, line), (args, line)
    assert not (tmp_path / "calibration").exists()
