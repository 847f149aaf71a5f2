"""Tile faces apart from the table, without knowing the table: a smooth model of the table's
colour (lamp fall-off and vignette included) is fitted robustly, since the table fills most of
the frame; whatever differs from it is foreground, and the tiles are the foreground that has the
set's face colour.

Colours are OpenCV's 8-bit Lab (L 0..255, a and b offset by 128), as float32."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from referee.vision.config import VisionConfig

__all__ = ["Colour", "TableModel", "face_colour", "face_mask", "fit_table", "foreground", "outline", "table_colour",
           "to_lab", "unlit"]

_GRID = (96, 54)
_CLUSTERS = 5
#: How much more a difference in hue counts than one in brightness (shading changes brightness).
_HUE = 2.5


def to_lab(image: np.ndarray) -> np.ndarray:
    """BGR uint8 -> Lab float32."""
    return cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32)


def _design(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    return np.stack([np.ones_like(xs), xs, ys, xs * xs, xs * ys, ys * ys], axis=-1)


@dataclasses.dataclass(frozen=True)
class TableModel:
    """The table's colour as a quadratic surface over the frame (one per Lab channel) and the
    spread of the table's own texture around it."""

    coeffs: np.ndarray  # (6, 3)
    spread: float
    shape: tuple[int, int]

    def colour(self) -> np.ndarray:
        """The table colour at every pixel, (h, w, 3) float32."""
        h, w = self.shape
        small_h, small_w = max(2, h // 8), max(2, w // 8)
        ys, xs = np.mgrid[0:small_h, 0:small_w].astype(np.float32)
        xs, ys = (xs + 0.5) / small_w, (ys + 0.5) / small_h
        small = (_design(xs, ys) @ self.coeffs).astype(np.float32)
        return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)

    def mean(self) -> np.ndarray:
        return (_design(np.array([0.5]), np.array([0.5])) @ self.coeffs)[0].astype(np.float32)


def _table_seed(small: np.ndarray) -> np.ndarray:
    """The cells of the largest connected region of one colour: the table (tiles, however many,
    lie apart; the floor around a table is a rim, smaller than the table it surrounds)."""
    samples = small.reshape(-1, 3) * np.array([1.0, _HUE, _HUE], np.float32)
    cv2.setRNGSeed(7)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
    _, labels, _ = cv2.kmeans(samples, _CLUSTERS, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    labels = labels.reshape(small.shape[:2])
    # The camera looks at the table: cells near the middle of the frame count most.
    ys, xs = np.mgrid[0:small.shape[0], 0:small.shape[1]].astype(np.float32)
    r2 = ((xs + 0.5) / small.shape[1] * 2 - 1) ** 2 + ((ys + 0.5) / small.shape[0] * 2 - 1) ** 2
    weight = np.clip(1.0 - 0.8 * r2, 0.02, 1.0)
    best, best_score = np.zeros(small.shape[:2], bool), 0.0
    for k in range(_CLUSTERS):
        count, comp, _, _ = cv2.connectedComponentsWithStats((labels == k).astype(np.uint8), connectivity=4)
        if count < 2:
            continue
        scores = np.bincount(comp.ravel(), weights=weight.ravel(), minlength=count)
        i = 1 + int(np.argmax(scores[1:]))
        if scores[i] > best_score:
            best, best_score = comp == i, float(scores[i])
    return best.ravel()


def fit_table(lab: np.ndarray) -> TableModel:
    """Fit the table colour robustly: seed it with the largest one-colour region of the frame,
    then fit a smooth surface (lamp fall-off, vignette) to the cells near it a few times,
    widening to the table's own spread."""
    h, w = lab.shape[:2]
    small = cv2.resize(lab, _GRID, interpolation=cv2.INTER_AREA)
    flat = small.reshape(-1, 3).astype(np.float64)
    ys, xs = np.mgrid[0:_GRID[1], 0:_GRID[0]].astype(np.float64)
    design = _design((xs.ravel() + 0.5) / _GRID[0], (ys.ravel() + 0.5) / _GRID[1])
    seed = _table_seed(small)
    keep = seed
    coeffs = np.zeros((6, 3))
    coeffs[0] = np.median(flat[keep], axis=0)
    fitted = design @ coeffs
    band = 30.0
    for terms in (3, 6, 6, 6):
        if keep.sum() < 4 * terms:
            break
        sol, *_ = np.linalg.lstsq(design[keep][:, :terms], flat[keep], rcond=None)
        coeffs = np.zeros((6, 3))
        coeffs[:terms] = sol
        fitted = design @ coeffs
        resid = np.linalg.norm(flat - fitted, axis=1)
        band = float(np.clip(3.0 * 1.4826 * np.median(resid[keep]), 8.0, 30.0))
        # Cells of the seed stay table unless far off; others join only when close.
        keep = (seed & (resid < band)) | (resid < 0.6 * band)
    resid = np.linalg.norm(flat - fitted, axis=1)
    spread = max(float(np.median(resid[resid < band])) * 1.4826, 1.5)
    return TableModel(coeffs.astype(np.float32), spread, (h, w))


def foreground(lab: np.ndarray, table: np.ndarray, spread: float) -> np.ndarray:
    """How far every pixel is from the table (float32); hue counts 1.5 times brightness."""
    d = lab - table
    return np.sqrt(d[..., 0] ** 2 + _HUE**2 * (d[..., 1] ** 2 + d[..., 2] ** 2)).astype(np.float32)


@dataclasses.dataclass(frozen=True)
class Colour:
    """A colour class (lighting removed): mean and inverse covariance, for Mahalanobis distances."""

    mean: np.ndarray
    inverse: np.ndarray

    @classmethod
    def of(cls, pixels: np.ndarray, floor: float = 9.0) -> Colour:
        mean = np.median(pixels, axis=0)
        cov = np.cov((pixels - mean).T.astype(np.float64)) + np.eye(3) * floor
        return cls(mean.astype(np.float32), np.linalg.inv(cov).astype(np.float32))

    def distance(self, lab: np.ndarray) -> np.ndarray:
        d0, d1, d2 = (lab[..., i] - self.mean[i] for i in range(3))
        q = self.inverse
        m = (q[0, 0] * d0 * d0 + q[1, 1] * d1 * d1 + q[2, 2] * d2 * d2
             + 2 * (q[0, 1] * d0 * d1 + q[0, 2] * d0 * d2 + q[1, 2] * d1 * d2))
        return np.sqrt(np.maximum(m, 0)).astype(np.float32)


def outline(blob: np.ndarray) -> np.ndarray:
    """The outer outline of a blob's pixels (what its hull and rectangle depend on)."""
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return np.concatenate(contours) if len(contours) > 1 else contours[0]


def _tile_like(mask: np.ndarray, aspect: float) -> tuple[np.ndarray, list[float], np.ndarray]:
    """The blobs of a mask shaped like one tile (right proportions, filling their rectangle):
    their pixels and their lengths."""
    count, comp, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    keep = np.zeros(count, bool)
    marked = np.zeros(count, bool)
    lengths = []
    h, w = mask.shape
    for i in range(1, count):
        area = int(stats[i, cv2.CC_STAT_AREA])
        if area < 30 or area > h * w // 20:
            continue
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        pts = outline((comp[y:y + bh, x:x + bw] == i).astype(np.uint8))
        (_, _), (a, b), _ = cv2.minAreaRect(pts)
        long, short = max(a, b), min(a, b)
        # Its outline fills its rectangle (pips at the edge bite notches: the hull bridges them).
        if short < 3 or cv2.contourArea(cv2.convexHull(pts)) < 0.85 * long * short:
            continue
        if 0.75 * aspect < long / short < 1.3 * aspect:
            keep[i] = True
            lengths.append(float(long))
            # A face has pips or a divider: holes in its blob. A shadow has none.
            holes = cv2.findContours((comp[y:y + bh, x:x + bw] == i).astype(np.uint8),
                                     cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)[1]
            if holes is not None and (holes[0][:, 3] >= 0).any():
                marked[i] = True
    return keep[comp], lengths, marked[comp]


def face_colour(lab: np.ndarray, light: np.ndarray, fg: np.ndarray, aspect: float) -> tuple[Colour, float] | None:
    """The set's face colour (lighting removed) and the tile length: of the few colours the
    foreground falls into, the one whose blobs look most like tiles."""
    u = unlit(lab, light)
    pixels = u[fg > 0]
    if len(pixels) < 50:
        return None
    step = max(1, len(pixels) // 20000)
    weight = np.array([1.0, _HUE, _HUE], np.float32)
    samples = (pixels[::step] * weight).astype(np.float32)
    k = 4
    cv2.setRNGSeed(11)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
    _, _, centres = cv2.kmeans(samples, k, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    d = ((pixels * weight)[:, None, :] - centres[None, :, :]) ** 2
    nearest = np.argmin(d.sum(axis=2), axis=1)
    best: tuple[float, np.ndarray, list[float]] | None = None
    ys, xs = np.nonzero(fg)
    close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    for j in range(k):
        mask = np.zeros(fg.shape, np.uint8)
        mask[ys[nearest == j], xs[nearest == j]] = 1
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, close)
        tiles, lengths, holed = _tile_like(mask, aspect)
        score = float(tiles.sum()) + float(holed.sum())
        if lengths and (best is None or score > best[0]):
            best = (score, tiles & (mask > 0), lengths)
    if best is None:
        return _chain_colour(u, fg, nearest, aspect, close)
    _, tiles, lengths = best
    # Sample the faces' insides: their rims may hold shadow or the tiles' sides.
    inner = cv2.erode(tiles.astype(np.uint8), cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (max(3, int(0.12 * np.median(lengths))) | 1,) * 2)) > 0
    return Colour.of(u[inner if inner.sum() > 30 else tiles]), float(np.median(lengths))


def _chain_colour(u: np.ndarray, fg: np.ndarray, nearest: np.ndarray, aspect: float,
                  close: np.ndarray) -> tuple[Colour, float] | None:
    """When no blob looks like a single tile (every tile touches another, in a chain or a
    cross): the colour class whose blobs are tile-wide arms holding pips, and the tile length
    from the arms' width (twice the median height of their distance ridge)."""
    ys, xs = np.nonzero(fg)
    best: tuple[float, np.ndarray, float] | None = None
    for j in range(int(nearest.max()) + 1):
        mask = np.zeros(fg.shape, np.uint8)
        mask[ys[nearest == j], xs[nearest == j]] = 1
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, close)
        count, comp, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
        for i in range(1, count):
            x, y, bw, bh, area = (int(v) for v in stats[i])
            blob = (comp[y:y + bh, x:x + bw] == i).astype(np.uint8)
            holes = cv2.findContours(blob, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)[1]
            if area < 30 or holes is None or not (holes[0][:, 3] >= 0).any():
                continue
            solid = blob.copy()
            cv2.drawContours(solid, cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0],
                             -1, 1, cv2.FILLED)
            dist = cv2.distanceTransform(solid, cv2.DIST_L2, 5)
            ridge = (dist >= cv2.dilate(dist, np.ones((3, 3), np.uint8))) & (dist > 1)
            if not ridge.any():
                continue
            # The ridge of an arm runs at half its width; spurs into its corners run lower.
            width = 2.0 * float(np.percentile(dist[ridge], 70))
            tiles = float(solid.sum()) / (aspect * width * width)
            if tiles >= 1.5 and (best is None or area > best[0]):
                whole = np.zeros(fg.shape, bool)
                whole[y:y + bh, x:x + bw] = blob > 0
                best = (float(area), whole, width * aspect)
    if best is None:
        return None
    _, tiles_mask, length = best
    return Colour.of(u[tiles_mask]), length


def unlit(lab: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Lab with the lamp's fall-off divided out of the lightness."""
    out = lab.copy()
    out[..., 0] = lab[..., 0] / np.maximum(light, 0.2)
    return out


def table_colour(lab: np.ndarray, light: np.ndarray, table: np.ndarray, near: np.ndarray) -> Colour:
    """The table's colour class, lighting removed, from the pixels close to the table model."""
    pixels = unlit(lab, light)[near > 0]
    if len(pixels) > 20000:
        pixels = pixels[:: len(pixels) // 20000]
    if len(pixels) < 20:
        pixels = unlit(table, light).reshape(-1, 3)[::97]
    return Colour.of(pixels)


def face_mask(lab: np.ndarray, light: np.ndarray, face: Colour, table: Colour, config: VisionConfig) -> np.ndarray:
    """Pixels of the tiles: likelier face than table, or far from the table anyway (pips,
    dividers, glare); never a shadow on the table (darker than the table, of nearly its hue,
    and not of the face's colour)."""
    u = unlit(lab, light)
    df, dt = face.distance(u), table.distance(u)
    ratio = u[..., 0] / max(float(table.mean[0]), 1.0)
    chroma = np.hypot(u[..., 1] - table.mean[1], u[..., 2] - table.mean[2])
    shadow = (ratio < 0.97) & (ratio >= config.shadow_depth) & (chroma < config.shadow_chroma)
    facelike = (df < dt) & (df < config.face_reach)
    far = dt > config.table_reach
    return (facelike | (far & ~shadow)).astype(np.uint8)
