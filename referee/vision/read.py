"""Reading one tile: warp its face square-on, then weigh the evidence for a pip at each place a
pip can sit (a 3 x 3 grid on each half) and for the divider across the middle.

The evidence is contrast against the tile's own face colour, so dark pips on ivory, white pips
on black and coloured pips all read the same way. Whether a grid place holds a pip is decided
against the frame's pip contrast (see :func:`pip_contrast`), and a half whose places do not make
a real pip pattern, or whose weakest place is a close call, makes the tile uncertain."""

from __future__ import annotations

import dataclasses
import itertools

import cv2
import numpy as np

from referee.vision.config import VisionConfig

__all__ = ["Evidence", "gather", "decide", "PATTERNS"]

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
    divider's contrast, the face's noise and the divider's offset from the middle (cells)."""

    pips: np.ndarray
    divider: float
    noise: float
    offset: float


def rectify(image: np.ndarray, corners: np.ndarray, cell: int) -> np.ndarray:
    """The tile's face warped to (cell, 2 * cell): corners 0 -> 1 along the tile's length."""
    dst = np.array([[0, 0], [2 * cell, 0], [2 * cell, cell], [0, cell]], np.float32)
    h = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    return cv2.warpPerspective(image, h, (2 * cell, cell), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def gather(face: np.ndarray, config: VisionConfig) -> Evidence:
    """The evidence in one rectified face (BGR uint8, (cell, 2 * cell))."""
    c = config.cell_px
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2Lab).astype(np.float32)
    inner = lab[int(0.12 * c):int(0.88 * c), int(0.06 * c):int(1.94 * c)].reshape(-1, 3)
    colour = np.median(inner, axis=0)
    d = lab - colour
    ink = np.sqrt(d[..., 0] ** 2 + _HUE ** 2 * (d[..., 1] ** 2 + d[..., 2] ** 2))
    sigma = 0.07 * c
    # Centre minus surround: a pip stands out from the face around it; a shaded rim does not.
    smooth = cv2.GaussianBlur(ink, (0, 0), sigma) - cv2.GaussianBlur(ink, (0, 0), 3 * sigma)
    # Divider: a line across the middle; its column profile peaks near x = c.
    rows = smooth[int(0.2 * c):int(0.8 * c)]
    profile = rows.mean(axis=0)
    lo, hi = int(0.82 * c), int(1.18 * c) + 1
    peak = lo + int(np.argmax(profile[lo:hi]))
    base = float(np.median(profile[int(0.3 * c):int(1.7 * c)]))
    divider = float(profile[peak]) - base
    offset = (peak - c) / c
    reach = max(1, round(0.07 * c))
    pips = np.zeros((2, 9), np.float32)
    for half in range(2):
        x0 = half * c
        for i, (col, row) in enumerate(_CELLS):
            x, y = x0 + _GRID[col] * c, _GRID[row] * c
            xi, yi = round(x), round(y)
            win = smooth[max(0, yi - reach):yi + reach + 1, max(0, xi - reach):xi + reach + 1]
            pips[half, i] = float(win.max())
    flat = smooth[int(0.12 * c):int(0.88 * c), int(0.06 * c):int(1.94 * c)]
    noise = float(np.median(np.abs(flat - np.median(flat)))) * 1.4826
    return Evidence(pips, divider, noise, offset)


def pip_contrast(evidence: list[Evidence]) -> float | None:
    """The contrast of a pip in this frame: most tiles show a pip, so the strongest grid place of
    a typical tile is one (a frame's tiles share one set and one light). None when the tiles'
    strongest places do not stand out from the faces' own noise (only backs, or no tiles)."""
    if not evidence:
        return None
    strongest = np.array([float(e.pips.max()) for e in evidence])
    noise = float(np.median([e.noise for e in evidence]))
    value = float(np.percentile(strongest, 75))
    return value if value > max(3.0 * noise, 6.0) else None


@dataclasses.dataclass(frozen=True)
class Reading:
    pips: tuple[int, int] | None  # None: face down
    confidence: float


def _half(values: np.ndarray, cut: float) -> tuple[int, float]:
    on = frozenset(cell for cell, v in zip(_CELLS, values, strict=True) if v > cut)
    margins = np.abs(values - cut) / cut
    if on in PATTERNS:
        return PATTERNS[on], float(min(1.0, margins.min()))
    # Not a real pattern: the nearest real one by the evidence it overrides, and no confidence.
    best, best_cost = 0, np.inf
    for pattern, n in PATTERNS.items():
        cost = sum(abs(v - cut) for cell, v in zip(_CELLS, values, strict=True) if (cell in pattern) != (cell in on))
        if cost < best_cost:
            best, best_cost = n, cost
    return best, 0.0


def decide(evidence: Evidence, contrast: float | None, config: VisionConfig) -> Reading:
    """Pips on each half (or face down), with a confidence in 0..1."""
    if contrast is None:
        return Reading(None, 0.0)
    cut = config.pip_share * contrast
    a, ca = _half(evidence.pips[0], cut)
    b, cb = _half(evidence.pips[1], cut)
    divider = evidence.divider / (config.divider_share * contrast)
    if a == 0 and b == 0 and divider < 1.0:
        return Reading(None, float(min(1.0, min(ca, cb), 1.0 - divider)))
    if a > config.max_pips or b > config.max_pips:
        return Reading((a, b), 0.0)
    return Reading((a, b), float(min(ca, cb)))
