"""A pinhole camera with radial lens distortion above the table.

World coordinates are millimetres on the table: x to the right, y away from seat 0 (up in an
unrotated image), z up from the table top. The camera looks down at ``target`` from ``height``
with a tilt of up to 20 degrees, a yaw (how the table is turned in the image) and a small roll.
Distortion follows OpenCV's model, so a calibration of rendered frames recovers it.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import cv2
import numpy as np


@dataclasses.dataclass(frozen=True)
class CameraSpec:
    """Every parameter of a camera, in the units a person setting one up would use."""

    width: int
    height: int
    height_mm: float = 800.0
    tilt_deg: float = 0.0
    tilt_azimuth_deg: float = 0.0
    yaw_deg: float = 0.0
    roll_deg: float = 0.0
    hfov_deg: float = 65.0
    k1: float = 0.0
    k2: float = 0.0
    target: tuple[float, float] = (0.0, 0.0)
    principal_offset: tuple[float, float] = (0.0, 0.0)


def _rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], dtype=np.float64)


def _rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float64)


class Camera:
    """Projection of table points into the final (distorted) image and into an undistorted
    canvas the renderer draws on before applying the lens."""

    def __init__(self, spec: CameraSpec) -> None:
        self.spec = spec
        w, h = spec.width, spec.height
        f = (w / 2) / math.tan(math.radians(spec.hfov_deg) / 2)
        cx = (w - 1) / 2 + spec.principal_offset[0]
        cy = (h - 1) / 2 + spec.principal_offset[1]
        self.K = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]], dtype=np.float64)
        self.dist = np.array([spec.k1, spec.k2, 0.0, 0.0, 0.0], dtype=np.float64)
        # Columns: the camera's x, y, z axes in world coordinates, looking straight down with
        # image right = +x and image down = -y; then tilt about a horizontal axis, turn the
        # whole view by yaw, and roll about the optical axis.
        base = np.array([[1, 0, 0], [0, -1, 0], [0, 0, -1]], dtype=np.float64)
        tilt = _rot_z(math.radians(spec.tilt_azimuth_deg)) @ _rot_x(math.radians(spec.tilt_deg)) @ \
            _rot_z(-math.radians(spec.tilt_azimuth_deg))
        cam_to_world = _rot_z(math.radians(spec.yaw_deg)) @ tilt @ base @ _rot_z(math.radians(spec.roll_deg))
        self.R = cam_to_world.T
        axis = cam_to_world[:, 2]
        distance = spec.height_mm / -axis[2]
        target = np.array([spec.target[0], spec.target[1], 0.0])
        self.centre = target - distance * axis
        self.t = -self.R @ self.centre
        self.rvec, _ = cv2.Rodrigues(self.R)

    # -- points --------------------------------------------------------------------------------
    def project(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) world points in mm -> (N, 2) pixels in the final, distorted image."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 3)
        out, _ = cv2.projectPoints(pts, self.rvec, self.t, self.K, self.dist)
        return out.reshape(-1, 2)

    def project_undistorted(self, points: np.ndarray, offset: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
        """(N, 3) world points -> (N, 2) pixels of the undistorted image (shifted by offset)."""
        cam = (self.R @ np.asarray(points, dtype=np.float64).reshape(-1, 3).T).T + self.t
        uv = (self.K @ cam.T).T
        return uv[:, :2] / uv[:, 2:3] + np.asarray(offset)

    def plane_homography(self, z: float, offset: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
        """3x3 homography from (x, y) in mm on the plane at height z to undistorted pixels."""
        m = np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z + self.t])
        shift = np.array([[1, 0, offset[0]], [0, 1, offset[1]], [0, 0, 1]], dtype=np.float64)
        return shift @ self.K @ m

    def px_per_mm(self, z: float = 0.0) -> float:
        """Roughly how many image pixels a millimetre on the table spans near the target."""
        distance = float(np.linalg.norm(self.centre - np.array([*self.spec.target, z])))
        return float(self.K[0, 0]) / distance

    def table_point(self, pixel: tuple[float, float], z: float = 0.0) -> tuple[float, float]:
        """The table point (mm) seen at an undistorted pixel."""
        h = np.linalg.inv(self.plane_homography(z))
        p = h @ np.array([pixel[0], pixel[1], 1.0])
        return float(p[0] / p[2]), float(p[1] / p[2])

    # -- the lens --------------------------------------------------------------------------
    def canvas_margin(self) -> tuple[int, int]:
        """How far (px) the undistorted canvas must reach beyond the image so that the lens
        remap finds a source for every output pixel."""
        return _margin(self.spec.width, self.spec.height, self.K.tobytes(), self.dist.tobytes())

    def lens_maps(self) -> tuple[np.ndarray, np.ndarray]:
        """Maps for cv2.remap: for each final pixel, where to read in the undistorted canvas."""
        return _lens_maps(self.spec.width, self.spec.height, self.K.tobytes(), self.dist.tobytes())

    def visible(self, points: np.ndarray, border: float = 0.0) -> np.ndarray:
        """Which (N, 2) final-image pixels lie inside the image, ``border`` px in from its edge."""
        w, h = self.spec.width, self.spec.height
        p = np.asarray(points)
        return (p[:, 0] >= border) & (p[:, 0] <= w - 1 - border) & (p[:, 1] >= border) & (p[:, 1] <= h - 1 - border)


#: Iterations for inverting the lens: OpenCV's default five leave up to a quarter pixel at the
#: corners of a wide lens.
_INVERT = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 60, 1e-9)


def _undistort(points: np.ndarray, k: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Undistorted pixel positions of distorted ones (exact to well under 0.01 px)."""
    pts = points.astype(np.float64)
    if hasattr(cv2, "undistortPointsIter"):  # OpenCV 4
        return cv2.undistortPointsIter(pts, k, dist, None, k, _INVERT)
    return cv2.undistortPoints(pts, k, dist, None, None, k, _INVERT)  # OpenCV 5 takes the criteria


def lens_folds(k1: float, k2: float, r_max: float) -> bool:
    """Whether the radial lens k1, k2 turns back on itself before reaching the distorted
    normalised radius r_max (then pixels out there would see no real direction)."""
    r = np.linspace(0.0, 4.0, 4000)
    slope = 1 + 3 * k1 * r**2 + 5 * k2 * r**4
    flat = np.nonzero(slope <= 0.2)[0]
    if flat.size == 0:
        return False
    reach = float((r * (1 + k1 * r**2 + k2 * r**4))[flat[0]])
    return reach < r_max


def corner_radius(width: int, height: int, hfov_deg: float) -> float:
    """The normalised radius of the image corners for a horizontal field of view."""
    return math.tan(math.radians(hfov_deg) / 2) * math.hypot(width, height) / width


@functools.lru_cache(maxsize=8)
def _lens_maps(width: int, height: int, k_bytes: bytes, d_bytes: bytes) -> tuple[np.ndarray, np.ndarray]:
    k = np.frombuffer(k_bytes, dtype=np.float64).reshape(3, 3)
    dist = np.frombuffer(d_bytes, dtype=np.float64)
    mx, my = _margin(width, height, k_bytes, d_bytes)
    if not np.any(dist):
        ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
        return xs + mx, ys + my
    # The lens is smooth: solve it on a coarse grid and interpolate (exact to well under 0.1 px).
    step = 8
    gx = np.arange(0, width + step, step, dtype=np.float32)
    gy = np.arange(0, height + step, step, dtype=np.float32)
    xs, ys = np.meshgrid(gx, gy)
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    und = _undistort(pts, k, dist).reshape(len(gy), len(gx), 2)
    # Resize so that coarse sample j lands exactly on full pixel j * step.
    full_w, full_h = (len(gx) - 1) * step + 1, (len(gy) - 1) * step + 1
    coarse_x = np.ascontiguousarray(und[:, :, 0] + mx)
    coarse_y = np.ascontiguousarray(und[:, :, 1] + my)
    map_x = _upsample(coarse_x, full_w, full_h, step)[:height, :width]
    map_y = _upsample(coarse_y, full_w, full_h, step)[:height, :width]
    return np.ascontiguousarray(map_x, dtype=np.float32), np.ascontiguousarray(map_y, dtype=np.float32)


def _upsample(coarse: np.ndarray, full_w: int, full_h: int, step: int) -> np.ndarray:
    """Bilinear upsampling with sample j at pixel j * step (corner-aligned)."""
    xs = np.arange(full_w, dtype=np.float32) / step
    ys = np.arange(full_h, dtype=np.float32) / step
    mx, my = np.meshgrid(xs, ys)
    return cv2.remap(coarse.astype(np.float32), mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


@functools.lru_cache(maxsize=32)
def _margin(width: int, height: int, k_bytes: bytes, d_bytes: bytes) -> tuple[int, int]:
    k = np.frombuffer(k_bytes, dtype=np.float64).reshape(3, 3)
    dist = np.frombuffer(d_bytes, dtype=np.float64)
    if not np.any(dist):
        return 2, 2
    xs = np.linspace(0, width - 1, 64)
    ys = np.linspace(0, height - 1, 64)
    border = np.concatenate([
        np.stack([xs, np.zeros_like(xs)], 1), np.stack([xs, np.full_like(xs, height - 1)], 1),
        np.stack([np.zeros_like(ys), ys], 1), np.stack([np.full_like(ys, width - 1), ys], 1),
    ]).reshape(-1, 1, 2)
    und = _undistort(border, k, dist).reshape(-1, 2)
    mx = max(0.0, -und[:, 0].min(), und[:, 0].max() - (width - 1))
    my = max(0.0, -und[:, 1].min(), und[:, 1].max() - (height - 1))
    return math.ceil(mx) + 2, math.ceil(my) + 2
