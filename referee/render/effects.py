"""Photographic effects on uint8 images: lamp light, vignetting, glare, focus, sensor noise, JPEG.

Each function takes an image and returns a new one of the same shape and dtype (uint8, BGR or
BGRA; alpha is passed through untouched); the input is never modified. Light-shaped fields are
computed at low resolution and upsampled, so each effect costs a few milliseconds at 1920x1080.
"""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

__all__ = ["focus_blur", "glare", "jpeg", "light_gradient", "sensor_noise", "vignette"]

F32 = np.float32
_SMALL = 64  # pixels per side of the low-resolution gain fields, about


def _check(img: np.ndarray) -> None:
    if img.dtype != np.uint8 or img.ndim not in (2, 3):
        raise ValueError(f"expected a uint8 image, got {img.dtype} with shape {img.shape}")


def _grid(h: int, w: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Coordinates (in full-image pixels) of a small grid covering the image, and its step."""
    step = max(h, w) / _SMALL
    gh, gw = max(2, math.ceil(h / step) + 1), max(2, math.ceil(w / step) + 1)
    ys = (np.arange(gh, dtype=F32) * step)[:, None]
    xs = (np.arange(gw, dtype=F32) * step)[None, :]
    return ys, xs, step


def _upsample(small: np.ndarray, h: int, w: int, step: float) -> np.ndarray:
    """Full-size field from one sampled at multiples of ``step`` pixels."""
    m = np.array([[1.0 / step, 0.0, 0.0], [0.0, 1.0 / step, 0.0]], np.float64)
    return cv2.warpAffine(small, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def _apply_gain(img: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """Multiply the colour channels of ``img`` by ``gain`` ((H, W) or (H, W, 3) float32)."""
    colour = img if img.ndim == 2 else img[..., :3]
    if gain.ndim == 2 and colour.ndim == 3:
        gain = cv2.cvtColor(gain, cv2.COLOR_GRAY2BGR)
    elif gain.ndim == 3 and colour.ndim == 2:
        gain = gain.mean(axis=2).astype(F32)
    return _with_alpha(_to_u8(cv2.multiply(colour.astype(F32), gain)), img)


def _to_u8(img: np.ndarray) -> np.ndarray:
    """Round and saturate float pixels to uint8 (negatives to 0, unlike a bare convertScaleAbs)."""
    return cv2.convertScaleAbs(cv2.max(img, 0.0))


def _with_alpha(colour: np.ndarray, like: np.ndarray) -> np.ndarray:
    if like.ndim == 3 and like.shape[2] == 4:
        return np.dstack([colour, like[..., 3]])
    return colour


def light_gradient(img: np.ndarray, centre_xy: tuple[float, float], radius_px: float, strength: float,
                   warmth: float, rng: np.random.Generator) -> np.ndarray:
    """A lamp above ``centre_xy``: brightness falls off over about ``radius_px`` (1 at the centre,
    ``1 - strength`` far away), with a colour shift of ``warmth`` (-1 cold/blue .. +1 warm/orange)
    strongest where the lamp dominates, and a faint irregularity of the shade (from ``rng``)."""
    _check(img)
    h, w = img.shape[:2]
    ys, xs, step = _grid(h, w)
    r2 = ((xs - F32(centre_xy[0])) ** 2 + (ys - F32(centre_xy[1])) ** 2) / F32(max(radius_px, 1.0) ** 2)
    lamp = 1.0 / (1.0 + r2) ** 1.5  # a small source at height ~radius: cos^3 falloff
    wobble = cv2.resize(rng.standard_normal((4, 4), dtype=F32), (lamp.shape[1], lamp.shape[0]),
                        interpolation=cv2.INTER_CUBIC)
    lamp = np.clip(lamp * (1.0 + 0.04 * wobble), 0.0, 1.2)
    level = (1.0 - strength) + strength * lamp
    tint = np.array([1.0 - 0.16 * warmth, 1.0 - 0.02 * warmth, 1.0 + 0.1 * warmth], F32)
    gain = level[..., None] * (1.0 + (tint - 1.0) * (0.4 + 0.6 * lamp[..., None]))
    gain = _upsample(gain.astype(F32), h, w, step)
    return _apply_gain(img, gain)


def vignette(img: np.ndarray, strength: float) -> np.ndarray:
    """Lens vignetting: corners darkened by ``strength`` (0..1) with a cos^4-like falloff."""
    _check(img)
    h, w = img.shape[:2]
    ys, xs, step = _grid(h, w)
    r2 = ((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / F32((w / 2) ** 2 + (h / 2) ** 2)
    gain = (1.0 - strength * (1.0 - 1.0 / (1.0 + 1.2 * r2) ** 2) / (1.0 - 1.0 / 2.2 ** 2)).astype(F32)
    return _apply_gain(img, _upsample(np.clip(gain, 0.0, 1.0), h, w, step))


def glare(img: np.ndarray, centre_xy: tuple[float, float], axes_px: tuple[float, float], angle_deg: float,
          strength: float) -> np.ndarray:
    """A soft specular highlight: an elliptical Gaussian (semi-axes ``axes_px`` = one sigma,
    rotated by ``angle_deg``) that brightens towards white by up to ``strength`` (0..1)."""
    _check(img)
    h, w = img.shape[:2]
    out = img.copy()
    ax, ay = max(float(axes_px[0]), 0.5), max(float(axes_px[1]), 0.5)
    reach = 3.0 * max(ax, ay)
    x0, x1 = max(0, int(centre_xy[0] - reach)), min(w, int(centre_xy[0] + reach) + 1)
    y0, y1 = max(0, int(centre_xy[1] - reach)), min(h, int(centre_xy[1] + reach) + 1)
    if x0 >= x1 or y0 >= y1 or strength <= 0:
        return out
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(F32)
    dx, dy = xs + 0.5 - F32(centre_xy[0]), ys + 0.5 - F32(centre_xy[1])
    c, s = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    u, v = (dx * c + dy * s) / ax, (-dx * s + dy * c) / ay
    a = (F32(min(strength, 1.0)) * np.exp(-0.5 * (u * u + v * v))).astype(F32)
    part = out[y0:y1, x0:x1] if out.ndim == 2 else out[y0:y1, x0:x1, :3]
    pf = part.astype(F32)
    if pf.ndim == 3:
        a = a[..., None]
    part[...] = np.clip(pf + (255.0 - pf) * a + 0.5, 0, 255).astype(np.uint8)
    return out


def focus_blur(img: np.ndarray, sigma_px: float) -> np.ndarray:
    """Defocus: a Gaussian blur of ``sigma_px`` (nothing below 0.05 px)."""
    _check(img)
    if sigma_px < 0.05:
        return img.copy()
    return cv2.GaussianBlur(img, (0, 0), float(sigma_px), borderType=cv2.BORDER_REFLECT)


@functools.lru_cache(maxsize=32)
def _noise_lut(sigma: float) -> np.ndarray:
    """Noise std per grey level: a read-noise floor plus shot noise, ``sigma`` at level 128."""
    levels = np.arange(256, dtype=np.float64)
    lut = (sigma * np.sqrt(0.25 + 0.75 * levels / 128.0)).astype(F32).reshape(1, 256)
    lut.setflags(write=False)
    return lut


def sensor_noise(img: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Camera noise of about ``sigma`` grey levels at mid grey: signal-dependent (shot noise plus a
    read-noise floor), mostly luminance, with a little blotchy (demosaiced) chroma noise."""
    _check(img)
    if sigma <= 0:
        return img.copy()
    h, w = img.shape[:2]
    colour = img if img.ndim == 2 else img[..., :3]
    grey = colour if colour.ndim == 2 else cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY)
    scale = cv2.LUT(grey, _noise_lut(round(float(sigma), 3)))
    # Uniform noise of std 1 (after the camera's processing its shape hardly matters). The
    # operations write in place: fresh full-size arrays cost more than the arithmetic.
    lum = rng.random((h, w), dtype=F32)
    cv2.subtract(lum, 0.5, dst=lum)
    cv2.multiply(lum, scale, dst=lum, scale=math.sqrt(12.0))
    if colour.ndim == 2:
        return cv2.add(colour, lum, dtype=cv2.CV_8U)
    # Chroma: two colour-difference channels at half resolution, smeared by the demosaicing.
    ch, cw = max(1, (h + 1) // 2), max(1, (w + 1) // 2)
    k = 0.5 * math.sqrt(12.0) / 0.55  # the blur takes the small noise's std from 0.29 down to 0.16
    diffs = []
    for _ in range(2):
        small = cv2.GaussianBlur(rng.random((ch, cw), dtype=F32) - F32(0.5), (0, 0), 0.7)
        big = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
        diffs.append(cv2.multiply(big, scale, dst=big, scale=k))
    cb, cr = diffs
    green = cv2.addWeighted(cb, -0.5, cr, -0.5, 0.0)
    planes = cv2.split(colour)
    for plane, d in zip(planes, (cb, green, cr), strict=True):
        cv2.add(d, lum, dst=d)
        cv2.add(plane, d, dst=plane, dtype=cv2.CV_8U)
    return _with_alpha(cv2.merge(planes), img)


def jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    """A JPEG round trip at ``quality`` (1..100): blocking, ringing and chroma subsampling."""
    _check(img)
    colour = img if img.ndim == 2 else img[..., :3]
    ok, buf = cv2.imencode(".jpg", colour, [cv2.IMWRITE_JPEG_QUALITY, int(np.clip(quality, 1, 100))])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    out = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE if colour.ndim == 2 else cv2.IMREAD_COLOR)
    return _with_alpha(out, img)
