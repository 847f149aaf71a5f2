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

__all__ = ["Colour", "TableModel", "face_colour", "face_mask", "fit_table", "foreground", "outline", "pip_rims",
           "table_colour", "to_lab", "unlit"]

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
    d1 *= _HUE**2
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


def _has_hole(blob: np.ndarray) -> bool:
    """Whether a blob has a hole: a face has pips or a divider; a shadow has none."""
    hierarchy = cv2.findContours(blob, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)[1]
    return hierarchy is not None and bool((hierarchy[0][:, 3] >= 0).any())


def outline(blob: np.ndarray) -> np.ndarray:
    """The outer outline of a blob's pixels (what its hull and rectangle depend on)."""
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return np.concatenate(contours) if len(contours) > 1 else contours[0]


def _window(x0: int, y0: int, x1: int, y1: int, margin: int, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """The box x0..x1, y0..y1 (exclusive ends) grown by ``margin`` on each side, within the frame."""
    return max(0, x0 - margin), max(0, y0 - margin), min(shape[1], x1 + margin), min(shape[0], y1 + margin)


def _inside(stats: np.ndarray, least: int, origin: tuple[int, int], shape: tuple[int, ...],
            most: int | None = None) -> list[int]:
    """The labels (in order; never 0, the background) of a labelling's blobs (``stats``: of a
    window at ``origin`` (x, y) of a frame of ``shape``) of at least ``least`` pixels (and at most
    ``most``) that the frame's edge does not cut."""
    x = stats[:, cv2.CC_STAT_LEFT] + origin[0]
    y = stats[:, cv2.CC_STAT_TOP] + origin[1]
    area = stats[:, cv2.CC_STAT_AREA]
    ok = (area >= least) & (x > 0) & (y > 0) & (x + stats[:, cv2.CC_STAT_WIDTH] < shape[1]) \
        & (y + stats[:, cv2.CC_STAT_HEIGHT] < shape[0])
    if most is not None:
        ok &= area <= most
    ok[0] = False
    return [int(i) for i in np.flatnonzero(ok)]


def _pixels(image: np.ndarray, where: np.ndarray) -> np.ndarray:
    """The pixels of an (h, w, 3) image at the flat indices ``where``, as (n, 3): what
    ``image[mask]`` gives for the mask those indices mark, without its cost."""
    return image.reshape(-1, 3).take(where, axis=0)


def _tile_like(comp: np.ndarray, stats: np.ndarray, aspect: float, shape: tuple[int, ...],
               origin: tuple[int, int] = (0, 0)) -> tuple[list[int], list[float], list[int]]:
    """The blobs of a labelled mask (``comp``, ``stats``: its 4-connected components) shaped like
    one tile (right proportions, filling their rectangle): their labels and lengths, and which of
    them hold holes. The mask may be a window of a frame of ``shape`` at ``origin`` (x, y),
    holding the whole of what is set in the frame. A blob the frame's edge cuts is never one: its
    shape is the frame's doing (the floor beyond the table reaches the edge, and its boards may
    look like tiles)."""
    keep: list[int] = []
    marked: list[int] = []
    lengths: list[float] = []
    h, w = shape[:2]
    for i in _inside(stats, 30, origin, shape, h * w // 20):
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        blob = (comp[y:y + bh, x:x + bw] == i).astype(np.uint8)
        pts = outline(blob)
        (_, _), (a, b), _ = cv2.minAreaRect(pts)
        long, short = max(a, b), min(a, b)
        # Its outline fills its rectangle (pips at the edge bite notches: the hull bridges them).
        if short < 3 or cv2.contourArea(cv2.convexHull(pts)) < 0.85 * long * short:
            continue
        if 0.75 * aspect < long / short < 1.3 * aspect:
            keep.append(int(i))
            lengths.append(float(long))
            if _has_hole(blob):
                marked.append(int(i))
    return keep, lengths, marked


def _nearest(samples: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """The index of the nearest centre (squared distance, first of equals) of every sample,
    worked out a cache-sized run of samples at a time (two to three times faster)."""
    out = np.empty(len(samples), np.intp)
    for start in range(0, len(samples), _RUN):
        out[start:start + _RUN] = _nearest_run(samples[start:start + _RUN], centres)
    return out


#: Samples (or pixels) worked on at a time by the element-wise steps: they stay in the cache.
_RUN = 16384


def _nearest_run(samples: np.ndarray, centres: np.ndarray) -> np.ndarray:
    cols = [np.ascontiguousarray(samples[:, i]) for i in range(3)]
    best = nearest = None
    for j, centre in enumerate(centres):
        d = [np.subtract(col, c) for col, c in zip(cols, centre, strict=True)]
        for x in d:
            np.square(x, out=x)
        d[1] += d[2]
        d[0] += d[1]
        if best is None:
            best, nearest = d[0], np.zeros(len(samples), np.intp)
        else:
            closer = d[0] < best
            nearest[closer] = j
            np.minimum(best, d[0], out=best)
    assert nearest is not None
    return nearest


def face_colour(lab: np.ndarray, light: np.ndarray, fg: np.ndarray, config: VisionConfig,
                unlit_lab: np.ndarray | None = None) -> tuple[Colour, float] | None:
    """The set's face colour (lighting removed) and the tile length: of the few colours the
    foreground falls into, the one whose blobs look most like tiles. ``unlit_lab`` is
    ``unlit(lab, light)`` when already at hand."""
    u = unlit(lab, light) if unlit_lab is None else unlit_lab
    aspect = config.aspect
    pick = fg > 0
    pixels = _pixels(u, np.flatnonzero(pick))
    if len(pixels) < 50:
        return None
    step = max(1, len(pixels) // 20000)
    weight = np.array([1.0, _HUE, _HUE], np.float32)
    weighted = pixels * weight
    samples = weighted[::step].astype(np.float32)
    k = 4
    cv2.setRNGSeed(11)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
    _, _, centres = cv2.kmeans(samples, k, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    nearest = _nearest(weighted, centres)
    # Everything below looks only at the foreground's bounding box (and a margin for the closing).
    bx, by, bw, bh = cv2.boundingRect(pick.view(np.uint8))
    x0, y0, x1, y1 = _window(bx, by, bx + bw, by + bh, 2, fg.shape)
    classes = np.full((y1 - y0, x1 - x0), 255, np.uint8)
    classes[pick[y0:y1, x0:x1]] = nearest
    u_box = u[y0:y1, x0:x1]
    best: tuple[float, np.ndarray, np.ndarray, list[int], list[float]] | None = None
    close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    # Each class closed (pips and grain break a face's blob) and labelled once, for both tests.
    labelled = [_closed_blobs((classes == j).view(np.uint8), close) for j in range(k)]
    table = _on_table(fg)[y0:y1, x0:x1]
    for _, comp, stats in labelled:
        keep, lengths, marked = _tile_like(comp, stats, aspect, fg.shape, (x0, y0))
        areas = stats[:, cv2.CC_STAT_AREA]
        # A blob mostly off the table is none of the tiles: the floor beyond it has tiles or
        # boards of its own, and their class must not win the face colour.
        on = {i: _on_count(comp, stats, table, i) for i in keep}
        lengths = [v for i, v in zip(keep, lengths, strict=True) if 2 * on[i] >= areas[i]]
        keep = [i for i in keep if 2 * on[i] >= areas[i]]
        marked = [i for i in marked if 2 * on[i] >= areas[i]]
        score = float(areas[keep].sum()) + float(areas[marked].sum())
        if lengths and (best is None or score > best[0]):
            best = (score, comp, stats, keep, lengths)
    # Tiles that all touch (a line of play, a hand's row) leave no blob like one tile, and a
    # stray blob of another class (a patch of cloth) may then pass for one: the arms holding pips
    # win when they outweigh the single tiles (each counted twice when it holds pips).
    chain = _chain_arms(labelled, config, fg.shape, (x0, y0), table)
    if chain is not None and (best is None or chain[2] > best[0]):
        tiles, length = chain[0], chain[1]
    elif best is not None:
        _, comp, stats, keep, lengths = best
        chosen = np.zeros(len(stats), bool)
        chosen[keep] = True
        tiles, length = chosen[comp], float(np.median(lengths))
    else:
        return None
    # Sample the faces' insides: their rims may hold shadow or the tiles' sides. The erosion runs
    # on a window reaching past the box by its radius (or to the frame's edge).
    size = max(3, int(0.12 * length)) | 1
    wx0, wy0, wx1, wy1 = _window(x0, y0, x1, y1, size // 2 + 1, fg.shape)
    padded = np.zeros((wy1 - wy0, wx1 - wx0), np.uint8)
    padded[y0 - wy0:y1 - wy0, x0 - wx0:x1 - wx0] = tiles
    inner = cv2.erode(padded, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))) > 0
    if inner.sum() > 30:
        face = Colour.of(u[wy0:wy1, wx0:wx1][inner])
    else:
        face = Colour.of(u_box[tiles])
    return face, length


def _closed_blobs(mask: np.ndarray, kernel: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """The 4-connected blobs of ``mask`` closed by a 3 x 3 ``kernel``, as
    ``cv2.connectedComponentsWithStats`` gives them (count, labels, stats), the same labels,
    worked out over the mask's own bounding box (a colour class may hold a small part of the
    frame); the background's row of stats is not filled in."""
    x, y, w, h = cv2.boundingRect(mask)
    comp = np.zeros(mask.shape, np.int32)
    if w == 0:
        return 1, comp, np.zeros((1, 5), np.int32)
    # A margin of two: the closing reaches one pixel past the mask and back.
    x0, y0, x1, y1 = _window(x, y, x + w, y + h, 2, mask.shape)
    closed = cv2.morphologyEx(mask[y0:y1, x0:x1], cv2.MORPH_CLOSE, kernel)
    count, comp[y0:y1, x0:x1], stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=4)
    stats[1:, cv2.CC_STAT_LEFT] += x0
    stats[1:, cv2.CC_STAT_TOP] += y0
    stats[0] = 0
    return count, comp, stats


def _on_count(comp: np.ndarray, stats: np.ndarray, table: np.ndarray, i: int) -> int:
    """How many of blob ``i``'s pixels (``comp``, ``stats``: a labelling) lie where ``table`` is set."""
    x, y, bw, bh = (int(v) for v in stats[i, :4])
    return int(np.count_nonzero((comp[y:y + bh, x:x + bw] == i) & (table[y:y + bh, x:x + bw] > 0)))


def _on_table(fg: np.ndarray) -> np.ndarray:
    """Where tiles may lie, as a 0/1 mask: inside the table's outline (its largest background
    region's hull, filled; the floor beyond lies outside), and off the foreground that reaches
    in from the frame's edge (an arm, the floor)."""
    count, comp = cv2.connectedComponents((fg == 0).view(np.uint8), connectivity=4)
    table = np.ones(fg.shape, np.uint8)
    if count >= 2:
        table[:] = 0
        largest = 1 + int(np.argmax(np.bincount(comp.ravel(), minlength=count)[1:]))
        hull = cv2.convexHull(outline((comp == largest).view(np.uint8)))
        cv2.fillConvexPoly(table, hull, 1)
    count, comp = cv2.connectedComponents((fg > 0).view(np.uint8), connectivity=4)
    at_edge = np.zeros(count, bool)
    at_edge[np.concatenate([comp[0], comp[-1], comp[:, 0], comp[:, -1]])] = True
    at_edge[0] = False
    table[at_edge[comp]] = 0
    return table


def _chain_arms(labelled: list[tuple[int, np.ndarray, np.ndarray]], config: VisionConfig, shape: tuple[int, ...],
               origin: tuple[int, int], table: np.ndarray) -> tuple[np.ndarray, float, float] | None:
    """The largest blob of tile-wide arms holding pips (every tile touching another, in a chain
    or a cross), as a mask; the tile length from the arms' width (twice the usual height of
    their distance ridge), and the arms' area. ``labelled`` holds each colour class's closed mask
    labelled (count, labels, stats), on a window at ``origin`` (x, y) of a frame of ``shape``
    holding all of its foreground; ``table`` is where tiles may lie in that window
    (``_on_table``). A blob the frame's edge cuts never counts, nor one mostly off the table:
    the floor around the table reaches the edge and holds the whole table as a hole, its
    pattern's patches may look like arms, and so may an arm."""
    best: tuple[float, np.ndarray, float] | None = None
    for _, comp, stats in labelled:
        for i in _inside(stats, 30, origin, shape):
            x, y, bw, bh, area = (int(v) for v in stats[i])
            blob = (comp[y:y + bh, x:x + bw] == i).astype(np.uint8)
            if 2 * int(np.count_nonzero(blob & table[y:y + bh, x:x + bw])) < area or not _has_hole(blob):
                continue
            solid = blob.copy()
            cv2.drawContours(solid, cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0],
                             -1, 1, cv2.FILLED)
            # Faces are mostly face: their pips and dividers are small holes (a ring of pips
            # round a face of another class is not an arm).
            if area < config.arm_solid * float(solid.sum()):
                continue
            # Zeros round the blob's box: its own rows and columns reach the box's sides.
            dist = cv2.distanceTransform(cv2.copyMakeBorder(solid, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0),
                                         cv2.DIST_L2, 5)
            ridge = (dist >= cv2.dilate(dist, np.ones((3, 3), np.uint8))) & (dist > 1)
            if not ridge.any():
                continue
            # The ridge of an arm runs at half its width; spurs into its corners run lower. An arm
            # is as wide all along (a speckled patch of table is not).
            low, high = np.percentile(dist[ridge], (30, 70))
            if low < config.arm_even * high:
                continue
            width = 2.0 * float(high)
            tiles = float(solid.sum()) / (config.aspect * width * width)
            if tiles >= 1.5 and (best is None or area > best[0]):
                whole = np.zeros(comp.shape, bool)
                whole[y:y + bh, x:x + bw] = blob > 0
                best = (float(area), whole, width * config.aspect)
    if best is None:
        return None
    area, tiles_mask, length = best
    return tiles_mask, length, area


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
    pixels = _pixels(unlit(lab, light) if unlit_lab is None else unlit_lab, where)
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
