"""A calibration profile: what ``referee calibrate`` learns about one camera over one table.

The homography maps undistorted image pixels to millimetres on the table plane (origin at
marker 0's centre, x towards marker 1, y towards marker 3). The lens (camera matrix and
OpenCV distortion coefficients) is optional: without it the image is taken as undistorted.
The vision thresholds for this table travel with the profile. Profiles are JSON files under
``calibration/profiles/``; a saved profile is never overwritten.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.vision.config import ConfigError, VisionConfig
from referee.vision.size import TileSize

FORMAT = "referee-calibration-profile"
VERSION = 1

Row3 = tuple[float, float, float]
Matrix3 = tuple[Row3, Row3, Row3]

#: Iterations for inverting the lens (OpenCV's default five leave a fraction of a pixel at the
#: corners of a wide lens).
_INVERT = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 60, 1e-9)
_DIST_LENGTHS = (4, 5, 8, 12, 14)


def _number(value: Any) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool | np.bool_) \
        and math.isfinite(float(value))


def _matrix(value: Any, name: str) -> Matrix3:
    rows = value.tolist() if isinstance(value, np.ndarray) else value
    if not (isinstance(rows, Sequence) and len(rows) == 3
            and all(isinstance(r, Sequence) and len(r) == 3 and all(_number(v) for v in r) for r in rows)):
        raise ConfigError(f"{name}: expected 3 rows of 3 finite numbers")
    a, b, c = (tuple(float(v) for v in r) for r in rows)
    return (a, b, c)  # type: ignore[return-value]


@dataclasses.dataclass(frozen=True)
class Profile:
    """One camera over one table. ``image_size`` is (width, height) of the calibrated frames."""

    image_size: tuple[int, int]
    homography: Matrix3
    camera_matrix: Matrix3 | None = None
    dist_coeffs: tuple[float, ...] | None = None
    marker_mm: float | None = None
    vision: VisionConfig = dataclasses.field(default_factory=VisionConfig)
    # How well the calibration fitted (RMS reprojection error in pixels), for the record.
    marker_rms_px: float | None = None
    lens_rms_px: float | None = None
    # Where the markers' centres lie on the table (mm, in sheet order): the play area.
    markers_mm: tuple[tuple[float, float], ...] | None = None

    def __post_init__(self) -> None:
        size = self.image_size.tolist() if isinstance(self.image_size, np.ndarray) else self.image_size
        if not (isinstance(size, Sequence) and len(size) == 2
                and all(isinstance(v, int | np.integer) and not isinstance(v, bool) and 0 < v <= 100_000
                        for v in size)):
            raise ConfigError(f"image_size: expected [width, height] in pixels, got {self.image_size!r}")
        object.__setattr__(self, "image_size", (int(size[0]), int(size[1])))
        h = _matrix(self.homography, "homography")
        if abs(np.linalg.det(np.array(h))) < 1e-300 or not np.isfinite(np.linalg.cond(np.array(h))):
            raise ConfigError("homography: not invertible")
        object.__setattr__(self, "homography", h)
        if (self.camera_matrix is None) != (self.dist_coeffs is None):
            raise ConfigError("camera_matrix: give both camera_matrix and dist_coeffs, or neither")
        if self.camera_matrix is not None:
            k = _matrix(self.camera_matrix, "camera_matrix")
            if not (k[0][0] > 0 and k[1][1] > 0 and k[1][0] == 0 and k[2] == (0.0, 0.0, 1.0)):
                raise ConfigError("camera_matrix: expected [[fx, s, cx], [0, fy, cy], [0, 0, 1]] with fx, fy > 0")
            object.__setattr__(self, "camera_matrix", k)
        if self.dist_coeffs is not None:
            d = self.dist_coeffs.ravel().tolist() if isinstance(self.dist_coeffs, np.ndarray) else self.dist_coeffs
            if not (isinstance(d, Sequence) and len(d) in _DIST_LENGTHS and all(_number(v) for v in d)):
                raise ConfigError(f"dist_coeffs: expected {', '.join(map(str, _DIST_LENGTHS))} finite numbers "
                                  "(OpenCV's k1, k2, p1, p2[, k3...])")
            object.__setattr__(self, "dist_coeffs", tuple(float(v) for v in d))
        for name in ("marker_mm", "marker_rms_px", "lens_rms_px"):
            value = getattr(self, name)
            if value is None:
                continue
            if not _number(value) or float(value) < 0 or (name == "marker_mm" and float(value) <= 0):
                raise ConfigError(f"{name}: expected a positive number or null, got {value!r}")
            object.__setattr__(self, name, float(value))
        if self.markers_mm is not None:
            pts = self.markers_mm.tolist() if isinstance(self.markers_mm, np.ndarray) else self.markers_mm
            if not (isinstance(pts, Sequence) and all(isinstance(p, Sequence) and len(p) == 2
                                                      and all(_number(v) for v in p) for p in pts)):
                raise ConfigError("markers_mm: expected a list of [x, y] points in mm")
            object.__setattr__(self, "markers_mm", tuple((float(p[0]), float(p[1])) for p in pts))
        if not isinstance(self.vision, VisionConfig):
            raise ConfigError(f"vision: expected a VisionConfig, got {type(self.vision).__name__}")

    # -- geometry ----------------------------------------------------------------------------
    @property
    def has_lens(self) -> bool:
        return self.camera_matrix is not None

    def _k(self) -> np.ndarray:
        return np.array(self.camera_matrix, dtype=np.float64)

    def _d(self) -> np.ndarray:
        return np.array(self.dist_coeffs, dtype=np.float64)

    def undistort_points(self, points: np.ndarray) -> np.ndarray:
        """(N, 2) image pixels -> (N, 2) undistorted pixels (a copy as they are without a lens)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        if not self.has_lens or len(pts) == 0:
            return pts.copy()
        src = pts.reshape(-1, 1, 2)
        if hasattr(cv2, "undistortPointsIter"):  # OpenCV 4
            out = cv2.undistortPointsIter(src, self._k(), self._d(), None, self._k(), _INVERT)
        else:  # OpenCV 5 takes the criteria in undistortPoints
            out = cv2.undistortPoints(src, self._k(), self._d(), None, None, self._k(), _INVERT)
        return np.asarray(out, dtype=np.float64).reshape(-1, 2)

    def distort_points(self, points: np.ndarray) -> np.ndarray:
        """(N, 2) undistorted pixels -> (N, 2) image pixels (the lens applied)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        if not self.has_lens or len(pts) == 0:
            return pts.copy()
        rays = np.column_stack([pts, np.ones(len(pts))]) @ np.linalg.inv(self._k()).T
        out, _ = cv2.projectPoints(rays.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), self._k(), self._d())
        return np.asarray(out, dtype=np.float64).reshape(-1, 2)

    def image_to_table(self, points: np.ndarray) -> np.ndarray:
        """(N, 2) image pixels -> (N, 2) millimetres on the table."""
        return _apply(np.array(self.homography), self.undistort_points(points))

    def table_to_image(self, points: np.ndarray) -> np.ndarray:
        """(N, 2) millimetres on the table -> (N, 2) image pixels."""
        return self.distort_points(_apply(np.linalg.inv(np.array(self.homography)), points))

    def px_per_mm(self, x: float, y: float) -> float:
        """Image pixels per millimetre of table near the image point (x, y): the square root of
        the area scale of the table-to-image map there (lens included)."""
        m = self.image_to_table(np.array([[x, y]]))[0]
        inverse = np.linalg.inv(np.array(self.homography))
        if not self.has_lens:
            # Jacobian of the projective map p -> (A p + b) / (c p + 1) at m, in closed form.
            w = float(inverse[2, :2] @ m + inverse[2, 2])
            image = _apply(inverse, m[None])[0]
            jac = (inverse[:2, :2] - np.outer(image, inverse[2, :2])) / w
            return math.sqrt(abs(float(np.linalg.det(jac))))
        step = 0.5
        probe = np.array([m, m + np.array([step, 0.0]), m + np.array([0.0, step])])
        image = self.table_to_image(probe)
        jac = np.column_stack([image[1] - image[0], image[2] - image[0]]) / step
        return math.sqrt(abs(float(np.linalg.det(jac))))

    def tile_px(self, width: int, height: int) -> float:
        """Expected tile face length in pixels near the centre of a ``width`` x ``height`` frame
        of this camera (scaled when the frame is not the calibrated size)."""
        w0, h0 = self.image_size
        scale = math.sqrt((width / w0) * (height / h0))
        return self.vision.tile_mm[0] * self.px_per_mm((w0 - 1) / 2, (h0 - 1) / 2) * scale

    def tile_size(self, width: int, height: int) -> TileSize:
        """Expected tile face length in pixels across a ``width`` x ``height`` frame of this
        camera: the far side of a tilted view shows the tiles smaller. Sampled on a grid over
        the frame and fitted as :class:`TileSize`; where the table plane runs to the horizon
        (a point behind the camera) no sample is taken."""
        w0, h0 = self.image_size
        sx, sy = width / w0, height / h0
        scale = math.sqrt(sx * sy)
        samples = []
        for fy in np.linspace(0.05, 0.95, 5):
            for fx in np.linspace(0.05, 0.95, 5):
                x, y = fx * (w0 - 1), fy * (h0 - 1)
                per = self.px_per_mm(x, y)
                if math.isfinite(per) and per > 0:
                    samples.append((x * sx, y * sy, self.vision.tile_mm[0] * per * scale))
        if len(samples) < 3:
            return TileSize(self.tile_px(width, height))
        return TileSize.fit(samples, 3, 0.0, float(max(width, height)))

    # -- JSON ---------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "version": VERSION,
            "image_size": list(self.image_size),
            "homography": [list(r) for r in self.homography],
            "camera_matrix": None if self.camera_matrix is None else [list(r) for r in self.camera_matrix],
            "dist_coeffs": None if self.dist_coeffs is None else list(self.dist_coeffs),
            "marker_mm": self.marker_mm,
            "marker_rms_px": self.marker_rms_px,
            "lens_rms_px": self.lens_rms_px,
            "markers_mm": None if self.markers_mm is None else [list(p) for p in self.markers_mm],
            "vision": _changed(self.vision),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "profile") -> Profile:
        """A profile from its JSON object; every problem is a ConfigError naming ``where`` and the field."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"{where}: expected a JSON object")
        fields = {"image_size", "homography", "camera_matrix", "dist_coeffs", "marker_mm", "marker_rms_px",
                  "lens_rms_px", "markers_mm", "vision"}
        for key in data:
            if key not in fields | {"format", "version"}:
                raise ConfigError(f"{where}: unknown field {key!r}")
        if data.get("format", FORMAT) != FORMAT:
            raise ConfigError(f"{where}: format: expected {FORMAT!r}, got {data['format']!r}")
        if data.get("version", VERSION) != VERSION:
            raise ConfigError(f"{where}: version: this referee reads version {VERSION}, got {data['version']!r}")
        for key in ("image_size", "homography"):
            if key not in data:
                raise ConfigError(f"{where}: {key}: missing")
        values = {key: data[key] for key in fields - {"vision"} if key in data}
        for key in ("image_size", "dist_coeffs", "markers_mm"):
            if isinstance(values.get(key), list):
                values[key] = tuple(values[key])
            elif key in values and values[key] is not None:
                raise ConfigError(f"{where}: {key}: expected a list, got {values[key]!r}")
        vision = VisionConfig.from_json(data.get("vision", {}), f"{where}: vision")
        try:
            return cls(vision=vision, **values)
        except ConfigError as error:
            raise ConfigError(f"{where}: {error}") from None


def _changed(vision: VisionConfig) -> dict[str, Any]:
    """The settings that differ from the defaults, and the tile size (so that a profile keeps
    reading as the defaults move on)."""
    default = VisionConfig().to_json()
    return {k: v for k, v in vision.to_json().items() if k == "tile_mm" or v != default[k]}


def _apply(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    out = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    result: np.ndarray = out[:, :2] / out[:, 2:3]
    return result


def load_profile(path: str | Path) -> Profile:
    """Read a profile; a bad file or value raises ConfigError naming the file and the field."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read profile {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a text file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}: not valid JSON ({error})") from None
    return Profile.from_json(data, str(path))


def profile_text(profile: Profile) -> str:
    """The profile file's text: JSON with one field a line."""
    fields = [f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in profile.to_json().items()]
    return "{\n" + ",\n".join(fields) + "\n}\n"


def save_profile(profile: Profile, path: str | Path) -> None:
    """Write a profile atomically (a temporary file, then a link to the name); an existing file
    is never overwritten."""
    target = Path(path)
    if target.exists() or target.is_symlink():
        raise ConfigError(f"{target} already exists: profiles are never overwritten; choose another name")
    text = profile_text(profile)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as error:
        raise ConfigError(f"cannot write profile {target}: {error.strerror or error}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(temp, target)  # atomic, and fails if the name was taken meanwhile
        except FileExistsError:
            raise ConfigError(f"{target} already exists: profiles are never overwritten; "
                              "choose another name") from None
        except OSError:  # a file system without hard links
            if target.exists():
                raise ConfigError(f"{target} already exists: profiles are never overwritten; "
                                  "choose another name") from None
            os.replace(temp, target)
    except OSError as error:
        raise ConfigError(f"cannot write profile {target}: {error.strerror or error}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
