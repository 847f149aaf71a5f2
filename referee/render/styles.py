"""Tile styles and table kinds the renderer knows, with their colours (BGR, 0-255)."""

from __future__ import annotations

import dataclasses
import enum


class TileStyle(enum.StrEnum):
    IVORY = "ivory"  # ivory tiles, black pips
    BLACK = "black"  # black tiles, white pips
    COLOURED = "coloured"  # ivory tiles, one pip colour per number

    def __repr__(self) -> str:
        return f"TileStyle.{self.name}"


class TableKind(enum.StrEnum):
    WOOD = "wood"
    FELT = "felt"
    LAMINATE = "laminate"
    CLOTH = "cloth"

    def __repr__(self) -> str:
        return f"TableKind.{self.name}"


#: Pip colour per number in the coloured style, as common sets have them (BGR).
PIP_COLOURS: dict[int, tuple[int, int, int]] = {
    0: (30, 30, 30),
    1: (200, 150, 40),   # light blue
    2: (60, 140, 40),    # green
    3: (40, 40, 200),    # red
    4: (40, 70, 120),    # brown
    5: (140, 40, 30),    # dark blue
    6: (30, 150, 220),   # orange
    7: (140, 40, 140),   # purple
    8: (110, 110, 30),   # teal
    9: (30, 30, 30),     # black
    10: (40, 40, 200),
    11: (60, 140, 40),
    12: (140, 40, 30),
}


@dataclasses.dataclass(frozen=True)
class TileLook:
    """What one tile looks like: its style, a per-tile tint (a small BGR offset), whether it has
    a brass centre pin, and how glossy it is (0..1, for glare)."""

    style: TileStyle
    tint: tuple[float, float, float] = (0.0, 0.0, 0.0)
    pin: bool = False
    gloss: float = 0.3
