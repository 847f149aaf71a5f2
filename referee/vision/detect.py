"""The whole of vision for one frame: table model, tile faces, tile size, one rectangle per
tile, pips read on each, face-down tiles, and whether an arm is in the way."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np

from referee.vision.byshape import by_shape
from referee.vision.chain import align_runs
from referee.vision.config import VisionConfig
from referee.vision.facecolour import face_colours
from referee.vision.images import ImageError
from referee.vision.occlusion import occluded, table_outlines
from referee.vision.pipfit import pip_lengths
from referee.vision.profile import Profile
from referee.vision.reading import read_boxes
from referee.vision.refine import refine
from referee.vision.rescue import by_dividers
from referee.vision.segment import (
    Colour,
    face_mask,
    foreground,
    glare_gaps,
    pip_rims,
    pip_spots,
    table_colour,
    to_lab,
    unlit,
)
from referee.vision.size import TileSize
from referee.vision.split import Box, estimate_tile_size, label, split_blobs
from referee.vision.table import TableModel, fit_table
from referee.vision.types import Detection, FaceModel

__all__ = ["ImageError", "detect"]

def _check(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.size == 0 or image.ndim not in (2, 3):
        raise ImageError("expected a BGR image (height x width x 3 uint8)")
    if image.dtype != np.uint8:
        raise ImageError(f"expected 8-bit pixels, got {image.dtype}")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.shape[2] != 3:
        raise ImageError(f"expected 3 colour channels, got {image.shape[2]}")
    return image


@dataclasses.dataclass(frozen=True)
class _View:
    """The frame at one working scale, with what the table model says of each pixel."""

    image: np.ndarray
    lab: np.ndarray
    table: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))
    light: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))
    fg: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))
    loose: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))
    spread: float = 0.0

    @classmethod
    def of(cls, image: np.ndarray, scale: float) -> _View:
        if scale == 1.0:
            work = image
        else:
            work = cv2.resize(image, None, fx=scale, fy=scale,
                              interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
        return cls(work, to_lab(work))

    def against(self, model: TableModel, spread: float | None = None) -> _View:
        """Foreground by the table model (fitted at any scale: it is in frame fractions)."""
        table = dataclasses.replace(model, shape=self.lab.shape[:2]).colour()
        distance = foreground(self.lab, table, model.spread)
        if spread is None:
            # The table's texture and the sensor's noise, pixel by pixel (the model's cells
            # average them away): the spread of the nearer part of the distances.
            sample = distance[::3, ::3].ravel()
            near = sample[sample <= np.percentile(sample, 60)]
            spread = max(model.spread, float(np.median(near)) * 1.2)
        fg = (distance > max(4.0 * spread, 12.0)).astype(np.uint8)
        loose = (distance > max(2.5 * spread, 8.0)).astype(np.uint8)
        light = table[..., 0] / max(float(model.mean()[0]), 1.0)
        return dataclasses.replace(self, table=table, light=light, fg=fg, loose=loose, spread=spread)


def _fill_holes(mask: np.ndarray, largest: float) -> np.ndarray:
    """Fill holes (pips, the divider) smaller than ``largest`` pixels."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    out = mask.copy()
    if hierarchy is None:
        return out
    holes = [c for c, hi in zip(contours, hierarchy[0], strict=True) if hi[3] >= 0 and cv2.contourArea(c) < largest]
    cv2.drawContours(out, holes, -1, 1, cv2.FILLED)
    return out


def detect(image: np.ndarray, config: VisionConfig | None = None, profile: Profile | None = None,
           prior: FaceModel | None = None) -> Detection:
    """Find every tile in a BGR frame and read its pips. The frame is not modified. With
    ``prior`` (the face colour and tile length the frames before agree on), the tiles are looked
    for with that model where the frame's own estimate strays from it (``prior_length``,
    ``prior_colour``); the Detection reports the frame's own (:attr:`Detection.face`) either way.
    A frame that leaves some tile unsure on its likeliest face colour, or finds nothing at all on
    it, is read again on the next likeliest, up to ``face_tries`` in all; a reading with more
    tiles read surely and none more left unsure replaces the one held, and one reading most of
    its tiles surely replaces one that found nothing (:func:`_better`)."""
    image = _check(image)
    if config is None:
        config = profile.vision if profile is not None else VisionConfig()
    h, w = image.shape[:2]
    scale = min(1.0, config.work_side / max(h, w))
    known = profile.tile_size(w, h) if profile is not None \
        else TileSize(config.tile_px) if config.tile_px is not None else None
    view = _View.of(image, scale)
    model = fit_table(view.lab, config, None if prior is None else prior.table)
    view = view.against(model)
    u = unlit(view.lab, view.light)
    # Faces little apart from a textured table (ivory on pale wood: its planks' spread sets a
    # high bar) may show no tile-like blob above the bar: then they are looked for in what
    # differs from the table at all.
    guesses = face_colours(view.lab, view.light, view.fg, config, u, config.face_tries)
    if not guesses or guesses[0][1] / scale < config.min_tile_px:
        # ... or show only specks shaped like tiles, shorter than any tile the frame may hold.
        guesses = face_colours(view.lab, view.light, view.loose, config, u, config.face_tries) or guesses
    tries: list[tuple[Colour, float] | None] = [*guesses] or [None]
    best: Detection | None = None
    for found in tries:
        got = _read_frame(image, view, model, u, found, scale, known, config, prior)
        if best is None or _better(got, best):
            best = got
        # The frames before settle the faces when they agree on them (a prior): the frame's own
        # guess is read when it agrees with theirs, theirs when it strays; no other is tried.
        if prior is not None or best.occluded or (_surely(best) == len(best.tiles) and not _blind(best)):
            break
    assert best is not None  # tries holds one guess at least
    return by_dividers(image, best, config, view.lab[..., 0])


def _better(other: Detection, held: Detection) -> bool:
    """Whether a frame read on another guess at the face colour (``other``) beats the reading
    ``held``: no arm, more tiles read surely, and no more left unsure (grain or shadows taken
    for the faces make many boxes, a few of them read surely); beside a reading that found
    nothing, most of its tiles read surely."""
    sure, kept = _surely(other), _surely(held)
    if _blind(held):
        return not other.occluded and sure > len(other.tiles) - sure
    return not other.occluded and sure > kept and len(other.tiles) - sure <= len(held.tiles) - kept


def _blind(found: Detection) -> bool:
    """Whether a reading found nothing at all, no tile and no back, and no arm either: a guess
    at the faces that matched what is not tiles (a lens's dark rim round a pale table, near the
    faces' colour, joins them to the frame's edge)."""
    return not found.tiles and not found.face_down and not found.occluded


def _read_frame(image: np.ndarray, view: _View, model: TableModel, u: np.ndarray, found: tuple[Colour, float] | None,
                scale: float, known: TileSize | None, config: VisionConfig,
                prior: FaceModel | None) -> Detection:
    """The frame read on one guess at the face colour and tile length (``found``, at ``scale``;
    None: no guess), or on ``prior`` where that guess strays from it."""
    h, w = image.shape[:2]
    own = None if found is None else FaceModel.of(found[0].mean, found[0].inverse, found[1] / scale, model.mean())
    if prior is not None and (own is None or own.strays(prior, config.prior_length, config.prior_colour)):
        # The frame's own estimate went astray (backs merged into one tile-shaped blob, the
        # grain parted the colours differently): the tiles are looked for as the frames before saw them.
        found = Colour(np.array(prior.mean, np.float32), np.array(prior.inverse, np.float32)), prior.length * scale
    if found is None:
        return Detection(w, h, False)
    face, seen_length = found
    if known is not None and not 1 / config.profile_trust < known.length * scale / seen_length < config.profile_trust:
        known = None  # the profile is for another camera or table: trust what the frame shows
    # Small tiles are looked at enlarged: a pip's notch or a seam is then a few pixels, not one.
    first = known.length * scale if known else seen_length
    if first < config.work_tile_px:
        # An arm over the table makes the tiles look tiny (its texture is taken for them): ask
        # first, at this scale, whether the frame is occluded, before paying for the enlarged
        # pass (three times the pixels in each direction).
        if _segment(view, u, face, config, known.scaled(scale) if known else None, seen_length).occluded:
            return Detection(w, h, True, face=own)
        if known is None and seen_length / scale < config.min_tile_px:
            # "Tiles" shorter than any the size estimate may settle on, at full resolution: the
            # pips or the grain took the tiles' place (a grey frame of ivory on white paper
            # did). Nothing here can be read: an empty table, not hundreds of specks.
            return Detection(w, h, False, face=own)
        grow = min(config.work_tile_px / first, 3.0)
        scale *= grow
        view = _View.of(image, scale).against(model, view.spread)
        seen_length *= grow
        u = unlit(view.lab, view.light)
    seg = _segment(view, u, face, config, known.scaled(scale) if known else None, seen_length)
    if seg.occluded:
        return Detection(w, h, True, face=own)
    found_tiles = _boxes_read(image, view, seg, scale, config, w, h)
    length = seg.length
    if known is None and seg.measured < 3 and config.size_check > 0 \
            and abs(seg.length / seen_length - 1) > config.size_check \
            and _surely(found_tiles) < max(1, len(found_tiles.tiles)):
        # The tile length rests on a tile or two lying alone (a double and its neighbour, or a
        # tile and its shadow, may pass for one), and not every tile read surely: the length the
        # face colour was found with is tried too, and the reading with more tiles read surely
        # stands.
        again = _read_at(image, view, u, face, config, TileSize(seen_length), seen_length, scale)
        if again is not None and _surely(again) > _surely(found_tiles):
            found_tiles, length = again, seen_length
    if known is None and prior is None and config.pip_length > 0 \
            and _surely(found_tiles) < len(found_tiles.tiles):
        # The outlines the length was measured on take in the tiles' side walls and shadows;
        # the pips of the tiles read surely do not: where they show a length more than
        # pip_length off, and not every tile read surely, the frame is read again at the length
        # they show, and stands when it reads more tiles surely and leaves none more unsure.
        # Not with a prior: the frames before settle the length (read again at another, a
        # rendered hand's frames lost three plays).
        samples = [(x * scale, y * scale, n * scale) for x, y, n in pip_lengths(image, found_tiles.tiles, config)]
        if len(samples) >= 3:
            field = TileSize.fit(samples, config.size_tiles, config.size_margin, float(max(view.image.shape[:2])))
            if abs(field.length / length - 1) > config.pip_length:
                again = _read_at(image, view, u, face, config, field, seen_length, scale)
                if again is not None and _better(again, found_tiles):
                    found_tiles = again
    return dataclasses.replace(found_tiles, face=own)


def _read_at(image: np.ndarray, view: _View, u: np.ndarray, face: Colour, config: VisionConfig, size: TileSize,
             seen_length: float, scale: float) -> Detection | None:
    """The frame segmented and read again at the tile length ``size`` (work pixels); None when
    that segmentation finds an arm over the table."""
    other = _segment(view, u, face, config, size, seen_length)
    if other.occluded:
        return None
    h, w = image.shape[:2]
    return _boxes_read(image, view, other, scale, config, w, h)


def _surely(found: Detection) -> int:
    """How many tiles a detection reads surely."""
    return sum(1 for t in found.tiles if not t.uncertain)


def _boxes_read(image: np.ndarray, view: _View, seg: _Segmented, scale: float, config: VisionConfig,
                w: int, h: int) -> Detection:
    """The tiles of one segmentation (``seg``, on ``view`` at ``scale``), their rectangles
    completed, aligned and refined, and read from the full-resolution frame."""
    work = view.image
    boxes = seg.boxes
    extra = by_shape(view.loose, boxes, seg.length, config)  # lone tiles, in no run
    abutting: list[tuple[list[int], list[Box]]] = []
    if config.run_reach > 0:
        full, aligned, ends = align_runs(image, [b.scaled(1 / scale) for b in boxes], config)
        boxes = [b.scaled(scale) for b in full]
        abutting = [(run, [refine(work, b.scaled(scale), config, config.run_refine) for b in other])
                    for run, other in ends]
    else:
        aligned = set()
    shaped = len(boxes)  # the boxes from here on were found by shape alone
    boxes = [refine(work, b, config, config.run_refine if i in aligned else 0.3 if b.packed else 0.08)
             for i, b in enumerate(boxes + extra)]
    spinners = frozenset(i for i in aligned if _crossed_by_a_line(seg.mask, boxes[i]))
    crossed = frozenset(i for i in aligned if i not in spinners and _across_a_double(seg.mask, boxes[i]))
    along = frozenset(i for i, b in enumerate(boxes) if _runs_on(seg.mask, b))
    return read_boxes(image, boxes, scale, config, w, h, seg.table, crossed, shaped, along, abutting, spinners)


@dataclasses.dataclass(frozen=True)
class _Segmented:
    """Stages 3 and 4 at one scale: the tile rectangles and whether an arm is over the table."""

    boxes: list[Box]
    occluded: bool
    table: np.ndarray | None = None  # the table's outline (1 inside), None when it cannot be told
    mask: np.ndarray | None = None  # the tiles' faces (1), None when occluded
    length: float = 0.0  # the tile length the rectangles were fitted to
    measured: int = 0  # how many lone tiles that length rests on (TileSize.measured)


def _segment(view: _View, u: np.ndarray, face: Colour, config: VisionConfig, known: TileSize | None,
             seen_length: float) -> _Segmented:
    """The face mask, one rectangle per tile and the occlusion test, on ``view``."""
    lab, light, table, loose = view.lab, view.light, view.table, view.loose
    face_distance = face.distance(u)
    free = 1 - loose
    tcol = table_colour(lab, light, table, free, u)
    length = known.length if known else seen_length
    mask = (face_mask(lab, light, face, tcol, config, u, face_distance) | pip_rims(u, face, tcol, length, config)) \
        & loose
    mask |= pip_spots(mask, loose, u, face, length, config)
    mask = _fill_holes(mask, length * length / config.aspect / 2)
    k = max(3, round(config.open_share * length)) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    mask |= glare_gaps(mask, view.fg, u, face, tcol, length / config.aspect, config)
    labels = label(mask)
    size = known or TileSize(length)
    if known is None:
        size = estimate_tile_size(mask, config, near=length, labels=labels) or size
        length = size.length
    boxes, big = split_blobs(mask, size, config, face_distance, labels)
    outlines = table_outlines(free, config.table_piece)
    largest, pieces = outlines if outlines is not None else (None, None)
    arm = occluded(lab, table, loose, boxes, big, length, config, largest, pieces)
    return _Segmented(boxes, arm, pieces, mask, length, size.measured)


def _face_at(mask: np.ndarray, box: Box, along: float, across: float) -> bool:
    """Whether the face mask is set at a point placed on ``box``: ``along`` its lengths from its
    centre, along its axis, and ``across`` its widths, at right angles (off the frame: no)."""
    a = math.radians(box.angle)
    x = box.cx + math.cos(a) * along * box.length - math.sin(a) * across * box.width
    y = box.cy + math.sin(a) * along * box.length + math.cos(a) * across * box.width
    i, j = round(y), round(x)
    return 0 <= i < mask.shape[0] and 0 <= j < mask.shape[1] and bool(mask[i, j])


def _across_a_double(mask: np.ndarray | None, box: Box) -> bool:
    """Whether faces reach past both long sides of a box in a run, beside one of its halves:
    a double lies across the line there that the packing ran through, and the box straddles
    the double and its neighbour (it reads a sure tile that is not there)."""
    if mask is None:
        return False
    return any(_face_at(mask, box, t, 0.75) and _face_at(mask, box, t, -0.75) for t in (-0.25, 0.25))


def _crossed_by_a_line(mask: np.ndarray | None, box: Box) -> bool:
    """Whether a line of faces passes across the middle of a box, reaching on a tile's length
    past each of its long sides: the box is the spinner, a double laid across the line, and
    the run it lies in is a branch leaving it, end to end with it (a box of a line packed
    through a double across it finds that double's faces only half a width past its sides)."""
    if mask is None:
        return False
    return sum(_face_at(mask, box, t, s) for t in (-0.1, 0.1) for s in (-1.25, -0.75, 0.75, 1.25)) >= 7


def _runs_on(mask: np.ndarray | None, box: Box) -> bool:
    """Whether faces run on past both ends of a box, and the table lies beside its long sides:
    the box lies along a line of tiles end to end, and may straddle the seam between two of
    them (a line of play's doubles lie across it; the spinner, across it too, has the line
    beside its long sides). In a legal line touching halves match, so a straddling box reads a
    double, sure of itself: a double read on such a box is uncertain."""
    if mask is None:
        return False
    # Past each end, into the half beyond a seam: face on most of three lines along the box.
    past = (0.6, 0.75, 0.9)
    if not all(sum(_face_at(mask, box, sign * t, s) for t in past for s in (-0.25, 0.0, 0.25)) >= 7
               for sign in (-1, 1)):
        return False
    # Beside it, the table: a line of tiles end to end is one tile wide (a mask spilt onto the
    # table round a lone tile runs on everywhere).
    return sum(_face_at(mask, box, t, s) for t in (-0.25, 0.25) for s in (-0.75, 0.75)) <= 1
