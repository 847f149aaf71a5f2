"""Calibration: the table plane in millimetres from the four markers, and the lens from
checkerboard frames.

The markers are laid by hand, so where they lie is not known: the fit solves the table
homography together with each marker's position and turn on the table, knowing only that every
marker is a flat square of the printed size (``markers.py``). Inputs are never modified.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import cv2
import numpy as np

from referee.vision.config import VisionConfig
from referee.vision.markers import MarkerSheet
from referee.vision.profile import Profile


class CalibrationError(ValueError):
    """Calibration cannot be done from what was given; the message says why."""


class MarkersNotFound(CalibrationError):
    """Fewer markers in view than the calibration needs."""

    def __init__(self, missing: Sequence[int], found: Sequence[int]) -> None:
        self.missing, self.found = tuple(missing), tuple(found)
        seen = f"saw {', '.join(map(str, found))}" if found else "saw none"
        super().__init__(f"markers not found: {', '.join(map(str, missing))} ({seen}); all four markers must "
                         "be in view, flat and uncovered")


class CheckerboardNotFound(CalibrationError):
    """A lens calibration frame in which the checkerboard was not found."""

    def __init__(self, index: int, pattern: tuple[int, int]) -> None:
        self.index, self.pattern = index, pattern
        super().__init__(f"checkerboard frame {index}: no {pattern[0]}x{pattern[1]} checkerboard found (the "
                         "pattern counts inner corners; the whole board must be in view and sharp)")


@dataclasses.dataclass(frozen=True)
class TableFit:
    """The table plane: ``homography`` maps (undistorted) pixels to table millimetres;
    ``centres_mm`` are the markers' centres in sheet order; ``rms_px`` is the fit's error."""

    homography: np.ndarray
    centres_mm: tuple[tuple[float, float], ...]
    rms_px: float


# -- images and markers ----------------------------------------------------------------------
def _gray(image: np.ndarray) -> np.ndarray:
    img = np.asarray(image)
    if img.dtype != np.uint8:
        if img.dtype == np.uint16:
            img = (img >> 8).astype(np.uint8)
        else:
            raise ValueError(f"expected an 8-bit image, got {img.dtype}")
    if img.ndim == 2:
        return img
    if img.ndim == 3 and img.shape[2] == 1:
        return img[:, :, 0]
    if img.ndim == 3 and img.shape[2] in (3, 4):
        return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY if img.shape[2] == 3 else cv2.COLOR_BGRA2GRAY)
    raise ValueError(f"expected a grey or BGR image, got shape {img.shape}")


def find_markers(image: np.ndarray, dictionary: str = "DICT_4X4_50") -> dict[int, np.ndarray]:
    """ArUco markers in an image: id -> (4, 2) corner pixels, clockwise from the printed marker's
    top left, refined on the marker's straight outer edges (a few hundredths of a pixel on a
    sharp frame). Empty when there are none. An id seen twice keeps its larger copy."""
    gray = _gray(image)
    aruco = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    detector = cv2.aruco.ArucoDetector(aruco, cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    smooth = gray.astype(np.float32)
    for quad, marker_id in zip(corners, np.asarray(ids).ravel(), strict=True):
        pts = _refine(smooth, np.asarray(quad, dtype=np.float64).reshape(4, 2), int(aruco.markerSize) + 2)
        key = int(marker_id)
        if key not in found or _area(pts) > _area(found[key]):
            found[key] = pts
    return found


def _edge_points(gray: np.ndarray, a: np.ndarray, b: np.ndarray, outward: np.ndarray, reach: float) -> np.ndarray:
    """Sub-pixel points of the dark-to-light step across the side a-b (the marker's black border
    against the white margin): where each profile crosses halfway between its two ends."""
    side = b - a
    length = float(np.hypot(*side))
    ts = np.linspace(0.12, 0.88, max(8, int(length * 0.76)))
    ss = np.arange(-reach, reach + 1e-9, 0.25)
    base = a[None, :] + ts[:, None] * side[None, :]
    grid = base[:, None, :] + ss[None, :, None] * outward[None, None, :]
    prof = cv2.remap(gray, grid[..., 0].astype(np.float32), grid[..., 1].astype(np.float32), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).astype(np.float64)
    q = max(2, len(ss) // 5)
    dark, bright = prof[:, :q].mean(axis=1), prof[:, -q:].mean(axis=1)
    mid = (dark + bright) / 2
    points = []
    for r in np.nonzero(bright - dark >= 20)[0]:
        above = np.nonzero(prof[r] >= mid[r])[0]
        if len(above) == 0 or above[0] == 0:
            continue
        j = int(above[0])
        f = (mid[r] - prof[r, j - 1]) / (prof[r, j] - prof[r, j - 1])
        points.append(base[r] + (ss[j - 1] + f * (ss[j] - ss[j - 1])) * outward)
    return np.array(points, dtype=np.float64).reshape(-1, 2)


def _refine(gray: np.ndarray, quad: np.ndarray, modules: int, rounds: int = 2) -> np.ndarray:
    """Corners as the crossings of straight lines fitted to each outer edge of the marker; the
    detector's corners when an edge cannot be traced."""
    out = quad.copy()
    for _ in range(rounds):
        lines = []
        centre = out.mean(axis=0)
        for k in range(4):
            a, b = out[k], out[(k + 1) % 4]
            d = (b - a) / max(float(np.hypot(*(b - a))), 1e-9)
            outward = np.array([d[1], -d[0]])
            if np.dot((a + b) / 2 - centre, outward) < 0:
                outward = -outward
            reach = 0.7 * float(np.hypot(*(b - a))) / modules
            points = _edge_points(gray, a, b, outward, max(reach, 1.5))
            if len(points) < 6:
                return quad
            lines.append(cv2.fitLine(points.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel())
        new = []
        for k in range(4):
            (vx0, vy0, x0, y0), (vx1, vy1, x1, y1) = lines[(k - 1) % 4], lines[k]
            try:
                t = np.linalg.solve(np.array([[vx0, -vx1], [vy0, -vy1]], dtype=np.float64),
                                    np.array([x1 - x0, y1 - y0]))
            except np.linalg.LinAlgError:
                return quad
            new.append((x0 + t[0] * vx0, y0 + t[0] * vy0))
        refined = np.array(new)
        if np.abs(refined - quad).max() > 0.25 * float(np.hypot(*(quad[1] - quad[0]))) / modules:
            return quad  # an edge went astray: keep what the detector found
        out = refined
    return out


def _area(quad: np.ndarray) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


# -- the table fit ---------------------------------------------------------------------------
_TEMPLATE = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])  # in marker sides


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    out = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    result: np.ndarray = out[:, :2] / out[:, 2:3]
    return result


def _placed(pose: np.ndarray) -> np.ndarray:
    c, s = math.cos(pose[2]), math.sin(pose[2])
    placed: np.ndarray = _TEMPLATE @ np.array([[c, s], [-s, c]]) + pose[:2]
    return placed


def _rigid(target: np.ndarray) -> np.ndarray:
    """The pose (x, y, turn) placing the unit template closest to four points."""
    centre = target.mean(axis=0)
    q = target - centre
    turn = math.atan2(float(np.sum(_TEMPLATE[:, 0] * q[:, 1] - _TEMPLATE[:, 1] * q[:, 0])),
                      float(np.sum(_TEMPLATE[:, 0] * q[:, 0] + _TEMPLATE[:, 1] * q[:, 1])))
    return np.array([centre[0], centre[1], turn])


def _residuals(params: np.ndarray, observed: np.ndarray) -> np.ndarray:
    g = np.append(params[:8], 1.0).reshape(3, 3)
    poses = np.vstack([np.zeros(3), params[8:].reshape(-1, 3)])
    table = np.vstack([_placed(p) for p in poses])
    res: np.ndarray = (_apply(g, table) - observed).ravel()
    return res


def _least_squares(params: np.ndarray, observed: np.ndarray, iterations: int = 60) -> np.ndarray:
    """Levenberg-Marquardt with a forward-difference Jacobian (17 unknowns, 32 residuals)."""
    lam = 1e-3
    res = _residuals(params, observed)
    cost = float(res @ res)
    for _ in range(iterations):
        jac = np.empty((len(res), len(params)))
        for j in range(len(params)):
            step = 1e-7 * max(1.0, abs(params[j]))
            moved = params.copy()
            moved[j] += step
            jac[:, j] = (_residuals(moved, observed) - res) / step
        jtj, jtr = jac.T @ jac, jac.T @ res
        improved = False
        while lam < 1e10:
            try:
                delta = np.linalg.solve(jtj + lam * np.diag(np.diag(jtj) + 1e-12), -jtr)
            except np.linalg.LinAlgError:
                lam *= 10
                continue
            trial = params + delta
            trial_res = _residuals(trial, observed)
            trial_cost = float(trial_res @ trial_res)
            if trial_cost < cost:
                improved = cost - trial_cost > 1e-14 * max(cost, 1e-30)
                params, res, cost = trial, trial_res, trial_cost
                lam = max(lam / 10, 1e-12)
                break
            lam *= 10
        if not improved:
            break
    return params


def fit_table(corners: Sequence[np.ndarray], marker_mm: float) -> TableFit:
    """The table plane from the (undistorted) pixel corners of the four markers in sheet order."""
    if len(corners) < 3:
        raise CalibrationError(f"the table plane needs at least 3 markers, got {len(corners)}")
    observed = np.vstack([np.asarray(c, dtype=np.float64).reshape(4, 2) for c in corners])
    # Normalise pixels (centred, unit spread) and millimetres (marker sides) for conditioning.
    centre = observed.mean(axis=0)
    spread = float(np.sqrt(((observed - centre) ** 2).sum(axis=1).mean() / 2))
    norm = np.array([[1 / spread, 0, -centre[0] / spread], [0, 1 / spread, -centre[1] / spread], [0, 0, 1]])
    obs = _apply(norm, observed)
    quads = obs.reshape(-1, 4, 2)
    # Start: marker 0's own square gives the plane near it; the others are placed through it,
    # then the plane and the placements are refined in turn, then together.
    local = cv2.getPerspectiveTransform(quads[0].astype(np.float32), _TEMPLATE.astype(np.float32))
    poses = [_rigid(_apply(local, q)) for q in quads]
    g: np.ndarray = np.eye(3)
    for _ in range(5):
        table = np.vstack([_placed(p) for p in poses])
        found, _ = cv2.findHomography(table, obs, 0)
        if found is None:
            raise CalibrationError("the markers do not span the table (are they on a line?)")
        g = np.asarray(found, dtype=np.float64)
        inverse = np.linalg.inv(g)
        poses = [_rigid(_apply(inverse, q)) for q in quads]
        # Keep marker 0 at the origin, unturned: move the frame with it.
        c, s = math.cos(poses[0][2]), math.sin(poses[0][2])
        frame = np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]]) @ np.array([[1, 0, -poses[0][0]],
                                                                        [0, 1, -poses[0][1]], [0, 0, 1]])
        g = g @ np.linalg.inv(frame)
        g = g / g[2, 2]
        poses = [_rigid(_apply(frame, _placed(p))) for p in poses]
    params = np.concatenate([g.ravel()[:8], np.concatenate(poses[1:])])
    params = _least_squares(params, obs)
    res = _residuals(params, obs).reshape(-1, 2) * spread
    rms = float(np.sqrt((res ** 2).sum(axis=1).mean()))
    g = np.append(params[:8], 1.0).reshape(3, 3)
    centres = np.vstack([np.zeros(2), params[8:].reshape(-1, 3)[:, :2]]) * marker_mm
    # pixels -> fitted mm, then turn so that x points at marker 1 and y towards marker 3.
    to_mm = np.diag([marker_mm, marker_mm, 1.0]) @ np.linalg.inv(g) @ norm
    angle = math.atan2(centres[1, 1], centres[1, 0])
    c, s = math.cos(angle), math.sin(angle)
    turn = np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]])
    turned = _apply(turn, centres)
    if len(turned) > 3 and turned[3, 1] < 0:
        turn = np.diag([1.0, -1.0, 1.0]) @ turn
        turned[:, 1] *= -1
    h = turn @ to_mm
    h = h / h[2, 2]
    return TableFit(h, tuple((round(float(x), 6) + 0.0, round(float(y), 6) + 0.0) for x, y in turned), rms)


def table_homography(image: np.ndarray, sheet: MarkerSheet | None = None, camera_matrix: np.ndarray | None = None,
                     dist_coeffs: np.ndarray | None = None) -> np.ndarray:
    """3x3 homography from (undistorted, when a lens is given) pixels of ``image`` to table mm."""
    return _fit_image(image, sheet or MarkerSheet(), camera_matrix, dist_coeffs).homography


def _fit_image(image: np.ndarray, sheet: MarkerSheet, camera_matrix: np.ndarray | None,
               dist_coeffs: np.ndarray | None) -> TableFit:
    found = find_markers(image, sheet.dictionary)
    missing = [i for i in sheet.ids if i not in found]
    if missing:
        raise MarkersNotFound(missing, sorted(i for i in found if i in sheet.ids))
    corners = [found[i] for i in sheet.ids]
    if camera_matrix is not None and dist_coeffs is not None:
        lens = Profile((1, 1), np.asarray(np.eye(3)).tolist(), np.asarray(camera_matrix).tolist(),
                       tuple(float(v) for v in np.ravel(dist_coeffs)))
        corners = [lens.undistort_points(c) for c in corners]
    return fit_table(corners, sheet.marker_mm)


# -- the lens --------------------------------------------------------------------------------
def _board(gray: np.ndarray, pattern: tuple[int, int]) -> np.ndarray | None:
    flags = cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_ACCURACY
    ok, corners = cv2.findChessboardCornersSB(gray, pattern, flags=flags)
    if not ok:
        ok, corners = cv2.findChessboardCornersSB(gray, pattern, flags=flags | cv2.CALIB_CB_EXHAUSTIVE)
    return np.asarray(corners, dtype=np.float32).reshape(-1, 1, 2) if ok else None


def calibrate_lens(images: Sequence[np.ndarray], pattern: tuple[int, int] = (9, 6),
                   square_mm: float = 25.0) -> tuple[np.ndarray, np.ndarray, float]:
    """The camera matrix, distortion coefficients (k1, k2, p1, p2, k3 with k3 held at 0) and RMS
    reprojection error in pixels from at least three views of a flat checkerboard with
    ``pattern`` = (columns, rows) inner corners and squares of ``square_mm``."""
    cols, rows = pattern
    if not (isinstance(cols, int) and isinstance(rows, int) and cols >= 3 and rows >= 3):
        raise CalibrationError(f"checkerboard pattern: expected at least 3x3 inner corners, got {cols}x{rows}")
    if not square_mm > 0:
        raise CalibrationError(f"checkerboard square: expected a size in mm above 0, got {square_mm}")
    if len(images) < 3:
        raise CalibrationError(f"lens calibration needs at least 3 checkerboard frames, got {len(images)}")
    grid = np.zeros((cols * rows, 3), np.float32)
    grid[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square_mm
    size: tuple[int, int] | None = None
    seen: list[np.ndarray] = []
    for index, image in enumerate(images):
        gray = _gray(image)
        here = (gray.shape[1], gray.shape[0])
        if size is not None and here != size:
            raise CalibrationError(f"checkerboard frame {index} is {here[0]}x{here[1]} but frame 0 is "
                                   f"{size[0]}x{size[1]}; take every frame with the same camera setting")
        size = here
        board = _board(gray, (cols, rows))
        if board is None:
            raise CheckerboardNotFound(index, (cols, rows))
        seen.append(board)
    assert size is not None
    rms, k, dist, _, _ = cv2.calibrateCamera([grid] * len(seen), seen, size, None, None, flags=cv2.CALIB_FIX_K3)
    return np.asarray(k, dtype=np.float64), np.asarray(dist, dtype=np.float64).ravel(), float(rms)


# -- everything --------------------------------------------------------------------------------
def calibrate(frame: np.ndarray, sheet: MarkerSheet | None = None, lens_frames: Sequence[np.ndarray] = (),
              pattern: tuple[int, int] = (9, 6), square_mm: float = 25.0,
              vision: VisionConfig | None = None) -> Profile:
    """A profile from a frame showing the four markers and, when given, checkerboard frames
    from the same camera for the lens."""
    sheet = sheet or MarkerSheet()
    height, width = np.asarray(frame).shape[:2]
    k = dist = None
    lens_rms: float | None = None
    if lens_frames:
        k, dist, lens_rms = calibrate_lens(lens_frames, pattern, square_mm)
        lh, lw = np.asarray(lens_frames[0]).shape[:2]
        if (lw, lh) != (width, height):
            raise CalibrationError(f"the checkerboard frames are {lw}x{lh} but the marker frame is {width}x{height}; "
                                   "take every frame with the same camera setting")
    fit = _fit_image(frame, sheet, k, dist)
    return Profile((int(width), int(height)), fit.homography.tolist(), None if k is None else k.tolist(),
                   None if dist is None else dist.tolist(), sheet.marker_mm, vision or VisionConfig(), fit.rms_px,
                   lens_rms, fit.centres_mm)
