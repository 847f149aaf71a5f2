"""Table tops and the floor beyond them: procedural photographic textures (BGR uint8).

Everything is built from low-resolution noise upsampled with ``cv2.resize`` plus vectorised
numpy, so a 2000x1200 table costs a few tens of milliseconds. Sizes are in pixels, scales in
pixels per millimetre of the surface, so wood planks, felt fibres and cloth weave come out at
their real sizes whatever the resolution; detail finer than about two pixels is faded out
rather than aliased.
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np

from referee.render.styles import TableKind

__all__ = ["floor_texture", "table_texture"]

F32 = np.float32


def _white(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Per-pixel noise of std 1 (uniform: much cheaper than normal and just as good here)."""
    u = rng.random((h, w), dtype=F32)
    return (u - F32(0.5)) * F32(math.sqrt(12.0))


def _noise(rng: np.random.Generator, h: int, w: int, cell_y: float, cell_x: float | None = None) -> np.ndarray:
    """Smooth noise of std about 1 with features ``cell`` pixels apart (float32, (h, w))."""
    cell_x = cell_y if cell_x is None else cell_x
    cell_x, cell_y = max(float(cell_x), 1.0), max(float(cell_y), 1.0)
    gh, gw = math.ceil(h / cell_y) + 4, math.ceil(w / cell_x) + 4
    grid = rng.standard_normal((gh, gw), dtype=F32)
    grid = cv2.GaussianBlur(grid, (0, 0), 0.8, borderType=cv2.BORDER_REFLECT)
    grid *= F32(1.0 / max(float(grid.std()), 1e-3))
    # Smooth (cubic) to a quarter cell, then a cheap linear warp to the output at a random offset.
    fy, fx = (4 if cell_y >= 8 else 1), (4 if cell_x >= 8 else 1)
    if fx > 1 or fy > 1:
        grid = cv2.resize(grid, (gw * fx, gh * fy), interpolation=cv2.INTER_CUBIC)
    m = np.array([[fx / cell_x, 0, fx * rng.uniform(1, 2)], [0, fy / cell_y, fy * rng.uniform(1, 2)]], np.float64)
    return cv2.warpAffine(grid, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REFLECT)


def _fbm(rng: np.random.Generator, h: int, w: int, cell: float, octaves: int, gain: float = 0.5) -> np.ndarray:
    out = np.zeros((h, w), F32)
    amp, total = 1.0, 0.0
    for _ in range(octaves):
        if cell < 1.5:
            break
        out = cv2.scaleAdd(_noise(rng, h, w, cell), amp, out)
        total += amp * amp
        amp *= gain
        cell /= 2.0
    return out / F32(math.sqrt(max(total, 1e-6)))


def _colourise(field: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """(H, W, 3) float32: a one-channel factor times a BGR colour."""
    return cv2.merge([field * F32(c) for c in colour])


def _colour_u8(field: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """(H, W, 3) uint8: a non-negative one-channel factor times a BGR colour, rounded and saturated."""
    field = cv2.max(field, 0.0)
    return cv2.merge([cv2.convertScaleAbs(field, alpha=float(c)) for c in colour])


def _two_tone(t: np.ndarray, tone: np.ndarray, a: np.ndarray, b: np.ndarray, u8: bool) -> np.ndarray:
    """Colour ``a`` where t = 0 and ``b`` where t = 1, times ``tone``: uint8 or float32 BGR."""
    tt = cv2.multiply(t, tone)
    chans = [cv2.addWeighted(tone, float(a[c]), tt, float(b[c] - a[c]), 0.0) for c in range(3)]
    if u8:
        return cv2.merge([cv2.convertScaleAbs(cv2.max(ch, 0.0)) for ch in chans])
    return cv2.merge(chans)


def _pick(palette: tuple[tuple[int, int, int], ...], rng: np.random.Generator) -> np.ndarray:
    """One of ``palette``, a little lighter or darker and very slightly off in hue."""
    base = np.array(palette[int(rng.integers(len(palette)))], F32)
    return base * F32(rng.uniform(0.9, 1.1)) + rng.normal(0.0, 2.0, 3).astype(F32)


def _to_u8(img: np.ndarray) -> np.ndarray:
    return cv2.convertScaleAbs(cv2.max(img, 0.0))


def _fade(period_px: float) -> float:
    """How much of a periodic detail ``period_px`` pixels long survives without aliasing."""
    return float(np.clip((period_px - 2.2) / 3.0, 0.0, 1.0))


# --- wood --------------------------------------------------------------------------------------

_WOODS = (  # earlywood, latewood (BGR): oak, walnut, cherry, pine, teak
    ((104, 150, 190), (58, 98, 140)),
    ((62, 88, 122), (34, 50, 76)),
    ((70, 110, 168), (40, 66, 112)),
    ((128, 178, 214), (74, 122, 170)),
    ((66, 112, 160), (36, 66, 104)),
)


def _wood(h: int, w: int, ppm: float, rng: np.random.Generator, *, vertical: bool = False,
          u8: bool = True) -> np.ndarray:
    """Planks along x, or along y if ``vertical``. The grain varies slowly along the planks, so it
    is computed at a coarser step along them and stretched."""
    if vertical:
        h, w = w, h
    light, dark = (np.array(c, F32) for c in _WOODS[int(rng.integers(len(_WOODS)))])
    shift = rng.normal(0.0, 6.0, 3).astype(F32)
    light, dark = light + shift, dark + shift * F32(0.6)
    step = max(1, int(ppm * 1.5))  # pixels per coarse column: about 0.7 mm or more
    sw = math.ceil(w / step) + 1
    xs_mm = (np.arange(sw, dtype=F32) * step + 0.5) / F32(ppm)
    grain = np.empty((h, sw), F32)
    tone = np.empty((h, sw), F32)
    edges = [-float(rng.uniform(0, 120))]
    while edges[-1] * ppm < h:
        edges.append(edges[-1] + float(rng.uniform(90, 150)))
    # Slow meander of the rings, stretched along the planks.
    warp_all = (0.8 * _noise(rng, h, sw, 25.0 * ppm, 300.0 * ppm / step) +
                0.3 * _noise(rng, h, sw, 5.0 * ppm, 120.0 * ppm / step))
    # Some rings are bold, some faint.
    contrast_all = np.clip(0.6 + 0.4 * _noise(rng, h, sw, 4.0 * ppm, 200.0 * ppm / step), 0.15, 1.0)
    joints_px: list[tuple[int, int, float]] = []
    for a0, a1 in itertools.pairwise(edges):
        y0, y1 = max(0, int(a0 * ppm)), min(h, math.ceil(a1 * ppm))
        if y1 <= y0:
            continue
        ys_mm = (np.arange(y0, y1, dtype=F32) + 0.5) / F32(ppm)
        # Butt joints along the plank: each piece is a new board.
        joints = [-float(rng.uniform(0, 1500))]
        while joints[-1] * ppm < w:
            joints.append(joints[-1] + float(rng.uniform(600, 2200)))
        joints_px += [(y0, y1, j * ppm) for j in joints[1:-1]]
        piece = np.searchsorted(np.array(joints[1:], F32), xs_mm)
        n = len(joints)
        spacing = np.maximum(rng.uniform(1.8, 5.0, n), 4.0 / ppm).astype(F32)[piece]
        pith = (rng.uniform(-70, 70, n) + (a0 + a1) / 2).astype(F32)[piece]
        depth = rng.uniform(20, 200, n).astype(F32)[piece]
        incline = (rng.uniform(0.01, 0.05, n) * rng.choice([-1, 1], n)).astype(F32)[piece]
        phase = rng.uniform(0, 1, n).astype(F32)[piece]
        bright = rng.normal(1.0, 0.07, n).astype(F32)[piece]
        z = depth + incline * (xs_mm - xs_mm[0])
        da = ys_mm[:, None] - pith[None, :]
        warp = warp_all[y0:y1]
        ring = np.sqrt(da * da + (z * z)[None, :]) / spacing[None, :] + phase[None, :] + warp
        # Knots: the rings bend around them and a dark core shows.
        core = np.zeros_like(ring)
        for _ in range(int(rng.poisson(0.2 + (a1 - a0) * w / ppm / 1_500_000.0))):
            kx, ky = rng.uniform(0, w / ppm), rng.uniform(a0 + 12, a1 - 12)
            sx, sy = rng.uniform(6, 14), rng.uniform(4, 8)
            ex, ey = (xs_mm - kx) / sx, (ys_mm - ky) / sy
            ring += F32(rng.uniform(2, 5)) * np.exp(-(ey / 3) ** 2)[:, None] * np.exp(-(ex / 3) ** 2)[None, :]
            core = np.maximum(core, np.exp(-ey * ey)[:, None] * np.exp(-ex * ex)[None, :])
        lines = 0.5 + 0.5 * np.cos(F32(2 * math.pi) * ring)
        lines *= lines * lines
        g = 0.25 + 0.65 * _fade(float(spacing.min() * ppm)) * lines * contrast_all[y0:y1] + 0.8 * core * core
        grain[y0:y1] = g
        # Seams: a dark gap at the plank's edges.
        d = np.minimum(ys_mm - a0, a1 - ys_mm) * ppm
        seam = 1.0 - 0.6 * np.exp(-((d / max(0.45 * ppm, 0.6)) ** 2))
        tone[y0:y1] = bright[None, :] * (1.0 + 0.05 * warp) * seam[:, None]
    grain = cv2.resize(grain, (sw * step, h), interpolation=cv2.INTER_LINEAR)[:, :w]
    tone = cv2.resize(tone, (sw * step, h), interpolation=cv2.INTER_LINEAR)[:, :w]
    pores = _noise(rng, h, w, max(0.4 * ppm, 1.0), max(10.0 * ppm, 3.0))
    grain = cv2.scaleAdd(pores, 0.12 * _fade(0.8 * ppm + 1.5), grain)
    sheen = 1.0 + 0.05 * _noise(rng, h, w, 250.0 * ppm) + 0.02 * _noise(rng, h, w, 40.0 * ppm)
    tone = cv2.multiply(tone, sheen)
    for y0, y1, jx in joints_px:
        x_lo, x_hi = max(0, int(jx) - 4), min(w, int(jx) + 5)
        if x_lo < x_hi:
            prof = 1.0 - 0.6 * np.exp(-(((np.arange(x_lo, x_hi) + 0.5 - jx) / max(0.45 * ppm, 0.6)) ** 2))
            tone[y0:y1, x_lo:x_hi] *= prof.astype(F32)[None, :]
    if vertical:
        grain, tone = cv2.transpose(grain), cv2.transpose(tone)
    return _two_tone(grain, tone, light, dark, u8)


# --- felt, laminate, cloth ----------------------------------------------------------------------

_FELTS = ((42, 104, 28), (52, 96, 22), (36, 84, 30), (60, 118, 44), (70, 92, 24))


def _felt(h: int, w: int, ppm: float, rng: np.random.Generator) -> np.ndarray:
    colour = _pick(_FELTS, rng)
    fibre = cv2.GaussianBlur(_white(rng, h, w), (0, 0), max(0.3 * ppm, 0.5))
    fibre *= F32(1.0 / max(float(fibre.std()), 1e-3))
    fuzz = _noise(rng, h, w, max(1.2 * ppm, 1.5))  # tufts of fibres
    mottle = _fbm(rng, h, w, 60.0 * ppm, 3)
    nap = _noise(rng, h, w, 300.0 * ppm, 120.0 * ppm)  # brushing marks
    fine = 0.05 * _fade(1.0 * ppm + 2.2)
    field = 1.0 + fine * fibre + 0.03 * fuzz + 0.04 * mottle + 0.03 * nap
    return _colour_u8(field.astype(F32), colour)


_LAMINATES = ((214, 218, 220), (190, 192, 192), (178, 196, 210), (200, 212, 222), (160, 168, 172))


def _laminate(h: int, w: int, ppm: float, rng: np.random.Generator) -> np.ndarray:
    colour = _pick(_LAMINATES, rng)
    field = 1.0 + 0.015 * _fbm(rng, h, w, 150.0 * ppm, 3)
    if rng.random() < 0.5:  # speckled (stone-like)
        speck = _noise(rng, h, w, max(0.7 * ppm, 1.0))
        speck = np.maximum(speck - 1.5, 0) - np.maximum(-speck - 1.8, 0)
        field += F32(0.12 * _fade(1.4 * ppm + 1.5)) * speck + 0.006 * _noise(rng, h, w, 5.0 * ppm)
    else:  # linen-like fine hatch
        field += F32(0.02 * _fade(1.2 * ppm + 1.0)) * (_noise(rng, h, w, max(0.5 * ppm, 1.0), 30.0 * ppm) +
                                                        _noise(rng, h, w, 30.0 * ppm, max(0.5 * ppm, 1.0)))
    return _colour_u8(field.astype(F32), colour)


_CLOTHS = ((78, 40, 26), (52, 34, 108), (58, 55, 52), (42, 30, 78), (70, 58, 40))


def _cloth(h: int, w: int, ppm: float, rng: np.random.Generator) -> np.ndarray:
    colour = _pick(_CLOTHS, rng)
    # Weave: threads along x and y, each thread a little uneven.
    period = float(rng.uniform(0.6, 1.1)) * ppm  # pixels per thread
    weave = np.zeros((h, w), F32)
    if _fade(period) > 0:
        xs = np.cos(F32(2 * math.pi / period) * (np.arange(w, dtype=F32) + F32(rng.uniform(0, period))))
        ys = np.cos(F32(2 * math.pi / period) * (np.arange(h, dtype=F32) + F32(rng.uniform(0, period))))
        weave = (xs[None, :] * ys[:, None]) * F32(_fade(period))
        weave += 0.5 * _noise(rng, h, w, period, 25 * period) + 0.5 * _noise(rng, h, w, 25 * period, period)
    fuzz = _noise(rng, h, w, max(0.7 * ppm, 1.0))
    # Folds and wrinkles: a low-resolution height field lit from the upper left.
    sh, sw = max(8, h // 8), max(8, w // 8)
    sp = ppm * sh / h
    height = 6.0 * _fbm(rng, sh, sw, 200.0 * sp, 3)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(F32)
    for _ in range(int(rng.integers(2, 7))):
        ang = rng.uniform(0, math.pi)
        cx, cy = rng.uniform(0, sw), rng.uniform(0, sh)
        across = (xx - cx) * math.sin(ang) - (yy - cy) * math.cos(ang)
        along = (xx - cx) * math.cos(ang) + (yy - cy) * math.sin(ang)
        width = rng.uniform(12, 45) * sp
        length = rng.uniform(150, 600) * sp
        amp = F32(rng.uniform(1.0, 3.5) * rng.choice([-1, 1]))
        height += amp * np.exp(-(across / width) ** 2 - (along / length) ** 2)
    gy, gx = np.gradient(cv2.GaussianBlur(height, (0, 0), 1.5))
    light = (gx * 0.6 + gy * 0.8) * F32(1.5 * sp)  # heights in mm: slopes facing the upper left are lit
    shading = cv2.resize(np.clip(1.0 + light, 0.75, 1.25).astype(F32), (w, h), interpolation=cv2.INTER_CUBIC)
    field = (1.0 + 0.09 * weave + 0.05 * fuzz) * shading
    return _colour_u8(field.astype(F32), colour)


def table_texture(kind: TableKind, width_px: int, height_px: int, px_per_mm: float,
                  rng: np.random.Generator) -> np.ndarray:
    """A table top of ``kind``, BGR uint8 of shape (height_px, width_px, 3), covering
    width_px / px_per_mm by height_px / px_per_mm millimetres. Colours vary with ``rng``."""
    h, w, ppm = int(height_px), int(width_px), float(px_per_mm)
    if h <= 0 or w <= 0 or ppm <= 0:
        raise ValueError("texture size and scale must be positive")
    kind = TableKind(kind)
    if kind is TableKind.WOOD:
        return _wood(h, w, ppm, rng, vertical=bool(rng.random() < 0.5))
    if kind is TableKind.FELT:
        return _felt(h, w, ppm, rng)
    if kind is TableKind.LAMINATE:
        return _laminate(h, w, ppm, rng)
    return _cloth(h, w, ppm, rng)


_CARPETS = ((62, 70, 78), (48, 50, 54), (70, 62, 52), (40, 48, 60), (58, 66, 66))


def floor_texture(width_px: int, height_px: int, px_per_mm: float, rng: np.random.Generator) -> np.ndarray:
    """What lies beyond the table's edge: a darker floor, out of focus. BGR uint8 (height_px, width_px, 3);
    ``px_per_mm`` is the floor's own scale (it lies further from the camera than the table)."""
    h, w = int(height_px), int(width_px)
    if h <= 0 or w <= 0 or px_per_mm <= 0:
        raise ValueError("texture size and scale must be positive")
    f = 4
    sh, sw, sp = max(4, math.ceil(h / f)), max(4, math.ceil(w / f)), px_per_mm / f
    choice = rng.random()
    if choice < 0.45:  # wooden floor boards
        small = _wood(sh, sw, sp, rng, vertical=bool(rng.random() < 0.5), u8=False) * F32(rng.uniform(0.35, 0.55))
    elif choice < 0.75:  # carpet or rug
        colour = _pick(_CARPETS, rng)
        small = _colourise((1.0 + 0.05 * _fbm(rng, sh, sw, 150 * sp, 3) + 0.04 * _white(rng, sh, sw)).astype(F32),
                           colour)
    else:  # stone or ceramic tiles with grout lines
        colour = np.full(3, rng.uniform(50, 100), F32) + rng.normal(0, 3, 3).astype(F32)
        size = rng.uniform(300, 600) * sp
        ys, xs = np.mgrid[0:sh, 0:sw].astype(F32)
        # Distance to the nearest grout line, in small-scale pixels.
        grout = size / 2 - np.maximum(np.abs(((xs + rng.uniform(0, size)) % size) - size / 2),
                                      np.abs(((ys + rng.uniform(0, size)) % size) - size / 2))
        field = 1.0 + 0.08 * _fbm(rng, sh, sw, 100 * sp, 3) - 0.3 * np.exp(-((grout / max(2.0 * sp, 0.7)) ** 2))
        small = _colourise(field.astype(F32), colour)
    # Light falls off away from the table: darker towards one side.
    gx, gy = rng.normal(0, 1, 2)
    ramp = (np.arange(sw, dtype=F32)[None, :] / sw - 0.5) * gx + (np.arange(sh, dtype=F32)[:, None] / sh - 0.5) * gy
    small = small * np.clip(1.0 + 0.25 * ramp, 0.5, 1.3)[..., None].astype(F32)
    small = cv2.GaussianBlur(small.astype(F32), (0, 0), max(1.5, 0.004 * max(w, h)) / f)
    return cv2.resize(_to_u8(small), (w, h), interpolation=cv2.INTER_CUBIC)
