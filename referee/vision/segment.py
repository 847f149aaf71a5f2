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

__all__ = ["HUE", "Colour", "TableModel", "face_mask", "fit_table", "foreground", "outline", "pip_rims",
           "pip_spots", "pixels_at", "table_colour", "to_lab", "unlit", "window"]

_GRID = (96, 54)
_CLUSTERS = 5
#: How much more a difference in hue counts than one in brightness (shading changes brightness).
HUE = 2.5


def to_lab(image: np.ndarray) -> np.ndarray:
    """BGR uint8 -> Lab float32."""
    return cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32)


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
        return (_design(np.array([0.5]), np.array([0.5])) @ self.coeffs)[0].astype(np.float32)


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


def fit_table(lab: np.ndarray, config: VisionConfig | None = None) -> TableModel:
    """Fit the table colour robustly: seed it with the largest one-colour region of the frame,
    then fit a smooth surface (lamp fall-off, vignette) to the cells near it a few times,
    widening to the table's own spread. A model explaining little of the frame (seeded on the
    floor) gives way to one from another seed explaining far more. A lamp's bright patch the
    surface cannot follow is added where it stands out (:func:`_lamp`)."""
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
    fitted = design @ coeffs
    resid = np.linalg.norm(flat - fitted, axis=1)
    spread = max(float(np.median(resid[resid < band])) * 1.4826, 1.5)
    config = config or VisionConfig()
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


def _planes(image: np.ndarray) -> list[np.ndarray]:
    """The channels of an (h, w, 3) image as contiguous planes."""
    return [np.ascontiguousarray(image[..., i]) for i in range(3)]


def foreground(lab: np.ndarray, table: np.ndarray, spread: float) -> np.ndarray:
    """How far every pixel is from the table (float32); hue counts 1.5 times brightness."""
    d0, d1, d2 = (np.subtract(lab[..., i], table[..., i]) for i in range(3))
    np.square(d0, out=d0)
    np.square(d1, out=d1)
    np.square(d2, out=d2)
    d1 += d2
    d1 *= HUE**2
    d0 += d1
    return np.sqrt(d0, out=d0)


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

    def distance(self, lab: np.ndarray | list[np.ndarray]) -> np.ndarray:
        """Mahalanobis distance of every pixel (float32); ``lab`` may also be its three planes."""
        planes = [lab[..., i] for i in range(3)] if isinstance(lab, np.ndarray) else lab
        d0, d1, d2 = (np.subtract(planes[i], self.mean[i]) for i in range(3))
        q = self.inverse

        def term(a: np.ndarray, b: np.ndarray, c: np.float32) -> np.ndarray:
            t = np.multiply(a, c)
            t *= b
            return t

        m = term(d0, d0, q[0, 0])
        m += term(d1, d1, q[1, 1])
        m += term(d2, d2, q[2, 2])
        cross = term(d0, d1, q[0, 1])
        cross += term(d0, d2, q[0, 2])
        cross += term(d1, d2, q[1, 2])
        cross *= 2
        m += cross
        np.maximum(m, 0, out=m)
        return np.sqrt(m, out=m)


def outline(blob: np.ndarray) -> np.ndarray:
    """The outer outline of a blob's pixels (what its hull and rectangle depend on)."""
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return np.concatenate(contours) if len(contours) > 1 else contours[0]


def window(x0: int, y0: int, x1: int, y1: int, margin: int, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """The box x0..x1, y0..y1 (exclusive ends) grown by ``margin`` on each side, within the frame."""
    return max(0, x0 - margin), max(0, y0 - margin), min(shape[1], x1 + margin), min(shape[0], y1 + margin)


def pixels_at(image: np.ndarray, where: np.ndarray) -> np.ndarray:
    """The pixels of an (h, w, 3) image at the flat indices ``where``, as (n, 3): what
    ``image[mask]`` gives for the mask those indices mark, without its cost."""
    return image.reshape(-1, 3).take(where, axis=0)


def unlit(lab: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Lab with the lamp's fall-off divided out of the lightness."""
    out = lab.copy()
    out[..., 0] = lab[..., 0] / np.maximum(light, 0.2)
    return out


def table_colour(lab: np.ndarray, light: np.ndarray, table: np.ndarray, near: np.ndarray,
                 unlit_lab: np.ndarray | None = None) -> Colour:
    """The table's colour class, lighting removed, from the pixels close to the table model.
    ``unlit_lab`` is ``unlit(lab, light)`` when already at hand."""
    where = np.flatnonzero(near)
    if len(where) > 20000:
        where = where[:: len(where) // 20000]
    pixels = pixels_at(unlit(lab, light) if unlit_lab is None else unlit_lab, where)
    if len(pixels) < 20:
        pixels = unlit(table, light).reshape(-1, 3)[::97]
    return Colour.of(pixels)


def face_mask(lab: np.ndarray, light: np.ndarray, face: Colour, table: Colour, config: VisionConfig,
              unlit_lab: np.ndarray | None = None, face_distance: np.ndarray | None = None) -> np.ndarray:
    """Pixels of the tiles: likelier face than table, or far from the table anyway (pips,
    dividers, glare); never a shadow on the table (darker than the table, of nearly its hue,
    and not of the face's colour). ``unlit_lab`` is ``unlit(lab, light)`` and
    ``face_distance`` is ``face.distance`` of it, when already at hand."""
    planes = _planes(unlit(lab, light) if unlit_lab is None else unlit_lab)
    df = face.distance(planes) if face_distance is None else face_distance
    dt = table.distance(planes)
    ratio = planes[0] / max(float(table.mean[0]), 1.0)
    da = planes[1] - table.mean[1]
    db = planes[2] - table.mean[2]
    np.square(da, out=da)
    np.square(db, out=db)
    da += db  # the squared chroma off the table's
    shadow = (ratio < 0.97) & (ratio >= config.shadow_depth) & (da < config.shadow_chroma ** 2)
    facelike = (df < dt) & (df < config.face_reach)
    far = dt > config.table_reach
    return (facelike | (far & ~shadow)).astype(np.uint8)


def pip_rims(unlit_lab: np.ndarray, face: Colour, table: Colour, length: float, config: VisionConfig) -> np.ndarray:
    """The rims round the pips (0/1), which :func:`face_mask` may leave out: blurred between a
    dark pip and the face, they are darker than both and near the table's colour, and a face's
    rows of pips then cut it apart. Dark spots of a pip's size (``length`` is the tile length in
    these pixels) are grown by ``config.pip_rim`` of a tile into pixels of the face's hue, at
    ``rim_least`` to ``rim_most`` of its chroma. A face of no hue (white, black) adds nothing:
    its rims cannot be told from a shadow on a grey table."""
    out = np.zeros(unlit_lab.shape[:2], np.uint8)
    fa, fb = float(face.mean[1]) - 128.0, float(face.mean[2]) - 128.0
    chroma = fa * fa + fb * fb
    if config.pip_rim <= 0 or chroma < (2 * config.rim_tint) ** 2:
        return out
    dark = (unlit_lab[..., 0] < config.shadow_depth * max(float(table.mean[0]), 1.0)).view(np.uint8)
    # BBDT labels as the default does, and gathers the stats three times as fast.
    count, comp, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(dark, 8, cv2.CV_32S, cv2.CCL_BBDT)
    large = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= config.pip_area * length * length)
    if count - len(large) < 1:
        return out
    # The pips: the dark spots but the few large ones (label 0, the frame that is not dark,
    # is set to 0 in ``dark`` already).
    pips = dark.copy()
    for i in large[large > 0]:
        x, y, w, h = (int(v) for v in stats[i, :4])
        pips[y:y + h, x:x + w][comp[y:y + h, x:x + w] == i] = 0
    k = max(3, round(config.pip_rim * length)) | 1
    near = cv2.dilate(pips, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    # The hue test only where a rim may be (a few per cent of the frame).
    where = np.flatnonzero(near)
    ab = unlit_lab.reshape(-1, 3)[where, 1:] - 128.0
    share = (ab[:, 0] * fa + ab[:, 1] * fb) / chroma
    off = np.hypot(ab[:, 0] - share * fa, ab[:, 1] - share * fb)
    tint = (share >= config.rim_least) & (share <= config.rim_most) & (off < config.rim_tint)
    out.reshape(-1)[where[tint]] = 1
    return out



def pip_spots(mask: np.ndarray, loose: np.ndarray, unlit_lab: np.ndarray, face: Colour, length: float,
              config: VisionConfig) -> np.ndarray:
    """The pips and their rims (0/1) that a face mask (``mask``) leaves out where its edge is
    broken beside them (a shadowed bevel), so that filling its holes does not fill them: spots
    far darker than the face (lighter, on a dark face), round and of a pip's size (``length`` is
    the tile length in these pixels), grown by ``pip_rim`` of a tile, where at least
    ``pip_ring`` of the ring round them is face; only where the frame differs from the table
    (``loose``). ``pip_ring`` 0 turns this off."""
    out = np.zeros(mask.shape, np.uint8)
    if config.pip_ring <= 0:
        return out
    lightness = unlit_lab[..., 0]
    face_l = float(face.mean[0])
    if face_l >= 128:
        spots = (lightness < config.shadow_depth * face_l).view(np.uint8)
    else:
        spots = (lightness > face_l + (255 - face_l) * (1 - config.shadow_depth)).view(np.uint8)
    count, comp, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(spots, 8, cv2.CV_32S, cv2.CCL_BBDT)
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    bw, bh = stats[:, cv2.CC_STAT_WIDTH].astype(np.float64), stats[:, cv2.CC_STAT_HEIGHT].astype(np.float64)
    side = np.maximum(bw, bh)
    # Round: as wide as high, filling most of its box; of a pip's size (smaller specks are the
    # face's own texture or noise, larger ones a gap, a shadow or the divider).
    pip = (area <= config.pip_area * length * length) & (side >= config.pip_least * length) \
        & (np.minimum(bw, bh) >= 0.5 * side) & (area >= 0.5 * bw * bh)
    pip[0] = False
    if not pip.any():
        return out
    # The growing and the ring only round the candidates (labels below 2**24 stay exact).
    k = max(3, round(2 * config.pip_rim * length)) | 1
    x = stats[pip, cv2.CC_STAT_LEFT]
    y = stats[pip, cv2.CC_STAT_TOP]
    x0, y0, x1, y1 = window(int(x.min()), int(y.min()), int((x + bw[pip]).max()), int((y + bh[pip]).max()), k,
                            mask.shape)
    part = comp[y0:y1, x0:x1]
    labels = np.where(pip[part], part, 0).astype(np.float32)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    grown = cv2.dilate(labels, disc)
    ring = cv2.dilate(grown, disc).astype(np.int32)
    ring[grown > 0] = 0
    around = np.bincount(ring.ravel(), minlength=count)
    faced = np.bincount(ring[mask[y0:y1, x0:x1] > 0], minlength=count)
    keep = pip & (faced >= config.pip_ring * np.maximum(around, 1))
    if keep.any():
        out[y0:y1, x0:x1][keep[grown.astype(np.int32)] & (loose[y0:y1, x0:x1] > 0)] = 1
    return out
