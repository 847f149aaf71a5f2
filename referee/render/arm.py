"""A player's forearm and hand reaching over the table, seen from above.

The arm is a union of tapered capsules (forearm, palm, fingers, thumb), each shaded as a rounded
cylinder lit from the upper left (the same light as the tile sprites), in a skin tone drawn from
``rng``, sometimes under a sleeve. It floats above the table, so it casts a soft shadow offset
down and to the right. The shape is computed at a scale where the forearm is at most about 56
pixels wide and then upsampled, which keeps the cost to a few tens of milliseconds.
"""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np

from referee.render.sprites import LIGHT

__all__ = ["draw_arm"]

F32 = np.float32

_WORK_PX = 56.0  # the forearm's width at the working scale (the shape is smooth; edges are cut at full scale)
_SKINS = (  # BGR, lit as by ordinary room light
    (158, 180, 220), (138, 162, 206), (112, 138, 184), (88, 114, 160), (64, 84, 122), (46, 58, 88),
)
_SLEEVES = (
    (120, 70, 40), (60, 60, 62), (200, 200, 196), (40, 40, 150), (50, 110, 60), (30, 30, 32),
    (150, 140, 120), (90, 120, 150),
)


@dataclasses.dataclass(frozen=True)
class _Capsule:
    a: tuple[float, float]
    b: tuple[float, float]
    ra: float
    rb: float
    finger: bool = False  # gets joint creases (and a nail, if ``nail``)
    nail: bool = False


def _rot(v: np.ndarray, deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _capsule_fields(cap: _Capsule, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, ...]:
    """Signed distance (px), the offset from the axis in radii (x, y: the normal's tilt), and the
    position along the axis (0 at a, 1 at b)."""
    ax, ay = cap.a
    bx, by = cap.b
    vx, vy = bx - ax, by - ay
    length2 = max(vx * vx + vy * vy, 1e-6)
    t = np.clip(((xs - ax) * vx + (ys - ay) * vy) / F32(length2), 0.0, 1.0)
    qx, qy = xs - (ax + t * vx), ys - (ay + t * vy)
    r = F32(cap.ra) + t * F32(cap.rb - cap.ra)
    dist = np.sqrt(qx * qx + qy * qy)
    return dist - r, qx / r, qy / r, t


def _hand(entry: np.ndarray, tip: np.ndarray, width: float, rng: np.random.Generator) -> list[_Capsule]:
    """The capsules of the arm: forearm, palm, four fingers (index first), thumb."""
    d = tip - entry
    d = d / max(float(np.linalg.norm(d)), 1e-6)
    side = 1.0 if rng.random() < 0.7 else -1.0  # right hand: thumb on the left of the reach
    left = np.array([d[1], -d[0]]) * side
    holding = rng.random() < 0.45
    w = width
    finger_len = (0.6 if holding else 1.35) * w
    knuckles = tip - d * finger_len  # the middle finger's knuckle
    wrist = knuckles - d * 1.55 * w - left * 0.1 * w

    def cap(a: np.ndarray, b: np.ndarray, ra: float, rb: float, finger: bool = False) -> _Capsule:
        return _Capsule((float(a[0]), float(a[1])), (float(b[0]), float(b[1])), ra * w, rb * w,
                        finger, finger and not holding)

    caps = [cap(entry - d * 1.5 * w, wrist, 0.66, 0.5),
            cap(wrist + d * 0.2 * w, knuckles - d * 0.3 * w - left * 0.12 * w, 0.52, 0.64)]
    spread = rng.uniform(0.2, 1.2) * (0.3 if holding else 1.0)
    for off, bk, ang, ln in zip((0.3, 0.0, -0.28, -0.53), (0.03, 0.0, 0.05, 0.17), (-7.0, 0.0, 6.0, 13.0),
                                (0.92, 1.0, 0.95, 0.76), strict=True):
        base = knuckles + left * off * w - d * (bk + 0.15) * w
        end = base + _rot(d, -ang * spread * side) * (ln * finger_len + 0.15 * w)
        caps.append(cap(base, end, 0.16, 0.155, True) if holding else cap(base, end, 0.14, 0.115, True))
    thumb_base = wrist + d * 0.55 * w + left * 0.3 * w
    if holding:
        thumb_end = thumb_base + _rot(d, -rng.uniform(0, 10) * side) * 1.0 * w + left * 0.05 * w
    else:
        thumb_end = thumb_base + _rot(d, -rng.uniform(25, 45) * side) * 0.98 * w
    caps.append(cap(thumb_base, thumb_end, 0.25, 0.14, True))
    return caps


def _shape(caps: list[_Capsule], xs: np.ndarray, ys: np.ndarray, soft: float) -> dict[str, np.ndarray]:
    """Signed distance of the union (hard), and normals, nails and creases blended softly across
    the joins (weights exp(-distance / soft))."""
    best = np.full(xs.shape, np.inf, F32)
    acc = {k: np.zeros(xs.shape, F32) for k in ("w", "nx", "ny", "nail", "crease", "finger")}
    edges = np.zeros(xs.shape, F32)  # how many fingers have their edge here: 2 means a gap between two
    body = np.full(xs.shape, np.inf, F32)  # distance to the forearm and palm
    for cap in caps:
        dist, ux, uy, t = _capsule_fields(cap, xs, ys)
        best = np.minimum(best, dist)
        if not cap.finger:
            body = np.minimum(body, dist)
        wgt = np.exp(np.clip(-dist / F32(soft), -60.0, 60.0))
        acc["w"] += wgt
        acc["nx"] += wgt * ux
        acc["ny"] += wgt * uy
        if cap.finger:
            length = math.dist(cap.a, cap.b)
            rho = np.sqrt(ux * ux + uy * uy)
            joints = np.zeros_like(t)
            for tc in (0.4, 0.68):
                joints += np.exp(-(((t - F32(tc)) * F32(length / (0.03 * length + 0.5))) ** 2))
            acc["crease"] += wgt * joints * (rho < 0.9)
            acc["finger"] += wgt
            edges += np.clip(1.0 - np.abs(dist) / F32(0.6 * soft), 0.0, 1.0)
            if cap.nail:
                nail = np.clip((t - 0.76) * 25.0, 0.0, 1.0) * np.clip((0.62 - rho) * 8.0, 0.0, 1.0)
                acc["nail"] += wgt * nail
    norm = 1.0 / np.maximum(acc.pop("w"), F32(1e-12))
    out = {k: v * norm for k, v in acc.items()}
    out["dist"] = best
    out["gap"] = np.clip(edges - 1.0, 0.0, 1.0) * np.clip(body / F32(soft), 0.0, 1.0)
    return out


def draw_arm(img: np.ndarray, entry_xy: tuple[float, float], tip_xy: tuple[float, float], width_px: float,
             rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw a forearm entering at ``entry_xy`` (on or beyond the border) whose fingertips reach
    ``tip_xy``; ``width_px`` is the forearm's width at the wrist. Returns the new BGR uint8 image
    and a uint8 mask, 255 where the arm or hand covers the image (not its shadow), 0 elsewhere."""
    if img.dtype != np.uint8 or img.ndim != 3 or img.shape[2] != 3:
        raise ValueError("expected a BGR uint8 image")
    h, w = img.shape[:2]
    width = max(float(width_px), 4.0)
    caps = _hand(np.array(entry_xy, float), np.array(tip_xy, float), width, rng)
    shadow_off = np.array([0.45, 0.65]) * width * rng.uniform(0.7, 1.4)
    shadow_sigma = 0.35 * width * rng.uniform(0.8, 1.3)
    pad = max(c.ra for c in caps) + 3 * shadow_sigma + float(np.abs(shadow_off).max()) + 2
    pts = np.array([p for c in caps for p in (c.a, c.b)])
    x0, y0 = (max(0, math.floor(v - pad)) for v in pts.min(axis=0))
    x1, y1 = (min(lim, math.ceil(v + pad)) for v, lim in zip(pts.max(axis=0), (w, h), strict=True))
    out = img.copy()
    mask = np.zeros((h, w), np.uint8)
    if x0 >= x1 or y0 >= y1:
        return out, mask
    # Work at a reduced scale inside the box: the forearm _WORK_PX wide at most.
    s = min(1.0, _WORK_PX / width)
    bw, bh = x1 - x0, y1 - y0
    sw, sh = max(2, math.ceil(bw * s)), max(2, math.ceil(bh * s))
    ys, xs = np.mgrid[0:sh, 0:sw].astype(F32)
    xs, ys = (xs + 0.5) * F32(bw / sw) + F32(x0), (ys + 0.5) * F32(bh / sh) + F32(y0)
    f = _shape(caps, xs, ys, 0.07 * width)
    # Rounded-cylinder light.
    nx, ny = f["nx"], f["ny"]
    nz = np.sqrt(np.clip(1.0 - nx * nx - ny * ny, 0.02, 1.0))
    lx, ly, lz = LIGHT
    diffuse = np.maximum(nx * lx + ny * ly + nz * lz, 0.0)
    half = np.array(LIGHT) + np.array([0.0, 0.0, 1.0])
    half /= np.linalg.norm(half)
    spec = np.maximum(nx * half[0] + ny * half[1] + nz * half[2], 0.0) ** 10
    skin = np.array(_SKINS[int(rng.integers(len(_SKINS)))], F32) * F32(rng.uniform(0.92, 1.06))
    blotch = cv2.resize(rng.standard_normal((6, 6), dtype=F32), (sw, sh), interpolation=cv2.INTER_CUBIC)
    fine = cv2.GaussianBlur(rng.standard_normal((sh, sw), dtype=F32), (0, 0), 0.8)
    shade = (0.3 + 0.75 * diffuse) * (1.0 + 0.035 * blotch + 0.02 * fine) * (1.0 - 0.1 * f["crease"] - 0.3 * f["gap"])
    colour = shade[..., None] * skin
    # Shadowed skin looks redder (light scattered under the skin); fingers a little redder too.
    colour += (1.0 - diffuse)[..., None] * np.array([-0.1, -0.06, 0.03], F32) * skin
    colour += f["finger"][..., None] * np.array([-3.0, -3.0, 3.0], F32)
    nail = f["nail"][..., None]
    colour = colour * (1 - nail) + (colour * np.array([1.08, 1.1, 1.12], F32) + 14.0) * nail
    colour += (spec * F32(rng.uniform(12, 28)) * (1.0 + 1.5 * f["nail"]))[..., None]
    dist = f["dist"]
    if rng.random() < 0.45:
        colour, dist = _sleeve(colour, dist, caps[0], xs, ys, width, sw / bw, rng)
    dist = dist.astype(F32)
    # The soft shadow on the table, worked out at the small scale too.
    sx, sy = sw / bw, sh / bh
    small_cover = np.clip(0.5 - dist * F32(sx), 0.0, 1.0)
    m = np.array([[1, 0, shadow_off[0] * sx], [0, 1, shadow_off[1] * sy]], np.float64)
    shadow = cv2.warpAffine(small_cover, m, (sw, sh), borderMode=cv2.BORDER_REPLICATE)
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(shadow_sigma * sx, 0.5))
    keep = 1.0 - F32(rng.uniform(0.3, 0.5)) * shadow
    # Back to full scale inside the box; the edge is cut from the (smooth) distance field there.
    full = (bw, bh)
    colour = cv2.resize(colour.astype(F32), full, interpolation=cv2.INTER_LINEAR)
    cover = np.clip(0.5 - cv2.resize(dist, full, interpolation=cv2.INTER_LINEAR), 0.0, 1.0)
    keep = cv2.resize(keep, full, interpolation=cv2.INTER_LINEAR) * (1.0 - cover)
    box = cv2.add(cv2.multiply(out[y0:y1, x0:x1].astype(F32), cv2.cvtColor(keep, cv2.COLOR_GRAY2BGR)),
                  cv2.multiply(colour, cv2.cvtColor(cover, cv2.COLOR_GRAY2BGR)))
    out[y0:y1, x0:x1] = cv2.convertScaleAbs(cv2.max(box, 0.0))
    mask[y0:y1, x0:x1] = np.where(cover >= 0.5, 255, 0).astype(np.uint8)
    return out, mask


def _sleeve(colour: np.ndarray, dist_arm: np.ndarray, forearm: _Capsule, xs: np.ndarray, ys: np.ndarray,
            width: float, s: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Cover the forearm from its start to a cuff with fabric (rounded, wrinkled across the arm).
    Returns the new colour and the signed distance to the union of arm and sleeve."""
    a, b = np.array(forearm.a), np.array(forearm.b)
    length = float(np.linalg.norm(b - a))
    cuff_t = max(0.0, 1.0 - rng.uniform(0.6, 2.5) * width / max(length, 1e-6))
    if cuff_t <= 0.05:
        return colour, dist_arm
    cuff = a + (b - a) * cuff_t
    r_a = forearm.ra * 1.2
    r_b = (forearm.ra + (forearm.rb - forearm.ra) * cuff_t) * 1.15
    dist, ux, uy, _ = _capsule_fields(_Capsule((a[0], a[1]), (cuff[0], cuff[1]), r_a, r_b), xs, ys)
    # Square the cuff off: no round cap beyond the cuff line.
    along = ((xs - cuff[0]) * (b - a)[0] + (ys - cuff[1]) * (b - a)[1]) / length
    dist = np.maximum(dist, along)
    fabric = np.clip(1.5 - dist * F32(s), 0.0, 1.0)  # reaching a little past the edge: no fringe
    nz = np.sqrt(np.clip(1.0 - ux * ux - uy * uy, 0.02, 1.0))
    lx, ly, lz = LIGHT
    diffuse = np.maximum(ux * lx + uy * ly + nz * lz, 0.0)
    folds = np.sin(along / F32(max(0.35 * width, 1.0)) * F32(2.0) + F32(rng.uniform(0, 6)) +
                   F32(1.5) * cv2.resize(rng.standard_normal((4, 4), dtype=F32), (xs.shape[1], xs.shape[0])))
    cloth = np.array(_SLEEVES[int(rng.integers(len(_SLEEVES)))], F32) + rng.normal(0, 8, 3).astype(F32)
    shade = (0.35 + 0.7 * diffuse) * (1.0 + 0.08 * folds)
    fab = shade[..., None] * cloth
    f = fabric[..., None]
    return colour * (1 - f) + fab * f, np.minimum(dist_arm, dist)
