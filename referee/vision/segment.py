"""Tile faces apart from the table: whatever differs from the table's model
(:mod:`referee.vision.table`) is foreground, and the tiles are the foreground that has the set's
face colour.

Colours are OpenCV's 8-bit Lab (L 0..255, a and b offset by 128), as float32."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from referee.vision.config import VisionConfig

__all__ = ["HUE", "Colour", "face_mask", "foreground", "glare_gaps", "outline", "pip_rims", "pip_spots", "pixels_at",
           "table_colour", "to_lab", "unlit", "window"]

#: How much more a difference in hue counts than one in brightness (shading changes brightness).
HUE = 2.5


def to_lab(image: np.ndarray) -> np.ndarray:
    """BGR uint8 -> Lab float32."""
    return cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32)


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
    shadow = _shadow(ratio, da, config)
    facelike = (df < dt) & (df < config.face_reach)
    far = dt > config.table_reach
    return (facelike | (far & ~shadow)).astype(np.uint8)


def _shadow(ratio: np.ndarray, chroma2: np.ndarray, config: VisionConfig) -> np.ndarray:
    """Whether pixels are a shadow on the table: their lightness ``ratio`` to the table's under
    0.97 and at least ``shadow_depth``, their squared chroma off the table's (``chroma2``)
    under ``shadow_chroma`` squared."""
    return (ratio < 0.97) & (ratio >= config.shadow_depth) & (chroma2 < config.shadow_chroma ** 2)


def glare_gaps(mask: np.ndarray, fg: np.ndarray, unlit_lab: np.ndarray, face: Colour, table: Colour,
               width: float, config: VisionConfig) -> np.ndarray:
    """The gaps (0/1) a streak of glare cuts across a glossy face in ``mask``: between the dark
    face and the white glare the lightness passes through the table's, and a strip on each side
    of the streak is likelier table than face. Pixels the mask's closing by a disc of
    ``glare_gap`` of a tile ``width`` (these pixels) takes in, that differ from the table
    (``fg``), are no shadow on it, are light as glare is (lighter than the face, and than
    halfway from it to the table), and are no blend of face and table: further than
    ``glare_tint`` (Lab units) from every colour between the two. Between tiles lying close
    (backs in a boneyard) lie their shadows, dark side walls and pixels where face and table
    blur into each other; table between tiles apart is table. Only on a dark face: on a light
    one glare is near the face's own colour, and what such a closing took in on real photos was
    the faces' lit parts, joining tiles lying side by side. Only gaps that cut across a face
    (:func:`_across_parts`): a face cut in two leaves one piece at least too small to be a
    tile; the notches beside specks of black tiles on dark cloth passed all the colour tests,
    and a line beside them was boxed half a tile off. A streak across a tile in a line leaves
    no such piece, but its white core runs beside the gaps (lighter than face and table by
    ``glare_tint``). ``glare_gap`` 0 turns this off."""
    out = np.zeros(mask.shape, np.uint8)
    k = round(config.glare_gap * width) | 1
    if config.glare_gap <= 0 or k < 3 or float(face.mean[0]) >= 128:
        return out
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    where = np.flatnonzero(closed & ~mask.astype(bool) & fg.astype(bool))
    if not len(where):
        return out
    px = unlit_lab.reshape(-1, 3)[where].astype(np.float32)
    face_l, table_l = float(face.mean[0]), float(table.mean[0])
    ratio = px[:, 0] / max(table_l, 1.0)
    chroma2 = np.square(px[:, 1] - table.mean[1]) + np.square(px[:, 2] - table.mean[2])
    light = px[:, 0] > max(face_l, (face_l + table_l) / 2)
    # How far each pixel lies from the colours between the face's and the table's.
    f, t = face.mean.astype(np.float32), table.mean.astype(np.float32)
    span = t - f
    along = np.clip((px - f) @ span / max(float(span @ span), 1e-6), 0.0, 1.0)
    off = np.linalg.norm(px - f - along[:, None] * span, axis=1) > config.glare_tint
    out.reshape(-1)[where[light & off & ~_shadow(ratio, chroma2, config)]] = 1
    return _across_parts(out, mask, unlit_lab[..., 0], max(face_l, table_l) + config.glare_tint,
                         config.aspect * width * width, width, config.min_area_share)


def _across_parts(gaps: np.ndarray, mask: np.ndarray, lightness: np.ndarray, core: float, tile: float,
                  width: float, share: float) -> np.ndarray:
    """The pieces of ``gaps`` (0/1) that cut across a face: at least half a tile ``width``
    long, and either touching a blob of ``mask`` too small to be a tile (under ``share`` of a
    ``tile``'s area) and large enough to be a part of one (a quarter of it), or running beside
    the streak's own core: a quarter of a ``width`` of mask pixels beside them lighter than
    ``core`` (``lightness``: the unlit L). A streak across a tile in a line leaves no piece too
    small, as its core (far from the table, so in the mask) joins the pieces on either side.
    A gap between blobs each a whole tile is a seam between touching tiles, or a gap between
    tiles lying close, with only dark faces beside it; a notch beside a speck is no cut: left
    open."""
    if not gaps.any():
        return np.zeros_like(gaps)
    _, pieces, cuts, _ = cv2.connectedComponentsWithStats(gaps, connectivity=8)
    long = np.flatnonzero(np.maximum(cuts[:, cv2.CC_STAT_WIDTH], cuts[:, cv2.CC_STAT_HEIGHT]) >= 0.5 * width)
    long = long[long > 0]
    if not len(long):
        return np.zeros_like(gaps)
    _, comp, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 4, cv2.CV_32S, cv2.CCL_BBDT)
    area = stats[:, cv2.CC_STAT_AREA]
    parts = np.flatnonzero((area < share * tile) & (area >= 0.25 * tile))
    parts = parts[parts > 0]
    near = cv2.dilate(np.isin(comp, parts).view(np.uint8), np.ones((3, 3), np.uint8))
    touching = np.intersect1d(np.unique(pieces[(near > 0) & (gaps > 0)]), long)
    # The mask's pixels beside each piece lighter than ``core`` (a pixel beside two pieces
    # counts for one of them): each piece's label grown by a pixel, read where the mask is lit.
    owner = cv2.dilate(pieces.astype(np.float32), np.ones((3, 3), np.uint8)).reshape(-1)
    around = np.flatnonzero((owner > 0) & (mask.reshape(-1) > 0))
    lit = around[lightness.reshape(-1)[around] > core]
    beside = np.bincount(owner[lit].astype(np.int64), minlength=len(cuts))
    cored = long[beside[long] >= 0.25 * width]
    return np.isin(pieces, np.union1d(touching, cored)).view(np.uint8)


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
