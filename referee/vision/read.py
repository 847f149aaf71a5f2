"""Reading one tile: warp its face square-on, then weigh the evidence for a pip at each place a
pip can sit (a 3 x 3 grid on each half) and for the divider across the middle.

The evidence is contrast against the tile's own face colour, so dark pips on ivory, white pips
on black and coloured pips all read the same way. Whether a grid place holds a pip is decided
against the frame's pip contrast (see :func:`pip_contrast`), and a half whose places do not make
a real pip pattern, or whose weakest place is a close call, makes the tile uncertain."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Sequence

import cv2
import numpy as np

from referee.vision.config import VisionConfig
from referee.vision.medians import channel_medians_of, row_medians
from referee.vision.segment import HUE
from referee.vision.split import Box

__all__ = ["Evidence", "gather", "gather_many", "halves_apart", "pip_width", "decide", "relook", "strong_peaks",
           "PATTERNS"]

_GRID = (0.24, 0.5, 0.76)
_HUE = 1.5


def _d4(cells: frozenset[tuple[int, int]]) -> set[frozenset[tuple[int, int]]]:
    """A pattern under the 8 symmetries of the square (sets differ in which diagonal a 2 takes,
    and whether a 6 runs along or across)."""
    out = set()
    cur = cells
    for _ in range(4):
        cur = frozenset((2 - r, c) for c, r in cur)  # rotate 90 degrees
        out.add(cur)
        out.add(frozenset((2 - c, r) for c, r in cur))
    return out


_BASE: dict[int, frozenset[tuple[int, int]]] = {
    0: frozenset(), 1: frozenset({(1, 1)}), 2: frozenset({(0, 0), (2, 2)}),
    3: frozenset({(0, 0), (1, 1), (2, 2)}), 4: frozenset({(0, 0), (2, 0), (0, 2), (2, 2)}),
    5: frozenset({(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)}),
    6: frozenset({(0, 0), (1, 0), (2, 0), (0, 2), (1, 2), (2, 2)}),
    7: frozenset({(0, 0), (1, 0), (2, 0), (1, 1), (0, 2), (1, 2), (2, 2)}),
    8: frozenset(itertools.product(range(3), range(3))) - {(1, 1)},
    9: frozenset(itertools.product(range(3), range(3))),
}
#: Every pip pattern a half can show, as (column, row) grid cells, with its number.
PATTERNS: dict[frozenset[tuple[int, int]], int] = {p: n for n, base in _BASE.items() for p in _d4(base)}
_CELLS = [(c, r) for r in range(3) for c in range(3)]


@dataclasses.dataclass(frozen=True)
class Evidence:
    """What one rectified tile shows: pip contrast at each grid place of each half (2, 9), the
    divider's contrast and the face's noise."""

    pips: np.ndarray
    divider: float
    noise: float
    peaks: np.ndarray  # (k, 3): x / cell, y / cell and contrast of every local peak on the face
    contrast_map: np.ndarray  # the centre-minus-surround map the grid is sampled from, (cell, 2 cell)
    line: float = 0.0  # the divider as a thin line: its ink over the face's, in the face's noise


def rectify(image: np.ndarray, corners: np.ndarray, cell: int) -> np.ndarray:
    """The tile's face warped to (cell, 2 * cell): corners 0 -> 1 along the tile's length."""
    dst = np.array([[0, 0], [2 * cell, 0], [2 * cell, cell], [0, cell]], np.float32)
    h = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    return cv2.warpPerspective(image, h, (2 * cell, cell), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


@functools.lru_cache(maxsize=8)
def _layout(c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For a rectified face of (c, 2c): the rows and columns of the 18 grid places (half by
    half), the structuring element a peak must top, and the square a place's window spans."""
    reach = max(1, round(0.07 * c))
    places = [(round(_GRID[row] * c), round(half * c + _GRID[col] * c)) for half in range(2) for col, row in _CELLS]
    rows, cols = (np.array(v, np.intp) for v in zip(*places, strict=True))
    k = max(3, round(0.18 * c)) | 1
    return rows, cols, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)), np.ones((2 * reach + 1,) * 2, np.uint8)


def gather(face: np.ndarray, config: VisionConfig) -> Evidence:
    """The evidence in one rectified face (BGR uint8, (cell, 2 * cell))."""
    return gather_many([face], config)[0]


def gather_many(faces: Sequence[np.ndarray], config: VisionConfig) -> list[Evidence]:
    """The evidence in each of several rectified faces (BGR uint8, (cell, 2 * cell)), worked out
    together: what :func:`gather` finds in each, at a fraction of the cost per face."""
    c = config.cell_px
    n = len(faces)
    if n == 0:
        return []
    lab8 = cv2.cvtColor(np.concatenate(faces, axis=0), cv2.COLOR_BGR2Lab).reshape(n, c, 2 * c, 3)
    lab = lab8.astype(np.float32)
    r0, r1, c0, c1 = _inner(c)
    colour = channel_medians_of(lab8[:, r0:r1, c0:c1].reshape(n, -1, 3))
    ink = _ink(lab, colour[:, None, None, :])
    if (k := _glare_disc(config)) >= 3:
        # What a disc wider than a pip fits into is no pip: a streak of glare, shading.
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        for i in range(n):
            ink[i] -= cv2.morphologyEx(ink[i], cv2.MORPH_OPEN, disc)
    sigma = 0.07 * c
    place_rows, place_cols, round_k, square_k = _layout(c)
    smooth = np.empty_like(ink)
    contrast_map = np.empty_like(ink)
    top = np.empty_like(ink)
    for i in range(n):
        # Centre minus surround: a pip stands out from the face around it; a shaded rim does not.
        smooth[i] = cv2.GaussianBlur(ink[i], (0, 0), sigma) - cv2.GaussianBlur(ink[i], (0, 0), 3 * sigma)
        # The strongest evidence near each grid place: the map's maximum over a small square there.
        contrast_map[i] = cv2.dilate(smooth[i], square_k)
        top[i] = cv2.dilate(smooth[i], round_k)
    # Divider: a line across the middle; its column profile peaks near x = c.
    rows = slice(int(0.2 * c), int(0.8 * c))
    profile = smooth[:, rows].mean(axis=1)
    lo, hi = int(0.82 * c), int(1.18 * c) + 1
    peak = lo + np.argmax(profile[:, lo:hi], axis=1)
    base = row_medians(profile[:, int(0.3 * c):int(1.7 * c)])
    divider = profile[np.arange(n), peak].astype(np.float64) - base.astype(np.float64)
    line = _line(ink[:, rows].mean(axis=1), lo, hi, c)
    pips = contrast_map[:, place_rows, place_cols].reshape(n, 2, 9)
    flat = smooth[:, r0:r1, c0:c1].reshape(n, -1)
    noise = row_medians(np.abs(flat - row_medians(flat)[:, None])).astype(np.float64) * 1.4826
    # Every local peak, wherever it is: pips counted as blobs, whatever the layout. The floor is
    # low (the face's noise; faint coloured pips) since each half judges its peaks against its own
    # strongest, and the border strip is thin (pips sit close to the ends when the rectangle is off).
    floor = np.maximum(noise, 1.0).astype(np.float32)
    fs, ys, xs = np.nonzero((smooth >= top) & (smooth > floor[:, None, None]))
    edge = 0.05 * c
    keep = (xs > edge) & (xs < 2 * c - edge) & (ys > edge) & (ys < c - edge)
    keep &= np.abs(xs - c) > 0.1 * c  # the divider and the pin on it (the rectangle is on the tile)
    fs, ys, xs = fs[keep], ys[keep], xs[keep]
    peaks = np.stack([xs / c, ys / c, smooth[fs, ys, xs]], axis=1).astype(np.float32)
    cuts = np.searchsorted(fs, np.arange(n + 1))
    return [Evidence(pips[i], float(divider[i]), float(noise[i]), peaks[cuts[i]:cuts[i + 1]], contrast_map[i],
                     float(line[i])) for i in range(n)]


def _line(profile: np.ndarray, lo: int, hi: int, c: int) -> np.ndarray:
    """The divider as a thin line across the middle of each face, how far it stands out: the
    column ``profile`` of the raw ink over the middle of the face's width ((n, 2 c), as the
    divider's own is taken from the centre-minus-surround map), its peak in columns ``lo`` to
    ``hi`` above the median of the columns of both halves, in their robust spread (at least
    half a unit: a rendered face may be flawless). The centre-minus-surround map the pips are
    read on is tuned to a pip's width, and blurs a thin groove (a double blank's only mark)
    into its surround."""
    peak = profile[:, lo:hi].max(axis=1)
    away = np.concatenate([profile[:, int(0.3 * c):int(0.8 * c)], profile[:, int(1.2 * c):int(1.7 * c)]], axis=1)
    base = row_medians(away)
    spread = row_medians(np.abs(away - base[:, None])) * 1.4826
    return (peak - base) / np.maximum(spread, 0.5)


def _ink(lab: np.ndarray, colour: np.ndarray, hue: float = _HUE) -> np.ndarray:
    """How far Lab pixels (float32) lie from a face's colour, hue weighted: the pips, the divider."""
    d = lab - colour
    return np.sqrt(d[..., 0] ** 2 + hue ** 2 * (d[..., 1] ** 2 + d[..., 2] ** 2))


def _inner(c: int) -> tuple[int, int, int, int]:
    """The rows and columns (from, to) of a rectified face of (c, 2c) inside its rim."""
    return int(0.12 * c), int(0.88 * c), int(0.06 * c), int(1.94 * c)


def _face_ink(face: np.ndarray, c: int) -> np.ndarray:
    """:func:`_ink` of one rectified face (BGR uint8, (c, 2c)), against its own colour (as
    :func:`gather_many` takes it: the median inside its rim)."""
    lab8 = cv2.cvtColor(face, cv2.COLOR_BGR2Lab)
    r0, r1, c0, c1 = _inner(c)
    colour = channel_medians_of(lab8[r0:r1, c0:c1].reshape(1, -1, 3))
    return _ink(lab8.astype(np.float32), colour[0])


def halves_apart(face: np.ndarray) -> float:
    """How far apart in colour the two halves of a rectified face (BGR uint8, (c, 2c)) lie: the
    Lab distance between their medians inside the rim and off the divider, hue weighted as the
    table's is (``segment.HUE``). One tile's halves are of one material; a box half off its
    tile, or across two backs of different tints, holds two."""
    c = face.shape[0]
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2Lab)
    rows = slice(round(0.19 * c), round(0.81 * c))
    first, second = (channel_medians_of(lab[rows, round(a * c):round(b * c)].reshape(1, -1, 3))[0]
                     for a, b in ((0.125, 0.875), (1.125, 1.875)))
    return float(_ink(np.asarray(first, np.float64), np.asarray(second, np.float64), HUE))


def _glare_disc(config: VisionConfig) -> int:
    """The width in pixels (odd) of the disc that takes glare out of a face's ink (0: none)."""
    if config.glare_disc <= 0 or config.pip_width <= 0:
        return 0
    return max(3, round(config.glare_disc * config.pip_width * config.cell_px)) | 1


def pip_width(faces: Sequence[np.ndarray], evidence: Sequence[Evidence], config: VisionConfig) -> float | None:
    """The pips' width (at half their height) as a share of the tile's width: the median over
    the strong peaks (at least half the face's strongest) of rectified ``faces`` read surely,
    each with its ``evidence`` (gathered without a glare disc). The blob round a peak above half
    its height gives its width. None from fewer than ``pip_width_least`` pips."""
    c = config.cell_px
    widths: list[float] = []
    for face, found in zip(faces, evidence, strict=True):
        if not len(found.peaks):
            continue
        ink = _face_ink(face, c)
        strongest = float(found.peaks[:, 2].max())
        for x, y, value in found.peaks:
            if value < 0.5 * strongest:
                continue
            col, row = round(float(x) * c), round(float(y) * c)
            top = float(ink[max(0, row - 1):row + 2, max(0, col - 1):col + 2].max())
            _, labels, stats, _ = cv2.connectedComponentsWithStats((ink > 0.5 * top).view(np.uint8), connectivity=8)
            blob = labels[min(row, c - 1), min(col, 2 * c - 1)]
            # A blob over a fifth of a half's area round the peak is shading, not a pip.
            if blob and stats[blob, cv2.CC_STAT_AREA] <= 0.2 * c * c:
                widths.append(2.0 * math.sqrt(float(stats[blob, cv2.CC_STAT_AREA]) / math.pi) / c)
    return float(np.median(widths)) if len(widths) >= config.pip_width_least else None


def pip_contrast(evidence: list[Evidence], backs_below: float = 0.0, faces: float | None = None) -> float | None:
    """The contrast of a pip in this frame: most tiles show a pip, so the strongest grid place of
    a typical tile is one (a frame's tiles share one set and one light). None when the tiles'
    strongest places do not stand out from the faces' own noise, or stand below ``backs_below``
    of ``faces``, the pips of the tiles showing some (:func:`faces_contrast`): only backs, no
    tiles, or backs outnumbering faces, whose grain then passes for the frame's pips."""
    if not evidence:
        return None
    strongest = np.array([float(e.pips.max()) for e in evidence])
    value = float(np.percentile(strongest, 75))
    if value <= _floor(evidence):
        return None
    if faces is not None and value < backs_below * faces:
        return None
    return value


def _floor(evidence: list[Evidence]) -> float:
    return max(3.0 * float(np.median([e.noise for e in evidence])), 6.0)


def faces_contrast(evidence: list[Evidence]) -> float | None:
    """The pip contrast when backs outnumber faces (a boneyard of 14 beside the first tiles of a
    line), so the typical tile is a back: the median strongest peak of the tiles with at least
    two peaks standing out from the faces' noise (one speck is no face). None when none has."""
    if not evidence:
        return None
    floor = _floor(evidence)
    showing = [float(e.peaks[:, 2].max()) for e in evidence
               if len(e.peaks) and int(np.count_nonzero(e.peaks[:, 2] > floor)) >= 2]
    return float(np.median(showing)) if showing else None


@dataclasses.dataclass(frozen=True)
class Reading:
    pips: tuple[int, int] | None  # None: face down
    confidence: float
    halves: tuple[float, float] = (0.0, 0.0)  # how sure each half's number is, alone


_MASKS = np.array([[cell in pattern for cell in _CELLS] for pattern in PATTERNS], bool)
_NUMBERS = np.array(list(PATTERNS.values()))


@functools.lru_cache(maxsize=16)
def _patterns(most: int) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The patterns of numbers up to ``most``: their masks, numbers, and for each number which
    patterns show another."""
    allowed = most >= _NUMBERS
    numbers = _NUMBERS[allowed]
    return _MASKS[allowed], numbers, [n != numbers for n in range(10)]


def _unit(x: float) -> float:
    """``x`` clipped to 0..1."""
    return max(0.0, min(1.0, x))


def _half(values: np.ndarray, cut: float, most: int = 9) -> tuple[int, float]:
    """The number one half shows and how sure: every real pattern of the set (numbers up to
    ``most``) costs the evidence it overrides (a place it needs below the cut, a place it leaves
    empty above it); the cheapest wins, and the confidence is how much dearer the cheapest other
    number is, in cuts."""
    over = np.maximum(values - cut, 0.0)
    under = np.maximum(cut - values, 0.0)
    masks, numbers, others = _patterns(most)
    cost = np.where(masks, under[None, :], over[None, :]).sum(axis=1)
    best = int(np.argmin(cost))
    n = int(numbers[best])
    other = cost[others[n]]
    margin = (float(other.min()) - float(cost[best])) / cut if len(other) else 1.0
    return n, _unit(margin)


def _count(side: np.ndarray, cut: float) -> tuple[int, float]:
    """Pips on one half: the peaks above the cut; the confidence is how clearly the weakest
    counted peak and the strongest uncounted one fall either side of it."""
    values = side[:, 2] if len(side) else np.zeros(0, np.float32)
    above = values > cut
    strong, weak = values[above], values[~above]
    margin = 1.0
    if len(strong):
        margin = min(margin, float(strong.min()) / cut - 1.0)
    if len(weak):
        margin = min(margin, 1.0 - float(weak.max()) / cut)
    return len(strong), _unit(2.0 * margin)


_COL = np.array([_GRID[col] for col, _ in _CELLS])
_ROW = np.array([_GRID[row] for _, row in _CELLS])


@functools.lru_cache(maxsize=16)
def _grid_places(c: int, span: float) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the 18 grid places, (moves, 2, 9), on a (c, 2c) map, for each move of
    the grid (stretched by 0.9, 1 and 1.1, shifted by up to ``span`` cells each way)."""
    steps = [float(v) for v in np.linspace(-span, span, 5)] if span > 0 else [0.0]
    rows, cols = [], []
    for stretch in (0.9, 1.0, 1.1):
        for dx in steps:
            for dy in steps:
                xs = (np.array([[0.5], [1.5]]) + (_COL[None, :] - 0.5) * stretch + dx) * c
                ys = np.broadcast_to((0.5 + (_ROW - 0.5) * stretch + dy) * c, xs.shape)
                cols.append(np.clip(np.rint(xs).astype(int), 0, 2 * c - 1))
                rows.append(np.clip(np.rint(ys).astype(int), 0, c - 1))
    return np.stack(rows), np.stack(cols)


def _aligned(evidence: Evidence, cut: float, config: VisionConfig) -> np.ndarray:
    """The grid evidence at the alignment (small shifts and stretches of the grid) that puts the
    most pip evidence on the places: a rectangle a little off the face still reads."""
    yi, xi = _grid_places(evidence.contrast_map.shape[0], config.grid_search)
    grids = evidence.contrast_map[yi, xi].astype(np.float32)
    # Most evidence on the places: the grid sits on the pips (never shifted off them). The first
    # of near-equals wins.
    scores = np.maximum(grids, 0).reshape(len(grids), -1).sum(axis=1).tolist()
    best, best_score = 0, -math.inf
    for i, score in enumerate(scores):
        if score > best_score + 1e-6:
            best, best_score = i, score
    return grids[best]


def decide(evidence: Evidence, contrast: float | None, config: VisionConfig) -> Reading:
    """Pips on each half (or face down), with a confidence in 0..1.

    A tile shows pips when its strongest place beats ``pip_floor`` of the frame's pip contrast;
    each half's places are then judged against ``pip_share`` of that half's strongest pip (light,
    focus and a coloured set's pip colours differ), or against ``pip_floor`` of the frame's
    contrast when that pip is below ``half_floor`` of it (specks on a blank half); a half read
    blank so is only as sure as that pip lies below ``half_floor``. The grid is read at its best
    alignment; the count of peaks either side of the divider must agree, or the tile keeps only
    ``disagree_confidence`` of its confidence."""
    if contrast is None:
        return Reading(None, 0.0)
    floor = config.pip_floor * contrast
    strongest = float(evidence.peaks[:, 2].max()) if len(evidence.peaks) else 0.0
    # The divider shows when it stands out from the frame's pip contrast or, faint as it may be
    # (a groove on a black tile), from the face's own noise.
    divider = evidence.divider / min(config.divider_share * contrast, config.divider_snr * max(evidence.noise, 0.5))
    if config.divider_line > 0:
        divider = max(divider, evidence.line / config.divider_line)
    if strongest <= floor:
        if (faint := _faint(evidence, strongest, contrast, config)) is not None:
            return faint
        sure = min(1.0, 1.0 - strongest / floor)
        if divider < 1.0:  # no pips, no divider: face down
            return Reading(None, float(min(sure, 1.0 - divider)))
        blank = float(min(sure, divider - 1.0, 1.0))
        return Reading((0, 0), blank, (blank, blank))
    grid = _aligned(evidence, floor, config)
    readings = []
    for half, side in enumerate(_sides(evidence.peaks)):
        # Each half against its own strongest pip: coloured sets give every number its colour.
        cut = _cut(side, contrast, config)
        n, sure_n = _half(grid[half], cut, config.max_pips)
        count, _ = _count(side, cut)
        agree = count == n or (count < n and _count(side, config.count_slack * cut)[0] >= n)
        sure_n = sure_n if agree else sure_n * config.disagree_confidence
        top = float(side[:, 2].max()) if len(side) else 0.0
        if n == 0 and top <= config.half_floor * contrast:
            # A blank judged by the frame's contrast (see _cut) is only as sure as its strongest
            # peak lies below half_floor of it: faint pips (a coloured set's orange six beside a
            # red three) stand there, and a blank read surely over them is a tile nobody holds.
            sure_n = min(sure_n, _unit(1.0 - top / (config.half_floor * contrast)))
        readings.append((n, sure_n))
    (a, ca), (b, cb) = readings
    sure = min(1.0, strongest / floor - 1.0)
    if sure < 1.0 and (faint := _faint(evidence, strongest, contrast, config)) is not None \
            and faint.pips == (a, b):
        # Faint for the frame but clear in its pattern (a coloured set's orange double six among
        # dark numbers): as sure as the pattern, as a fainter face read by it alone would be.
        sure = max(sure, faint.confidence)
    if a > config.max_pips or b > config.max_pips:
        return Reading((min(a, config.max_pips), min(b, config.max_pips)), 0.0)
    return Reading((a, b), float(min(ca, cb, sure)), (float(min(ca, sure)), float(min(cb, sure))))


def _faint(evidence: Evidence, strongest: float, contrast: float, config: VisionConfig) -> Reading | None:
    """A face whose pips are all faint (a coloured set's pale yellow on ivory, both halves), read
    from its pattern: its strongest peak above ``faint_floor`` of the frame's contrast, and the
    peaks above ``pip_share`` of it, at least ``faint_least`` in all, lying on the places of a
    number on both halves. How sure: how clearly the pattern stands (a back's grain makes none).
    None otherwise (``faint_floor`` 0 turns this off)."""
    if config.faint_floor <= 0 or strongest <= config.faint_floor * contrast:
        return None
    cut = config.pip_share * strongest
    grid = _aligned(evidence, cut, config)
    readings = []
    for half, side in enumerate(_sides(evidence.peaks)):
        n, sure_n = _half(grid[half], cut, config.max_pips)
        count, sure_count = _count(side, cut)
        if count != n:
            return None
        readings.append((n, min(sure_n, sure_count)))
    (a, ca), (b, cb) = readings
    if a + b < config.faint_least or a > config.max_pips or b > config.max_pips:
        return None
    return Reading((a, b), float(min(ca, cb)), (float(ca), float(cb)))


def _sides(peaks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A face's peaks on half 0 and on half 1 (either side of the divider, x = 1 cell)."""
    return peaks[peaks[:, 0] < 1.0], peaks[peaks[:, 0] >= 1.0]


def strong_peaks(evidence: Evidence, contrast: float, config: VisionConfig) -> tuple[np.ndarray, np.ndarray]:
    """Each half's peaks (rows of x / cell, y / cell, contrast) above the cut :func:`decide`
    judges that half by: its pips."""
    first, second = _sides(evidence.peaks)
    return first[first[:, 2] > _cut(first, contrast, config)], second[second[:, 2] > _cut(second, contrast, config)]


def _cut(side: np.ndarray, contrast: float, config: VisionConfig) -> float:
    """The cut one half's peaks (``side``) are judged by: ``pip_share`` of its own strongest
    when that beats ``half_floor`` of the frame's pip ``contrast``, else ``pip_floor`` of it."""
    top = float(side[:, 2].max()) if len(side) else 0.0
    return config.pip_share * top if top > config.half_floor * contrast else config.pip_floor * contrast


def _pips_round(image: np.ndarray, box: Box, contrast: float, config: VisionConfig) -> int:
    """The strong pips in ``box`` widened to ``relook_room`` of its width."""
    widened = dataclasses.replace(box, width=box.width * config.relook_room)
    evidence = gather(rectify(image, widened.corners(), config.cell_px), config)
    return sum(len(side) for side in strong_peaks(evidence, contrast, config))


def _moves(config: VisionConfig, wide: bool, fine: bool = False) -> list[tuple[float, float, float]]:
    """The moves of a second look (along, across, stretch): the near one, along and across by
    up to ``relook_shift`` of the sides; the wide one (see ``wide_shift``). ``fine``: in
    ``relook_fine_steps`` each way, not ``relook_steps``."""
    count = 2 * (config.relook_fine_steps if fine else config.relook_steps) + 1
    if not wide:
        steps = np.linspace(-config.relook_shift, config.relook_shift, count)
        return [(float(du), float(dv), 1.0) for du in steps for dv in steps if du != 0 or dv != 0]
    along = np.linspace(-config.wide_shift, config.wide_shift, count)
    across = (-config.wide_across, 0.0, config.wide_across) if config.wide_across > 0 else (0.0,)
    stretches = (1.0, config.wide_stretch) if config.wide_stretch > 1 else (1.0,)
    return [(float(du), dv, st) for du, dv, st in itertools.product(along, across, stretches)
            if du != 0 or dv != 0 or st != 1.0]


def doubted_blank(pips: tuple[int, int], first: Reading, bar: float) -> bool:
    """Whether ``pips`` show a blank half where the ``first`` reading saw pips, or doubted its
    blank (its half's confidence under ``bar``). Such a blank is not made sure by looks about
    the tile: moved, a faint half's pips sink into the face's noise, and it reads a sure blank."""
    return first.pips is not None and any(pips[k] == 0 and (first.pips[k] != 0 or first.halves[k] < bar)
                                          for k in (0, 1))


def relook(image: np.ndarray, box: Box, first: Reading, contrast: float, config: VisionConfig,
           support: int | None = None, doubles: bool = True, blank: bool = True, wide: bool = False) -> Reading:
    """A second look at a tile read unsure at ``box`` (full-resolution pixels): read again
    with the box moved along and across by up to ``relook_shift`` of its sides (``wide``: the
    wider moves of ``wide_shift``, ``wide_across`` and ``wide_stretch``), in
    ``relook_fine_steps`` for a tile shorter than ``wide_below_px``. The tile is read when at
    least ``support`` (default ``relook_support``) of those readings are sure and every sure one
    agrees, that reading is not a double unless ``doubles``, nor the double blank unless
    ``blank``, gives no blank half where the first reading saw pips or doubted its blank, and
    it has as many pips as the box widened to ``relook_room`` shows; the confidence is the least
    of theirs. Otherwise the first, unsure reading stands."""
    need = config.relook_support if support is None else support
    a = math.radians(box.angle)
    ux, uy, vx, vy = math.cos(a), math.sin(a), -math.sin(a), math.cos(a)
    sure: list[Reading] = []
    fine = box.length < config.wide_below_px
    moved = [dataclasses.replace(box, cx=box.cx + ux * du * box.length + vx * dv * box.width,
                                 cy=box.cy + uy * du * box.length + vy * dv * box.width, length=box.length * stretch)
             for du, dv, stretch in _moves(config, wide, fine)]
    faces = [rectify(image, m.corners(), config.cell_px) for m in moved]
    for evidence in gather_many(faces, config):
        reading = decide(evidence, contrast, config)
        if reading.pips is not None and reading.confidence >= config.min_confidence:
            pips = reading.pips
            # Every sure reading must agree, and be no double or blank where none may be:
            # the first that is not settles it.
            if (sure and pips != sure[0].pips) or (not doubles and pips[0] == pips[1]) \
                    or (not blank and pips == (0, 0)):
                return first
            sure.append(reading)
    if len(sure) < max(need, 1):
        return first
    pips = sure[0].pips
    assert pips is not None  # sure readings are of faces
    if doubted_blank(pips, first, config.min_confidence):
        return first
    if config.relook_room > 1 and _pips_round(image, box, contrast, config) > pips[0] + pips[1]:
        return first
    return Reading(pips, min(r.confidence for r in sure),
                   (min(r.halves[0] for r in sure), min(r.halves[1] for r in sure)))
