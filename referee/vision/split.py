"""From a mask of tile faces to one rotated rectangle per tile: the tile size is read off the
blobs that look like single tiles, and a blob holding several touching tiles (a chain, a double
crosswise on a line) is packed with tile-sized rectangles, ends first."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator

import cv2
import numpy as np

from referee.vision.config import VisionConfig
from referee.vision.segment import outline
from referee.vision.size import TileSize

__all__ = ["Box", "estimate_tile_size", "split_blobs"]


@dataclasses.dataclass(frozen=True)
class Box:
    """A tile's rectangle in work pixels: centre, length along ``angle`` (degrees), width."""

    cx: float
    cy: float
    length: float
    width: float
    angle: float
    packed: bool = False  # placed in a blob of touching tiles (its position along the line is a guess)
    locked: bool = False  # packed where nothing else fits (a double across a line): its place is no guess

    def corners(self) -> np.ndarray:
        """Four corners, (4, 2): the first two on one long side, from one short end to the other."""
        a = math.radians(self.angle)
        ux, uy = math.cos(a), math.sin(a)
        vx, vy = -uy, ux
        hl, hw = self.length / 2, self.width / 2
        return np.array([[self.cx - ux * hl - vx * hw, self.cy - uy * hl - vy * hw],
                         [self.cx + ux * hl - vx * hw, self.cy + uy * hl - vy * hw],
                         [self.cx + ux * hl + vx * hw, self.cy + uy * hl + vy * hw],
                         [self.cx - ux * hl + vx * hw, self.cy - uy * hl + vy * hw]])

    def scaled(self, scale: float) -> Box:
        """The box with its centre and sides multiplied by ``scale`` (another working scale)."""
        return dataclasses.replace(self, cx=self.cx * scale, cy=self.cy * scale, length=self.length * scale,
                                   width=self.width * scale)


def _box_of(rect: tuple[tuple[float, float], tuple[float, float], float]) -> Box:
    (cx, cy), (w, h), angle = rect
    if w >= h:
        return Box(cx, cy, w, h, angle)
    return Box(cx, cy, h, w, angle + 90.0)


#: A mask's 4-connected blobs: labels image and stats (as ``cv2.connectedComponentsWithStats``).
Labels = tuple[np.ndarray, np.ndarray]


def label(mask: np.ndarray) -> Labels:
    """The mask's 4-connected blobs, labelled once for every step that looks at them."""
    _, comp, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    return comp, stats


def _blobs(labels: Labels, least: float = 0.0) -> Iterator[tuple[np.ndarray, tuple[int, int, int, int], int]]:
    """Each blob of at least ``least`` pixels, in label order: its own pixels (cropped to its
    box), the box (x, y, w, h) and its area."""
    comp, stats = labels
    for i in np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= least).tolist():
        if i == 0:
            continue
        x, y, w, h, area = (int(v) for v in stats[i])
        yield (comp[y:y + h, x:x + w] == i).astype(np.uint8), (x, y, w, h), area


def estimate_tile_size(mask: np.ndarray, config: VisionConfig, near: float | None = None,
                       labels: Labels | None = None) -> TileSize | None:
    """The tile length (pixels) across the frame from the blobs shaped like one tile: right
    proportions, nearly filling their rectangle (and within a third of ``near`` when given);
    else, all over the frame, from the width of straight rows of tiles end to end; None when no
    blob looks like either, or the length is out of bounds. ``labels`` is ``label(mask)`` when
    already at hand."""
    lengths: list[tuple[float, float, float]] = []
    widths = []
    for blob, (x, y, _, _), _ in _blobs(label(mask) if labels is None else labels,
                                       0.1 * config.min_tile_px ** 2 / config.aspect):
        pts = outline(blob)
        box = _box_of(cv2.minAreaRect(pts))
        if box.width < 2:
            continue
        fill = cv2.contourArea(cv2.convexHull(pts)) / (box.length * box.width)
        ratio = box.length / box.width
        if fill <= 0.8:
            continue
        if 0.8 * config.aspect < ratio < 1.25 * config.aspect:
            if near is None or 0.67 < box.length / near < 1.5:
                lengths.append((box.cx + x, box.cy + y, box.length))
        elif ratio >= 1.25 * config.aspect and (near is None or 0.67 < box.width * config.aspect / near < 1.5):
            # Tiles end to end: the row is a tile wide. (A squarer blob is ambiguous: two tiles
            # side by side are a tile long across.)
            widths.append(box.width)
    if lengths:
        size = dataclasses.replace(TileSize.fit(lengths, config.size_tiles, config.size_margin,
                                                float(max(mask.shape))), measured=len(lengths))
    elif widths:
        size = TileSize(float(np.median(widths)) * config.aspect)
    else:
        return None
    return size if config.min_tile_px <= size.length <= config.max_tile_px else None


def _dominant_angle(blob: np.ndarray) -> float:
    """The blob's edge direction modulo 90 degrees (tiles in a line are square to each other)."""
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    c = max(contours, key=len).reshape(-1, 2).astype(np.float64)
    step = max(2, len(c) // 200)
    d = np.roll(c, -3 * step, axis=0) - c
    ang = np.arctan2(d[:, 1], d[:, 0])
    weight = np.hypot(d[:, 0], d[:, 1])
    s, co = (weight * np.sin(4 * ang)).sum(), (weight * np.cos(4 * ang)).sum()
    return math.degrees(math.atan2(s, co) / 4)


def _pack(blob: np.ndarray, length: float, width: float, config: VisionConfig) -> list[Box]:
    """Tile-sized rectangles covering a blob of touching tiles, placed greedily where one fits
    snugly: flush against the blob's edge or a placed tile, leaving least of the blob beside it."""
    theta = _dominant_angle(blob)
    h, w = blob.shape
    pad = int(length)
    big = cv2.copyMakeBorder(blob, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    centre = (big.shape[1] / 2, big.shape[0] / 2)
    rot = cv2.getRotationMatrix2D(centre, theta, 1.0)
    # The turned blob on a canvas that holds all of it: a long blob turned by tens of degrees
    # reaches past its own box's corners (an arm of a line of play was cut off so, unpacked).
    cos, sin = abs(rot[0, 0]), abs(rot[0, 1])
    size = (math.ceil(big.shape[1] * cos + big.shape[0] * sin), math.ceil(big.shape[1] * sin + big.shape[0] * cos))
    rot[:, 2] += (size[0] / 2 - centre[0], size[1] / 2 - centre[1])
    upright = cv2.warpAffine(big, rot, size, flags=cv2.INTER_NEAREST)
    # Pips at a tile's edge bite notches into its blob: close them before fitting rectangles.
    k = max(3, round(0.2 * width)) | 1
    upright = cv2.morphologyEx(upright, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    uncovered = upright.astype(np.float32)
    full = length * width
    inv = cv2.invertAffineTransform(rot)
    boxes: list[Box] = []

    def place(x: int, y: int, index: int, locked: bool = False) -> None:
        kx, ky = (max(3, round(length)), max(3, round(width)))[::1 if index == 0 else -1]
        x0, y0 = x - kx // 2, y - ky // 2
        uncovered[max(0, y0):y0 + ky, max(0, x0):x0 + kx] = 0
        bx, by = inv @ np.array([x, y, 1.0])
        angle = theta if index == 0 else theta + 90.0
        boxes.append(Box(float(bx - pad), float(by - pad), length, width, angle, True, locked))

    free = upright
    if config.pack_lock < 1:
        # First the tiles locked in place: a double crosswise on a line sticks out on both sides,
        # and a rectangle nearly its size fits there and nowhere near (one along the line slides).
        pinned = []
        for index, (lx, ly) in enumerate(((length, width), (width, length))):
            strict = cv2.erode(upright, cv2.getStructuringElement(
                cv2.MORPH_RECT, (max(1, round(config.pack_lock * lx)), max(1, round(config.pack_lock * ly)))))
            count, _, stats, cents = cv2.connectedComponentsWithStatsWithAlgorithm(strict, 8, cv2.CV_32S, cv2.CCL_BBDT)
            for i in range(1, count):
                sx, sy = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
                if sx <= config.pack_slide * lx + 1 and sy <= config.pack_slide * ly + 1:
                    pinned.append((float(stats[i, cv2.CC_STAT_AREA]), round(cents[i][0]), round(cents[i][1]), index))
        for _, x, y, index in sorted(pinned):
            kx, ky = (max(3, round(length)), max(3, round(width)))[::1 if index == 0 else -1]
            x0, y0 = x - kx // 2, y - ky // 2
            if uncovered[max(0, y0):y0 + ky, max(0, x0):x0 + kx].sum() >= config.pack_lock * full:
                place(x, y, index, locked=True)
        if boxes:
            free = (uncovered > 0).astype(np.uint8)
    shapes = []
    for lx, ly in ((length, width), (width, length)):
        kx, ky = max(3, round(lx)), max(3, round(ly))
        fit = cv2.erode(free, cv2.getStructuringElement(
            cv2.MORPH_RECT, (max(1, round(config.pack_fit * lx)), max(1, round(config.pack_fit * ly)))))
        shapes.append((lx, ly, kx, ky, fit > 0))
    margin = max(2, round(0.25 * width))
    for _ in range(int(upright.sum() / full) + 3):
        best = None
        for index, (_, _, kx, ky, fit) in enumerate(shapes):
            cover = cv2.boxFilter(uncovered, -1, (kx, ky), normalize=False, borderType=cv2.BORDER_CONSTANT)
            ring = cv2.boxFilter(uncovered, -1, (kx + 2 * margin, ky + 2 * margin), normalize=False,
                                 borderType=cv2.BORDER_CONSTANT) - cover
            score = np.where(fit & (cover > config.min_area_share * full), cover - ring, -np.inf)
            i = int(np.argmax(score))
            if np.isfinite(score.flat[i]) and (best is None or score.flat[i] > best[0]):
                best = (float(score.flat[i]), i % size[0], i // size[0], index)
        if best is None:
            break
        _, x, y, index = best
        place(x, y, index)
    # Tiles cover what they are packed into, but for slivers (the tiles' sides, shadows) and a
    # little at a turn: a blob with much left over is something else.
    rest = cv2.morphologyEx((uncovered > 0).astype(np.uint8), cv2.MORPH_OPEN,
                            cv2.getStructuringElement(cv2.MORPH_RECT, (max(3, round(width / 2)),) * 2))
    if rest.sum() > max((1 - config.min_cover) * full, config.leftover_share * float(upright.sum())):
        return []
    return [b for b in boxes if 0 <= b.cx < w and 0 <= b.cy < h]


def _line_width(blob: np.ndarray, width: float, reach: float) -> float:
    """The width of the tiles in a blob of touching tiles, read off the blob itself: twice the
    usual height of its distance ridge (a line of tiles is one tile wide; a double crosswise is
    wider, a turn's corner too, and they are the few). The frame's tile size varies across a
    tilted frame; this is the size here. Only a narrower width is taken, by at most a factor of
    ``reach``: touching tiles' shadows and sides merge into a wider blob than a single tile's,
    while the tiles themselves are no wider than the frame's ``width`` says (a line where the
    frame is farther from the camera is narrower)."""
    # Zeros round the blob's box: its own rows and columns reach the box's sides.
    dist = cv2.distanceTransform(cv2.copyMakeBorder(blob, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0), cv2.DIST_L2, 5)
    ridge = (dist >= cv2.dilate(dist, np.ones((3, 3), np.uint8))) & (dist > 1)
    if not ridge.any() or reach <= 1:
        return width
    seen = 2.0 * float(np.median(dist[ridge]))
    return seen if 1 / reach < seen / width < 1 else width


def _edge_contact(blob: np.ndarray, origin: tuple[int, int], shape: tuple[int, int]) -> int:
    """How many of the frame's edge pixels a blob (at ``origin`` (x, y) in a frame of ``shape``)
    covers."""
    x, y = origin
    h, w = blob.shape
    fh, fw = shape
    return (int(np.count_nonzero(blob[:, 0])) * (x == 0) + int(np.count_nonzero(blob[:, -1])) * (x + w == fw)
            + int(np.count_nonzero(blob[0])) * (y == 0) + int(np.count_nonzero(blob[-1])) * (y + h == fh))


def split_blobs(mask: np.ndarray, size: TileSize, config: VisionConfig,
                face_distance: np.ndarray | None = None,
                labels: Labels | None = None) -> tuple[list[Box], list[np.ndarray]]:
    """Every tile rectangle in a face mask, given the tile length across it in the mask's
    pixels; and the big blobs reaching in from the frame's edge (an arm, the floor), as masks of
    the frame. ``face_distance`` (how far each pixel's colour is from the tiles', in standard
    deviations) tells a line of tiles running off the frame from an arm. ``labels`` is
    ``label(mask)`` when already at hand."""
    boxes: list[Box] = []
    big: list[np.ndarray] = []
    fh, fw = mask.shape
    smallest = min(size.length, size.least) if size.least > 0 else size.length
    # Blobs far below a tile's share are skipped before they are cut out (a mask holds thousands).
    for blob, (x, y, bw, bh), area in _blobs(label(mask) if labels is None else labels,
                                             0.999 * config.min_area_share * smallest * smallest / config.aspect):
        length = size.at(x + bw / 2, y + bh / 2)
        width = length / config.aspect
        share = area / (length * width)
        if share < config.min_area_share:
            continue
        # An arm is measured in the frame's usual tiles: the field is fitted to tiles, and an
        # arm's box may reach where no tile was measured.
        usual = area / (size.length * size.length / config.aspect)
        if usual > config.occluder_tiles and (x == 0 or y == 0 or x + bw == fw or y + bh == fh):
            # From the frame's edge: tiles if of the tiles' colour and covered by tiles, else an
            # arm (or the floor).
            tiled = (usual <= config.max_blob_tiles and _edge_contact(blob, (x, y), mask.shape)
                     <= config.edge_contact * size.length and (face_distance is None or float(
                         np.median(face_distance[y:y + bh, x:x + bw][blob > 0])) <= config.face_reach))
            local = _line_width(blob, width, config.local_size) if tiled else width
            packed = _pack(blob, local * config.aspect, local, config) if tiled else []
            if packed:
                boxes.extend(dataclasses.replace(b, cx=b.cx + x, cy=b.cy + y) for b in packed)
            else:
                whole = np.zeros(mask.shape, np.uint8)
                whole[y:y + bh, x:x + bw] = blob
                big.append(whole)
            continue
        if share > config.max_blob_tiles:
            continue
        found = _tiles_in(blob, length, config)
        if len(found) < round(share):
            # The packing left a tile's worth out (backs touching at angles, packed at one angle
            # but for the last): parted where narrow, every part one tile, is the better account.
            parted = _apart(blob, length, config)
            if len(parted) > len(found):
                found = parted
        boxes.extend(dataclasses.replace(b, cx=b.cx + x, cy=b.cy + y) for b in found)
    return boxes, big


def _tiles_in(blob: np.ndarray, length: float, config: VisionConfig) -> list[Box]:
    """The tile rectangles in one blob (its own pixels): one tile's when it is shaped like one,
    else those packed into it."""
    box = _one_tile(blob, length, config)
    if box is not None:
        return [box]
    width = length / config.aspect
    local = _line_width(blob, width, config.local_size)
    return _pack(blob, local * config.aspect, local, config)


def _one_tile(blob: np.ndarray, length: float, config: VisionConfig, fill: float = 0.0) -> Box | None:
    """The rectangle of a blob shaped like one tile (its own pixels), its hull filling at least
    ``fill`` of the rectangle, else None."""
    width = length / config.aspect
    pts = outline(blob)
    box = _box_of(cv2.minAreaRect(pts))
    share = float(blob.sum()) / (length * width)
    if not (config.min_area_share <= share <= config.max_area_share and 0.75 < box.length / length < 1.3
            and 0.7 < box.width / width < 1.4):
        return None
    if fill > 0 and cv2.contourArea(cv2.convexHull(pts)) < fill * box.length * box.width:
        return None
    return box


def _apart(blob: np.ndarray, length: float, config: VisionConfig) -> list[Box]:
    """The tiles of a blob no packing covers, when it parts into pieces each shaped like one
    tile where it is narrow (tiles touching only at a corner or along a short stretch, at
    angles no packing follows: a pile of backs). The blob is eroded by discs of 0.4 to 1 of
    ``apart`` of a tile width, shallowest first; each part, grown back within the blob, must be
    one tile filling its rectangle (specks aside)."""
    width = length / config.aspect
    if config.apart <= 0 or blob.sum() < 2 * config.min_area_share * length * width:
        return []
    for share in (0.4 * config.apart, 0.6 * config.apart, 0.8 * config.apart, config.apart):
        k = max(3, round(share * width)) | 1
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        count, comp = cv2.connectedComponents(cv2.erode(blob, disc), connectivity=4)
        boxes = []
        for i in range(1, count):
            part = cv2.dilate((comp == i).astype(np.uint8), disc) & blob
            if part.sum() < config.min_area_share * length * width:
                continue  # a speck the erosion left at a corner
            x, y, w, h = cv2.boundingRect(part)
            # A part must fill its rectangle as a tile does (its hull; pips at the edge bite
            # notches): a face the mask broke up is ragged, and its rectangle off the tile.
            box = _one_tile(part[y:y + h, x:x + w].copy(), length, config, fill=0.85)
            if box is None:
                break
            boxes.append(dataclasses.replace(box, cx=box.cx + x, cy=box.cy + y))
        else:
            if len(boxes) >= 2:
                return boxes
    return []
