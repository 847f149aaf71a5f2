"""The set's face colour and the tile length, from the foreground of one frame: of the few
colours the foreground falls into, the one whose blobs look most like tiles (alone, or arms of
touching tiles holding pips), on the table and off the frame's edge."""

from __future__ import annotations

import math

import cv2
import numpy as np

from referee.vision.config import VisionConfig
from referee.vision.segment import HUE, Colour, outline, pixels_at, unlit, window

__all__ = ["face_colour", "face_colours"]


def _has_hole(blob: np.ndarray) -> bool:
    """Whether a blob has a hole: a face has pips or a divider; a shadow has none."""
    hierarchy = cv2.findContours(blob, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)[1]
    return hierarchy is not None and bool((hierarchy[0][:, 3] >= 0).any())


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
    found = face_colours(lab, light, fg, config, unlit_lab, 1)
    return found[0] if found else None


def face_colours(lab: np.ndarray, light: np.ndarray, fg: np.ndarray, config: VisionConfig,
                 unlit_lab: np.ndarray | None = None, most: int = 2) -> list[tuple[Colour, float]]:
    """Up to ``most`` guesses at the face colour and tile length (:func:`face_colour`), likeliest
    first: the colour classes whose blobs look like tiles, and the chain of arms holding pips,
    by the area of those blobs. The runner-up is the faces when the tiles' side walls and
    shadows make more tile-like blobs than the faces do (a tilted camera over pale tiles)."""
    u = unlit(lab, light) if unlit_lab is None else unlit_lab
    aspect = config.aspect
    pick = fg > 0
    pixels = pixels_at(u, np.flatnonzero(pick))
    if len(pixels) < 50:
        return []
    step = max(1, len(pixels) // 20000)
    weight = np.array([1.0, HUE, HUE], np.float32)
    weighted = pixels * weight
    samples = weighted[::step].astype(np.float32)
    k = 4
    cv2.setRNGSeed(11)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
    _, _, centres = cv2.kmeans(samples, k, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    nearest = _nearest(weighted, centres)
    # Everything below looks only at the foreground's bounding box (and a margin for the closing).
    bx, by, bw, bh = cv2.boundingRect(pick.view(np.uint8))
    x0, y0, x1, y1 = window(bx, by, bx + bw, by + bh, 2, fg.shape)
    classes = np.full((y1 - y0, x1 - x0), 255, np.uint8)
    classes[pick[y0:y1, x0:x1]] = nearest
    u_box = u[y0:y1, x0:x1]
    found: list[tuple[float, np.ndarray, float]] = []  # (score, tiles mask, length)
    close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    # Each class closed (pips and grain break a face's blob) and labelled once, for both tests.
    labelled = [_closed_blobs((classes == j).view(np.uint8), close) for j in range(k)]
    table = _on_table(fg, config.seam_px)[y0:y1, x0:x1]
    for _, comp, stats in labelled:
        keep, lengths, marked = _tile_like(comp, stats, aspect, fg.shape, (x0, y0))
        areas = stats[:, cv2.CC_STAT_AREA]
        # A blob mostly off the table is none of the tiles: the floor beyond it has tiles or
        # boards of its own, and their class must not win the face colour.
        on = {i: _on_count(comp, stats, table, i) for i in keep}
        lengths = [v for i, v in zip(keep, lengths, strict=True) if 2 * on[i] >= areas[i]]
        keep = [i for i in keep if 2 * on[i] >= areas[i]]
        marked = [i for i in marked if 2 * on[i] >= areas[i]]
        if lengths:
            chosen = np.zeros(len(stats), bool)
            chosen[keep] = True
            score = float(areas[keep].sum()) + float(areas[marked].sum())
            found.append((score, chosen[comp], float(np.median(lengths))))
    # Tiles that all touch (a line of play, a hand's row) leave no blob like one tile, and a
    # stray blob of another class (a patch of cloth) may then pass for one: the arms holding pips
    # win when they outweigh the single tiles (each counted twice when it holds pips).
    chain = _chain_arms(labelled, config, fg.shape, (x0, y0), table)
    if chain is not None:
        found.append((chain[2], chain[0], chain[1]))
    found.sort(key=lambda f: -f[0])  # stable: of equals, a class's single tiles before the arms
    return [(_sampled(u, u_box, tiles, length, (x0, y0, x1, y1), fg.shape), length)
            for _, tiles, length in found[:most]]


def _sampled(u: np.ndarray, u_box: np.ndarray, tiles: np.ndarray, length: float, box: tuple[int, int, int, int],
             shape: tuple[int, ...]) -> Colour:
    """The faces' colour class from the pixels of ``tiles`` (a mask over ``box`` of ``u``,
    which is ``u_box``), their insides: their rims may hold shadow or the tiles' sides. The
    erosion runs on a window reaching past the box by its radius (or to the frame's edge)."""
    x0, y0, x1, y1 = box
    size = max(3, int(0.12 * length)) | 1
    wx0, wy0, wx1, wy1 = window(x0, y0, x1, y1, size // 2 + 1, shape)
    padded = np.zeros((wy1 - wy0, wx1 - wx0), np.uint8)
    padded[y0 - wy0:y1 - wy0, x0 - wx0:x1 - wx0] = tiles
    inner = cv2.erode(padded, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))) > 0
    if inner.sum() > 30:
        return Colour.of(u[wy0:wy1, wx0:wx1][inner])
    return Colour.of(u_box[tiles])


def _ridge(solid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distance transform of a 0/1 mask (padded by a pixel of zeros all round: its own rows
    and columns may reach its box's sides) and its ridge, where it stands highest locally."""
    dist = cv2.distanceTransform(cv2.copyMakeBorder(solid, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0), cv2.DIST_L2, 5)
    return dist, (dist >= cv2.dilate(dist, np.ones((3, 3), np.uint8))) & (dist > 1)


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
    x0, y0, x1, y1 = window(x, y, x + w, y + h, 2, mask.shape)
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


def _on_table(fg: np.ndarray, seam: int) -> np.ndarray:
    """Where tiles may lie, as a 0/1 mask: inside the table's outline (its largest background
    region's hull, filled; the floor beyond lies outside), and off the foreground that reaches
    in from the frame's edge (an arm, the floor). Lines of foreground narrower than ``seam``
    pixels are left out first: a wood table's seams between planks part the table into strips,
    and join the tiles they touch to the floor at the frame's edge."""
    if seam > 1:
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (seam, seam)))
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


def _filled(blob: np.ndarray) -> np.ndarray:
    """``blob`` (0/1) with every hole filled."""
    solid = blob.copy()
    cv2.drawContours(solid, cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0], -1, 1, cv2.FILLED)
    return solid


def _pips_filled(blob: np.ndarray, solid: np.ndarray, share: float, ridge_share: float) -> np.ndarray:
    """``blob`` (0/1) with only the holes a face holds filled (``solid``: every hole filled):
    pips and the divider, none longer than ``share`` of twice the blob's own thickness (twice the
    usual height of its distance ridge where it stands at least ``ridge_share`` of its highest,
    pips not filled: a face's width or less, as they bite into it), so within one tile. A longer
    hole is table that a line of play closes round as it turns back on itself (a loop filled as
    face read the arms two and a half tiles wide, and the frame's 28 tiles were lost); ``share``
    0 fills all."""
    if share <= 0:
        return solid
    count, comp, stats, _ = cv2.connectedComponentsWithStats(solid & (1 - blob), connectivity=4)
    if count < 2:
        return solid
    dist, ridge = _ridge(blob)
    high = ridge & (dist >= ridge_share * float(dist.max()))
    if not high.any():
        return solid
    faces = solid.copy()
    longest = share * 4.0 * float(np.percentile(dist[high], 70))
    for i in range(1, count):
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        if math.hypot(bw, bh) <= longest:  # no rectangle round it is longer than its box's diagonal
            continue
        part = comp[y:y + bh, x:x + bw] == i
        if max(cv2.minAreaRect(cv2.findNonZero(part.view(np.uint8)))[1]) > longest:
            faces[y:y + bh, x:x + bw][part] = 0
    return faces


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
            whole = _filled(blob)
            # Faces are mostly face: their pips and dividers are small holes (a ring of pips
            # round a face of another class is not an arm).
            if area < config.arm_solid * float(whole.sum()):
                continue
            solid = _pips_filled(blob, whole, config.arm_hole, config.arm_ridge)
            dist, ridge = _ridge(solid)
            if not ridge.any():
                continue
            # The ridge of an arm runs at half its width; spurs into its corners run lower. An arm
            # is as wide all along (a speckled patch of table is not), once the notches pips bite
            # in its outline are smoothed away.
            k = round(config.arm_smooth * 2.0 * float(np.median(dist[ridge])))
            smooth, even = (dist, ridge) if k < 2 else _ridge(cv2.morphologyEx(
                solid, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k | 1, k | 1))))
            low, high = np.percentile(smooth[even], (30, 70)) if even.any() else (0.0, 1.0)
            if low < config.arm_even * high:
                continue
            # Its width is read where the ridge stands high: a ragged outline (a photo's colour
            # classes part in grain) raises many low maxima along the edge, which would halve it.
            high = float(np.percentile(dist[ridge & (dist >= config.arm_ridge * float(dist.max()))], 70))
            width = 2.0 * high
            tiles = float(solid.sum()) / (config.aspect * width * width)
            if tiles >= 1.5 and (best is None or area > best[0]):
                whole = np.zeros(comp.shape, bool)
                whole[y:y + bh, x:x + bw] = blob > 0
                best = (float(area), whole, width * config.aspect)
    if best is None:
        return None
    area, tiles_mask, length = best
    return tiles_mask, length, area
