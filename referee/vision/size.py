"""The tile length across a frame. A camera tilted over the table sees the far tiles smaller than
the near ones: over a plane, the inverse depth is an affine function of the image position, and
so, nearly, is the length a tile shows. The field is fitted to the tiles measured alone, and
held within their range."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

__all__ = ["TileSize"]


@dataclasses.dataclass(frozen=True)
class TileSize:
    """Tile length (pixels) at a point: ``length + dx * (x - x0) + dy * (y - y0)``, held within
    ``least`` to ``most``. ``length`` is the frame's usual tile: the median of the tiles
    measured, found at (``x0``, ``y0``). ``measured`` is how many lone tiles it rests on (0 when
    it comes from elsewhere: rows of tiles, a profile, the config)."""

    length: float
    x0: float = 0.0
    y0: float = 0.0
    dx: float = 0.0
    dy: float = 0.0
    least: float = 0.0
    most: float = float("inf")
    measured: int = 0

    def at(self, x: float, y: float) -> float:
        """The tile length at (x, y)."""
        value = self.length + self.dx * (x - self.x0) + self.dy * (y - self.y0)
        return float(min(max(value, self.least), self.most))

    def scaled(self, factor: float) -> TileSize:
        """The same field in pixels ``factor`` times as large."""
        return TileSize(self.length * factor, self.x0 * factor, self.y0 * factor, self.dx, self.dy,
                        self.least * factor, self.most * factor, self.measured)

    @classmethod
    def fit(cls, samples: Sequence[tuple[float, float, float]], least_samples: int, margin: float,
            side: float) -> TileSize:
        """The field through ``samples`` (x, y, length of a tile measured there). With fewer than
        ``least_samples``, or samples bunched together, it is flat. Lengths far off the fit (a
        blob of two tiles that passed for one) are left out; the field is held within ``margin``
        of the lengths measured (a share of them). ``side`` is the frame's longer side, the scale
        over which a slope is worth fitting."""
        lengths = np.array([s[2] for s in samples], np.float64)
        median = float(np.median(lengths))
        if len(samples) < max(3, least_samples):
            return cls(median)
        pts = np.array([s[:2] for s in samples], np.float64)
        keep = np.ones(len(samples), bool)
        coef = np.zeros(3)
        centre = pts.mean(axis=0)
        for _ in range(2):
            centre = pts[keep].mean(axis=0)
            u = (pts[keep] - centre) / side
            design = np.column_stack([np.ones(int(keep.sum())), u])
            # A ridge on the slopes: samples all in one row say nothing across it, and samples
            # within a few per cent of the frame of each other little along it.
            normal = design.T @ design + np.diag([0.0, 1.0, 1.0]) * 5e-4 * int(keep.sum())
            coef = np.linalg.solve(normal, design.T @ lengths[keep])
            u_all = (pts - centre) / side
            residual = lengths - (coef[0] + u_all @ coef[1:])
            spread = max(float(np.median(np.abs(residual[keep]))) * 3.0, 0.05 * median)
            keep = np.abs(residual) <= spread
            if keep.sum() < max(3, least_samples):
                return cls(median)
        kept = lengths[keep]
        # The frame's usual tile is the median measured; the field passes through it where the
        # fit does (from the samples' centre along the slope).
        usual = float(np.median(kept))
        slope = coef[1:] / side
        run = float(slope @ slope)
        x0, y0 = centre + (usual - coef[0]) * slope / run if run > 1e-12 else centre
        return cls(usual, float(x0), float(y0), float(slope[0]), float(slope[1]),
                   float(kept.min() * (1 - margin)), float(kept.max() * (1 + margin)))
