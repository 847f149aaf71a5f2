"""The table's colour, without knowing the table: a smooth surface over the frame (lamp fall-off
and vignette included), fitted robustly since the table fills most of the frame, with the lamp's
bright patch the surface cannot follow.

Colours are OpenCV's 8-bit Lab (L 0..255, a and b offset by 128), as float32."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import cv2
import numpy as np

from referee.vision.config import VisionConfig
from referee.vision.segment import HUE

__all__ = ["TableModel", "fit_table"]

_GRID = (96, 54)
_CLUSTERS = 5


def _design(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    return np.stack([np.ones_like(xs), xs, ys, xs * xs, xs * ys, ys * ys], axis=-1)


@dataclasses.dataclass(frozen=True)
class TableModel:
    """The table's colour as a quadratic surface over the frame (one per Lab channel), the
    lamp's bright patch the surface cannot follow (``lamp``: lightness added, on the grid the
    table is fitted on, spanning the frame; None when there is none), and the spread of the
    table's own texture around it."""

    coeffs: np.ndarray  # (6, 3)
    spread: float
    shape: tuple[int, int]
    lamp: np.ndarray | None = None  # (grid rows, grid columns) float32, L units

    def colour(self) -> np.ndarray:
        """The table colour at every pixel, (h, w, 3) float32."""
        h, w = self.shape
        small_h, small_w = max(2, h // 8), max(2, w // 8)
        ys, xs = np.mgrid[0:small_h, 0:small_w].astype(np.float32)
        xs, ys = (xs + 0.5) / small_w, (ys + 0.5) / small_h
        small = (_design(xs, ys) @ self.coeffs).astype(np.float32)
        if self.lamp is not None:
            small[..., 0] += cv2.resize(self.lamp, (small_w, small_h), interpolation=cv2.INTER_LINEAR)
        return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)

    def mean(self) -> np.ndarray:
        """The table's colour at the frame's middle."""
        return _middle(self.coeffs).astype(np.float32)


def _middle(coeffs: np.ndarray) -> np.ndarray:
    """A surface's colour at the frame's middle."""
    return (_design(np.array([0.5]), np.array([0.5])) @ coeffs)[0]


def _table_seeds(small: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """For each colour of the frame, the cells of its largest connected region, best first: the
    table is the largest region of one colour (tiles, however many, lie apart; the floor around
    a table is a rim, smaller than the table it surrounds). And each cell's weight: the camera
    looks at the table, so cells near the middle of the frame count most."""
    samples = small.reshape(-1, 3) * np.array([1.0, HUE, HUE], np.float32)
    cv2.setRNGSeed(7)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
    _, labels, _ = cv2.kmeans(samples, _CLUSTERS, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    labels = labels.reshape(small.shape[:2])
    ys, xs = np.mgrid[0:small.shape[0], 0:small.shape[1]].astype(np.float32)
    r2 = ((xs + 0.5) / small.shape[1] * 2 - 1) ** 2 + ((ys + 0.5) / small.shape[0] * 2 - 1) ** 2
    weight = np.clip(1.0 - 0.8 * r2, 0.02, 1.0)
    found: list[tuple[float, np.ndarray]] = []
    for k in range(_CLUSTERS):
        count, comp, _, _ = cv2.connectedComponentsWithStats((labels == k).astype(np.uint8), connectivity=4)
        if count < 2:
            continue
        scores = np.bincount(comp.ravel(), weights=weight.ravel(), minlength=count)
        i = 1 + int(np.argmax(scores[1:]))
        found.append((float(scores[i]), (comp == i).ravel()))
    found.sort(key=lambda f: -f[0])  # stable: the first of equals stays first
    return [seed for _, seed in found] or [np.zeros(small.shape[0] * small.shape[1], bool)], weight.ravel()


#: The table model explains the cells near it. One explaining less than _LEAST_COVER of the frame
#: (cells weighted towards the middle) from a seed whose hull spans less than _LEAST_HULL of it
#: (a strip along the frame's edge, surrounding nothing) was seeded on the floor round the table:
#: a wood table's grain and planks part it into many colours, each in small patches, and a plain
#: floor then makes the largest one-colour region. Of the other seeds, the one whose model
#: explains the most then takes its place, when it explains _FLOOR_GAIN times as much (a plank
#: colour's model explains only the planks near it in colour: a floor in a band round three
#: sides of a line set's table explained 0.16, the best plank 0.31). (A white table round a
#: frame full of tiles explains as little, but its seed surrounds them.)
_LEAST_COVER = 0.25
_LEAST_HULL = 0.5
_FLOOR_GAIN = 1.25
#: A floor round a table smaller in the frame may make the largest region of one colour while
#: its model explains a fair share. A seed of at least _SURROUNDED_SIZE of its cells (not a few
#: cells of the tiles' colour, whose model may widen to take in everything) then replaces it:
#: lying inside the floor's hull (_INSIDE of its cells; the floor round the table on three sides
#: spans most of the frame), when its model explains _SURROUNDED_GAIN times as much (the table
#: the floor surrounds); lying beside a floor whose hull spans less than _LEAST_HULL (a strip
#: along the frame's edge), when it explains _BESIDE_GAIN times as much. (Seeded on the table,
#: the floor lies outside the seed's hull, and a table's seed round its tiles spans the frame;
#: seeded on one plank colour of a wood table, another that explains more is as much the table.)
_INSIDE = 0.8
_SURROUNDED_SIZE = 0.2
_SURROUNDED_GAIN = 1.25
_BESIDE_GAIN = 1.5
#: A surface whose band reaches _BAND_CAP (the most a table's own spread may set) took in more
#: than the table. Fitted so from the largest region, it gives way to the next largest, of at
#: least _CAPPED_SIZE of its cells (another shade of plank, not a few cells of the tiles'
#: colour), when that one's surface stays below the cap: which of a wood table's shades makes the
#: largest region is a matter of the sensor's noise (the sample hand's frame 44 lost 4 of its 13
#: tiles and 10 of its 14 backs so, where the frames either side of it read them all).
_BAND_CAP = 30.0
_CAPPED_SIZE = 0.5


def _hull_of(seed: np.ndarray) -> np.ndarray | None:
    """The convex hull of a seed's cells (grid points), None for an empty seed."""
    cells = cv2.findNonZero(seed.reshape(_GRID[1], _GRID[0]).astype(np.uint8))
    return None if cells is None else cv2.convexHull(cells)


def _hull(seed: np.ndarray) -> np.ndarray:
    """The convex hull of a seed's cells, filled, as a flat 0/1 mask over the grid."""
    grid = np.zeros((_GRID[1], _GRID[0]), np.uint8)
    if (hull := _hull_of(seed)) is not None:
        cv2.fillConvexPoly(grid, hull, 1)
    return grid.ravel()


def _hull_share(seed: np.ndarray) -> float:
    """The share of the grid the convex hull of a seed's cells spans."""
    hull = _hull_of(seed)
    return 0.0 if hull is None else float(cv2.contourArea(hull)) / (_GRID[0] * _GRID[1])


def _fit_from(flat: np.ndarray, design: np.ndarray, seed: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The surface fitted from one seed (coefficients, the cells near it, and its band)."""
    keep = seed
    coeffs = np.zeros((6, 3))
    coeffs[0] = np.median(flat[keep], axis=0) if keep.any() else np.median(flat, axis=0)
    band = _BAND_CAP
    for terms in (3, 6, 6, 6):
        if keep.sum() < 4 * terms:
            break
        sol, *_ = np.linalg.lstsq(design[keep][:, :terms], flat[keep], rcond=None)
        coeffs = np.zeros((6, 3))
        coeffs[:terms] = sol
        resid = np.linalg.norm(flat - design @ coeffs, axis=1)
        band = _band(resid[keep])
        # Cells of the seed stay table unless far off; others join only when close.
        keep = (seed & (resid < band)) | (resid < 0.6 * band)
    return coeffs, keep, band


def fit_table(lab: np.ndarray, config: VisionConfig | None = None,
              near: Sequence[float] | None = None) -> TableModel:
    """Fit the table colour robustly: seed it with the largest one-colour region of the frame,
    then fit a smooth surface (lamp fall-off, vignette) to the cells near it a few times,
    widening to the table's own spread. A model explaining little of the frame (seeded on the
    floor) gives way to one from another seed explaining far more. A lamp's bright patch the
    surface cannot follow is added where it stands out (:func:`_lamp`). With ``near`` (the
    table's colour at the frame's middle as the frames before saw it), a model whose colour
    there lies more than ``prior_table`` from it gives way to the one, of the models within
    that of it, explaining most of the frame (when there is one)."""
    config = config or VisionConfig()
    h, w = lab.shape[:2]
    small = cv2.resize(lab, _GRID, interpolation=cv2.INTER_AREA)
    flat = small.reshape(-1, 3).astype(np.float64)
    ys, xs = np.mgrid[0:_GRID[1], 0:_GRID[0]].astype(np.float64)
    design = _design((xs.ravel() + 0.5) / _GRID[0], (ys.ravel() + 0.5) / _GRID[1])
    seeds, weight = _table_seeds(small)
    total = float(weight.sum())

    def covered(cells: np.ndarray) -> float:
        """The share of the frame (cells weighted to its middle) a model's cells make up."""
        return float(weight[cells].sum()) / total

    coeffs, keep, band = _fit_from(flat, design, seeds[0])
    # The surface from the largest region spread to its band's cap took in what is not table
    # (on pale planks, the lightest plank's surface reaches out to the faces): the next seeds it.
    if band >= _BAND_CAP and len(seeds) > 1 and seeds[1].sum() >= _CAPPED_SIZE * seeds[0].sum() \
            and (other := _fit_from(flat, design, seeds[1]))[2] < _BAND_CAP:
        seeds = [seeds[1], seeds[0], *seeds[2:]]
        coeffs, keep, band = other
    cover = covered(keep)
    spans = _hull_share(seeds[0]) >= _LEAST_HULL
    if cover < _LEAST_COVER and not spans:
        fits = [_fit_from(flat, design, seed) for seed in seeds[1:]]
        covers = [covered(fit[1]) for fit in fits]
        if covers and max(covers) >= _FLOOR_GAIN * cover:
            coeffs, keep, band = fits[int(np.argmax(covers))]
    else:
        hull = _hull(seeds[0]) > 0
        for seed in seeds[1:]:
            if seed.sum() < _SURROUNDED_SIZE * seeds[0].sum():
                continue
            inside = float(hull[seed].mean()) >= _INSIDE
            if not inside and spans:
                continue
            gain = _SURROUNDED_GAIN if inside else _BESIDE_GAIN
            other = _fit_from(flat, design, seed)
            if covered(other[1]) >= gain * cover:
                coeffs, keep, band = other
                break
    if near is not None and config.prior_table > 0:
        target = np.asarray(near, np.float64)

        def off(c: np.ndarray) -> float:
            return float(np.linalg.norm(_middle(c) - target))

        if off(coeffs) > config.prior_table:
            fits = [fit for fit in (_fit_from(flat, design, seed) for seed in seeds)
                    if off(fit[0]) <= config.prior_table]
            if fits:
                coeffs, keep, band = max(fits, key=lambda fit: covered(fit[1]))
    fitted = design @ coeffs
    resid = np.linalg.norm(flat - fitted, axis=1)
    spread = max(float(np.median(resid[resid < band])) * 1.4826, 1.5)
    lamp = _lamp(flat, fitted, spread, config.lamp_blur, config.lamp_least)
    return TableModel(coeffs.astype(np.float32), spread, (h, w), lamp)


def _lamp(flat: np.ndarray, fitted: np.ndarray, spread: float, blur: float, least: float) -> np.ndarray | None:
    """The lamp's bright patch on the table that the quadratic surface (``fitted``, on the grid
    cells ``flat``) cannot follow: the lightness above the surface of the cells near it (within
    three robust deviations of all cells' distances, as the surface's own fit takes its band),
    smoothed over ``blur`` cells (a Gaussian, averaged over those cells alone), twice, the
    cells near the surface and its patch taken again the second time. Only brighter: what is
    darker than the surface is a shadow or the tiles, and stays apart from the table. None
    unless the patch rises ``least`` times the table's ``spread`` above the surface somewhere
    (a real lamp; less is the table's texture), or with ``blur`` 0."""
    if blur <= 0:
        return None
    rows, cols = _GRID[1], _GRID[0]
    off = flat - fitted
    light = off[:, 0].reshape(rows, cols).astype(np.float32)
    distance = np.linalg.norm(off, axis=1)
    keep = distance < _band(distance)
    patch = np.zeros((rows, cols), np.float32)
    for _ in range(2):
        table = keep.reshape(rows, cols).astype(np.float32)
        weight = cv2.GaussianBlur(table, (0, 0), blur)
        patch = cv2.GaussianBlur(light * table, (0, 0), blur) / np.maximum(weight, 1e-3)
        patch[weight < 0.05] = 0.0
        np.maximum(patch, 0.0, out=patch)
        rest = off.copy()
        rest[:, 0] -= patch.ravel()
        distance = np.linalg.norm(rest, axis=1)
        keep = distance < _band(distance[keep])
    return patch if float(patch.max()) >= least * spread else None


def _band(distances: np.ndarray) -> float:
    """How far from the model a cell may lie and still be table: three robust standard
    deviations of the cells' distances, within 8 to _BAND_CAP."""
    return float(np.clip(3.0 * 1.4826 * np.median(distances), 8.0, _BAND_CAP)) if len(distances) else 8.0
