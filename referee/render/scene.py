"""The scene in millimetres: tiles lying on a table, an arm over it, and how it is lit."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from referee.render.styles import TableKind, TileLook


@dataclasses.dataclass(frozen=True)
class TileSize:
    """A set's tile size in mm (about 48 x 24 x 7.5, varying +-15% between sets)."""

    length: float = 48.0
    width: float = 24.0
    thickness: float = 7.5


@dataclasses.dataclass(frozen=True)
class TilePose:
    """A tile on the table: centre (mm), ``angle`` (degrees) of the long axis pointing from half 0
    to half 1, ``pips`` as (half 0, half 1); face down tiles keep their pips for bookkeeping."""

    pips: tuple[int, int]
    x: float
    y: float
    angle: float
    face_up: bool = True
    look: TileLook | None = None

    def axis(self) -> tuple[float, float]:
        a = math.radians(self.angle)
        return math.cos(a), math.sin(a)

    def corners(self, size: TileSize, z: float = 0.0) -> np.ndarray:
        """(4, 3) corners of the face at height z: counter-clockwise from half 0's outer left."""
        ux, uy = self.axis()
        vx, vy = -uy, ux
        hl, hw = size.length / 2, size.width / 2
        pts = [(-hl, -hw), (hl, -hw), (hl, hw), (-hl, hw)]
        return np.array([[self.x + a * ux + b * vx, self.y + a * uy + b * vy, z] for a, b in pts])

    def halves(self, size: TileSize, z: float = 0.0) -> np.ndarray:
        """(2, 3) centres of half 0 and half 1 at height z."""
        ux, uy = self.axis()
        q = size.length / 4
        return np.array([[self.x - q * ux, self.y - q * uy, z], [self.x + q * ux, self.y + q * uy, z]])


@dataclasses.dataclass(frozen=True)
class ArmPose:
    """A person's arm over the table: entering at ``entry`` (mm, at a table edge or beyond) and
    reaching to ``tip`` (mm), held ``lift`` mm above the table."""

    entry: tuple[float, float]
    tip: tuple[float, float]
    width_mm: float = 85.0
    lift: float = 60.0


@dataclasses.dataclass(frozen=True)
class Lighting:
    """A lamp's light over the table: where it is brightest (mm), how fast it falls off, its
    warmth (-1 cool .. 1 warm), vignetting, and which tiles catch a glare."""

    lamp: tuple[float, float] = (0.0, 0.0)
    falloff_mm: float = 900.0
    strength: float = 0.35
    warmth: float = 0.0
    vignette: float = 0.3
    shadow_dir: tuple[float, float] = (0.35, -0.25)
    glare_tiles: tuple[int, ...] = ()


@dataclasses.dataclass(frozen=True)
class Table:
    """The table top: its kind, its size in mm, and the seed of its look (grain, colour), so
    every frame of a sequence shows the same table."""

    kind: TableKind = TableKind.WOOD
    width: float = 1200.0
    depth: float = 800.0
    seed: int = 0


@dataclasses.dataclass(frozen=True)
class Scene:
    """Everything on and over the table, in mm."""

    table: Table
    size: TileSize
    tiles: tuple[TilePose, ...]
    lighting: Lighting = Lighting()
    arm: ArmPose | None = None

    def with_arm(self, arm: ArmPose | None) -> Scene:
        return dataclasses.replace(self, arm=arm)


def rect_overlap(a: np.ndarray, b: np.ndarray, slack: float = 0.0) -> bool:
    """Whether two convex quads ((4, 2+) arrays) overlap by more than ``slack`` mm (SAT)."""
    pa, pb = a[:, :2], b[:, :2]
    for poly in (pa, pb):
        for i in range(4):
            edge = poly[(i + 1) % 4] - poly[i]
            normal = np.array([-edge[1], edge[0]])
            norm = float(np.hypot(*normal))
            if norm == 0:
                continue
            normal /= norm
            da, db = pa @ normal, pb @ normal
            if da.max() - slack <= db.min() or db.max() - slack <= da.min():
                return False
    return True


class Footprints:
    """Tiles already laid, for overlap tests: each tile's corners are computed once, and tiles
    too far away to touch are passed over before the exact test."""

    def __init__(self) -> None:
        self._corners: list[np.ndarray] = []
        self._centres = np.zeros((0, 2))
        self._radii = np.zeros(0)

    def add(self, corners: np.ndarray) -> None:
        centre = corners[:, :2].mean(axis=0)
        self._corners.append(corners)
        self._centres = np.vstack([self._centres, centre])
        self._radii = np.append(self._radii, np.linalg.norm(corners[:, :2] - centre, axis=1).max())

    def hits(self, corners: np.ndarray, slack: float = 0.0) -> bool:
        """Whether the quad ``corners`` overlaps any tile here by more than ``slack`` mm."""
        if not self._corners:
            return False
        centre = corners[:, :2].mean(axis=0)
        radius = np.linalg.norm(corners[:, :2] - centre, axis=1).max()
        near = np.nonzero(np.hypot(*(self._centres - centre).T) < radius + self._radii)[0]
        return any(rect_overlap(corners, self._corners[i], slack) for i in near)
