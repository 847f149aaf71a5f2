"""Tile sprites: the top face (and the back) of one domino seen straight down.

Format of every sprite: a ``(H, W, 4)`` **uint8 BGRA** image with **straight (not premultiplied)
alpha**; ``W = round(length_mm * px_per_mm)``, ``H = round(width_mm * px_per_mm)``, the long axis
horizontal, half 0 (``pips[0]``) on the left. The colour of the transparent pixels (the rounded
corners and the outer anti-aliased rim) is the tile's own edge colour carried outward, so a
bilinear warp of the sprite gives no dark fringe even without premultiplying.

Light comes from the upper left (``LIGHT``): the bevel is lighter at the top and left, darker at
the bottom and right; pips and the divider are drilled, so their upper-left walls are in shadow
and their lower-right rims catch the light. Everything that does not depend on the random
generator (geometry, normals, shading, pip maps) is cached per size.
"""

from __future__ import annotations

import dataclasses
import functools

import cv2
import numpy as np

from referee.render.styles import PIP_COLOURS, TileLook, TileStyle

__all__ = ["LIGHT", "PIP_LAYOUT", "tile_back", "tile_side_colour", "tile_top"]

_LIGHT = np.array([-0.45, -0.55, 0.70]) / np.linalg.norm([-0.45, -0.55, 0.70])
#: Direction towards the light (image x right, y down, z up out of the table), unit length.
LIGHT: tuple[float, float, float] = (float(_LIGHT[0]), float(_LIGHT[1]), float(_LIGHT[2]))

_A, _C, _Z = 0.24, 0.5, 0.76          # 3x3 grid lines of a half square
_Q = (0.17, 0.39, 0.61, 0.83)         # 4 columns for 10..12
_R3 = (0.2, 0.5, 0.8)                 # 3 rows for 10..12
_SIX = ((_A, _A), (_C, _A), (_Z, _A), (_A, _Z), (_C, _Z), (_Z, _Z))  # 3 columns x 2 rows
_GRID = tuple((x, y) for y in (_A, _C, _Z) for x in (_A, _C, _Z))
_TWELVE = tuple((x, y) for y in _R3 for x in _Q)
_OUTER = tuple((x, y) for y in (_R3[0], _R3[2]) for x in _Q)  # two rows of four

#: Pip centres of each number in a unit half square ((0.5, 0.5) its centre, x along the tile).
PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    0: (),
    1: ((_C, _C),),
    2: ((_A, _A), (_Z, _Z)),
    3: ((_A, _A), (_C, _C), (_Z, _Z)),
    4: ((_A, _A), (_Z, _A), (_A, _Z), (_Z, _Z)),
    5: ((_A, _A), (_Z, _A), (_C, _C), (_A, _Z), (_Z, _Z)),
    6: _SIX,
    7: (*_SIX, (_C, _C)),
    8: tuple(p for p in _GRID if p != (_C, _C)),
    9: _GRID,
    10: (*_OUTER, (_Q[0], _C), (_Q[3], _C)),  # rows of 4, 2, 4
    11: (*_OUTER, (_Q[0], _C), (_C, _C), (_Q[3], _C)),  # rows of 4, 3, 4
    12: _TWELVE,  # rows of 4, 4, 4
}

# Body colours (BGR) as they photograph under ordinary room light, before tint and jitter.
_BODY: dict[TileStyle, tuple[float, float, float]] = {
    TileStyle.IVORY: (176, 208, 224),
    TileStyle.BLACK: (30, 29, 28),
    TileStyle.COLOURED: (190, 218, 230),
}
_INK_DARK = (26, 25, 28)
_INK_LIGHT = (222, 226, 228)
_BRASS = (62, 140, 182)


def _smooth(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


def _lambert(nx: np.ndarray, ny: np.ndarray, nz: np.ndarray) -> np.ndarray:
    """Diffuse light of unnormalised normals, 1.0 for a flat surface."""
    lx, ly, lz = LIGHT
    norm = np.sqrt(nx * nx + ny * ny + nz * nz)
    return np.maximum(nx * lx + ny * ly + nz * lz, 0.0) / (norm * lz)


def _specular(nx: np.ndarray, ny: np.ndarray, nz: np.ndarray, power: float) -> np.ndarray:
    """Blinn highlight (viewer straight above) minus what a flat surface gets."""
    h = np.array(LIGHT) + np.array([0.0, 0.0, 1.0])
    h = h / np.linalg.norm(h)
    norm = np.sqrt(nx * nx + ny * ny + nz * nz)
    cos = np.maximum((nx * h[0] + ny * h[1] + nz * h[2]) / norm, 0.0)
    return np.maximum(cos ** power - h[2] ** power, 0.0)


def _height_normals(height: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    gy, gx = np.gradient(height)
    return -gx, -gy


@dataclasses.dataclass(frozen=True)
class _Body:
    alpha8: np.ndarray    # coverage 0..255, uint8
    shade: np.ndarray     # multiplicative light, 1 on the flat top
    spec: np.ndarray      # additive highlight 0..1
    divider: np.ndarray   # divider ink coverage 0..1
    pin: np.ndarray       # brass pin coverage 0..1
    pin_spec: np.ndarray  # highlight on the pin
    divider_box: tuple[slice, slice]
    pin_box: tuple[slice, slice]


@dataclasses.dataclass(frozen=True)
class _Pips:
    ink: np.ndarray    # pip ink coverage 0..1 over one half
    shade: np.ndarray  # multiplicative light of the drilled holes, 1 elsewhere
    box: tuple[slice, slice]  # where ink is non-zero, within the half


def _bbox(cov: np.ndarray) -> tuple[slice, slice]:
    rows, cols = np.nonzero(np.any(cov > 0, axis=1))[0], np.nonzero(np.any(cov > 0, axis=0))[0]
    if rows.size == 0:
        return slice(0, 0), slice(0, 0)
    return slice(int(rows[0]), int(rows[-1]) + 1), slice(int(cols[0]), int(cols[-1]) + 1)


def _frozen(*arrays: np.ndarray) -> None:
    for a in arrays:
        a.setflags(write=False)


@functools.lru_cache(maxsize=64)
def _body(w: int, h: int, ppm: float, width_mm: float, pin: bool, divider: bool) -> _Body:
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32) + 0.5
    radius = 0.12 * width_mm * ppm
    bevel = min(max(0.075 * width_mm * ppm, 1.2), 0.9 * radius)
    # Signed distance to the rounded rectangle (negative inside), in pixels.
    qx = np.abs(xs - w / 2) - (w / 2 - radius)
    qy = np.abs(ys - h / 2) - (h / 2 - radius)
    outside = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0))
    dist = outside + np.minimum(np.maximum(qx, qy), 0) - radius
    alpha = np.clip(0.5 - dist, 0.0, 1.0)
    # Outward direction (the SDF gradient), then a quarter-round bevel profile.
    gy, gx = np.gradient(dist)
    g = np.maximum(np.hypot(gx, gy), 1e-6)
    tilt = 1.0 - np.clip(-dist / bevel, 0.0, 1.0)  # sine of the surface slope
    nx, ny = gx / g * tilt, gy / g * tilt
    nz = np.sqrt(np.maximum(1.0 - tilt * tilt, 0.02))
    # Details on the flat top, as a height field (pixels): divider groove and a domed pin.
    detail = np.zeros((h, w), np.float32)
    ink = np.zeros((h, w), np.float32)
    if divider:
        margin = bevel + 0.07 * width_mm * ppm
        ends = _smooth((ys - margin) / max(ppm, 1.0)) * _smooth((h - margin - ys) / max(ppm, 1.0))
        across = np.abs(xs - w / 2)
        groove = max(0.45 * ppm, 0.9)
        detail -= 0.5 * groove * _smooth(1.0 - across / groove) * ends
        ink = np.clip(max(0.28 * ppm, 0.55) - across + 0.5, 0.0, 1.0) * ends
    pin_cov = np.zeros((h, w), np.float32)
    pin_spec = np.zeros((h, w), np.float32)
    pin_light = np.ones((h, w), np.float32)
    if pin:
        rp = max(0.07 * width_mm * ppm, 1.5)
        rho = np.hypot(xs - w / 2, ys - h / 2)
        pin_cov = np.clip(rp - rho + 0.5, 0.0, 1.0)
        dome = np.sqrt(np.clip(1.0 - (rho / (rp + 0.5)) ** 2, 0.0, 1.0)) * rp * 0.6
        px, py = _height_normals(dome)
        pin_spec = _specular(px, py, np.ones_like(px), 20.0) * pin_cov
        detail = detail * (1 - pin_cov)  # the pin's own light is applied with its colour
        pin_light = _lambert(px, py, np.ones_like(px))
    dx, dy = _height_normals(detail)
    shade = _lambert(nx + dx * nz, ny + dy * nz, nz)
    if pin:
        shade = shade * (1 - pin_cov) + pin_light * pin_cov
    shade = (0.38 + 0.62 * shade).astype(np.float32)
    spec = _specular(nx, ny, nz, 12.0).astype(np.float32)
    alpha8 = np.clip(alpha * 255.0 + 0.5, 0, 255).astype(np.uint8)
    body = _Body(alpha8, shade, spec, ink.astype(np.float32), pin_cov.astype(np.float32),
                 pin_spec.astype(np.float32), _bbox(ink), _bbox(pin_cov))
    _frozen(body.alpha8, body.shade, body.spec, body.divider, body.pin, body.pin_spec)
    return body


@functools.lru_cache(maxsize=256)
def _pips(n: int, half: int, w: int, h: int, ppm: float, width_mm: float) -> _Pips:
    x0, x1 = (0, w // 2) if half == 0 else (w // 2, w)
    ys, xs = np.mgrid[0:h, x0:x1].astype(np.float32) + 0.5
    ink = np.zeros(xs.shape, np.float32)
    shade = np.ones(xs.shape, np.float32)
    r = (0.09 if n <= 9 else 0.075) * width_mm * ppm
    hw = w / 2
    lx, ly, lz = LIGHT
    reach = 0.3 * r / lz  # how far the hole's rim shadows its floor
    for u, v in PIP_LAYOUT[n]:
        cx, cy = half * hw + u * hw, v * h
        ddx, ddy = xs - cx, ys - cy
        rho = np.hypot(ddx, ddy)
        near = rho < 1.4 * r + 2
        if not near.any():
            continue
        cov = np.clip(r - rho + 0.5, 0.0, 1.0)
        ink = np.maximum(ink, cov)
        # The hole as a height field: flat floor inside r_in, a rounded wall and chamfer out to r_out.
        r_in, r_out = 0.62 * r, 1.15 * r + 0.6
        x = np.clip((r_out - rho) / (r_out - r_in), 0.0, 1.0)
        slope = 0.45 * r * 6.0 * x * (1.0 - x) / (r_out - r_in)  # d(height)/d(rho), height 0.45 r deep
        gx = slope * ddx / np.maximum(rho, 1e-3)
        gy = slope * ddy / np.maximum(rho, 1e-3)
        light = _lambert(-gx, -gy, np.ones_like(gx))
        # The upper-left rim shades the floor: lit only where the light reaches through the opening.
        lit = _smooth((r - np.hypot(ddx + lx * reach, ddy + ly * reach)) / (0.35 * r) + 0.3)
        occl = 1.0 - cov * (0.1 + 0.4 * (1 - lit))
        shade = np.where(near, shade * (0.3 + 0.7 * light) * occl, shade)
    pips = _Pips(ink, shade.astype(np.float32), _bbox(ink))
    _frozen(pips.ink, pips.shade)
    return pips


def _size(length_mm: float, width_mm: float, px_per_mm: float) -> tuple[int, int, float]:
    w = max(8, round(length_mm * px_per_mm))
    h = max(4, round(width_mm * px_per_mm))
    return w, h, round(float(px_per_mm), 4)


def _body_colour(look: TileLook, rng: np.random.Generator) -> np.ndarray:
    base = np.array(_BODY[look.style], np.float32)
    jitter = rng.normal(0.0, 1.5, 3).astype(np.float32) + np.float32(rng.normal(0.0, 4.0))
    if look.style is TileStyle.BLACK:
        jitter *= 0.25
    return base + jitter + np.array(look.tint, np.float32)


@functools.lru_cache(maxsize=16)
def _grain_field(w: int, h: int) -> np.ndarray:
    """Fine surface noise twice the sprite's size; each sprite takes a random window of it."""
    field = np.random.default_rng(w * 7919 + h).standard_normal((2 * h, 2 * w), dtype=np.float32)
    field.setflags(write=False)
    return field


def _scale3(grey: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """A float32 (H, W, 3) image: a one-channel factor times a BGR colour."""
    return cv2.multiply(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), (*map(float, colour), 0.0))


def _surface(look: TileLook, w: int, h: int, ppm: float, rng: np.random.Generator) -> np.ndarray:
    """Body albedo (float32 BGR) with slow mottling and faint streaks along the tile (bone/resin grain)."""
    colour = _body_colour(look, rng)
    mottle = cv2.resize(rng.standard_normal((3, 5), dtype=np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    rows = max(2, int(h / max(0.8 * ppm, 1.0)))
    streak = cv2.resize(rng.standard_normal((rows, 3), dtype=np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    y0, x0 = int(rng.integers(0, h)), int(rng.integers(0, w))
    grain = _grain_field(w, h)[y0:y0 + h, x0:x0 + w]
    if look.style is TileStyle.BLACK:
        amounts = (0.05, 0.012, 0.02)
    else:
        amounts = (0.018, 0.01, 0.012)
    var = cv2.addWeighted(mottle, amounts[0], streak, amounts[1], 1.0)
    var = cv2.scaleAdd(grain, amounts[2], var)
    return _scale3(var, colour)


def _paint(img: np.ndarray, cov: np.ndarray, box: tuple[slice, slice], colour: np.ndarray | tuple[float, ...],
           amount: float = 1.0) -> None:
    """Lay ink of ``colour`` with coverage ``cov`` (non-zero only inside ``box``) over ``img`` in place."""
    part = img[box]
    a = cov[box][..., None] * np.float32(amount)
    part += (np.asarray(colour, np.float32) - part) * a


def _finish(img: np.ndarray, body: _Body, shade: np.ndarray, look: TileLook) -> np.ndarray:
    """Light the albedo ``img`` with the one-channel ``shade`` and highlights; add the alpha."""
    black = look.style is TileStyle.BLACK
    spec_amount = (0.25 + 0.75 * look.gloss) * (230.0 if black else 90.0)
    add = cv2.addWeighted(body.spec, spec_amount, body.pin_spec, 200.0, 0.0)
    out = cv2.multiply(img, cv2.cvtColor(shade, cv2.COLOR_GRAY2BGR))
    out = cv2.add(out, cv2.cvtColor(add, cv2.COLOR_GRAY2BGR))
    bgra = cv2.cvtColor(cv2.convertScaleAbs(cv2.max(out, 0.0)), cv2.COLOR_BGR2BGRA)
    bgra[..., 3] = body.alpha8
    return bgra


def tile_top(pips: tuple[int, int], look: TileLook, length_mm: float, width_mm: float, px_per_mm: float,
             rng: np.random.Generator) -> np.ndarray:
    """The top face of tile ``pips`` seen straight down, half 0 (``pips[0]``) on the left.

    Returns uint8 BGRA with straight alpha, shape ``(round(width_mm * px_per_mm),
    round(length_mm * px_per_mm), 4)``."""
    for n in pips:
        if n not in PIP_LAYOUT:
            raise ValueError(f"no pip layout for {n}")
    w, h, ppm = _size(length_mm, width_mm, px_per_mm)
    body = _body(w, h, ppm, float(width_mm), bool(look.pin), True)
    img = _surface(look, w, h, ppm, rng)
    black = look.style is TileStyle.BLACK
    _paint(img, body.divider, body.divider_box, _INK_LIGHT if black else _INK_DARK, 0.55 if black else 0.85)
    shade = body.shade.copy()
    for half, n in enumerate(pips):
        p = _pips(n, half, w, h, ppm, float(width_mm))
        x0, x1 = (0, w // 2) if half == 0 else (w // 2, w)
        if look.style is TileStyle.COLOURED:
            ink = np.array(PIP_COLOURS[n], np.float32)
        else:
            ink = np.array(_INK_LIGHT if black else _INK_DARK, np.float32)
        ink = ink + rng.normal(0.0, 2.0, 3).astype(np.float32)
        _paint(img[:, x0:x1], p.ink, p.box, ink)
        shade[:, x0:x1][p.box] *= p.shade[p.box]
    if look.pin:
        brass = np.array(_BRASS, np.float32) + rng.normal(0.0, 4.0, 3).astype(np.float32)
        _paint(img, body.pin, body.pin_box, brass)
    return _finish(img, body, shade, look)


def tile_back(look: TileLook, length_mm: float, width_mm: float, px_per_mm: float,
              rng: np.random.Generator) -> np.ndarray:
    """The plain back of a tile (no pips, no divider): same format and size as :func:`tile_top`."""
    w, h, ppm = _size(length_mm, width_mm, px_per_mm)
    body = _body(w, h, ppm, float(width_mm), False, False)
    return _finish(_surface(look, w, h, ppm, rng), body, body.shade, look)


def tile_side_colour(look: TileLook) -> tuple[int, int, int]:
    """BGR colour of the tile's visible side faces: the body colour in less light."""
    base = np.array(_BODY[look.style], np.float32) + np.array(look.tint, np.float32)
    factor = 0.8 if look.style is TileStyle.BLACK else 0.68
    side = np.clip(base * factor + (2.0 if look.style is TileStyle.BLACK else 0.0), 0, 255)
    return int(side[0]), int(side[1]), int(side[2])
