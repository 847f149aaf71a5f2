"""Tiles and tile sets.

A :class:`Tile` is an unordered pair of pip counts. Tiles are interned: ``Tile(3, 6)`` and
``Tile(6, 3)`` return the very same object, so tiles compare and hash by identity, which keeps
the engine's inner loops cheap. The higher half is always stored first.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

MAX_SUPPORTED_PIPS = 99
_TILE_TEXT = re.compile(r"^\s*(\d{1,2})\s*[-|:]\s*(\d{1,2})\s*$")


class Tile:
    """One domino tile, written ``"6-3"`` with the higher half first.

    >>> Tile(3, 6)
    Tile(6, 3)
    >>> Tile.parse("0-5").pips
    5
    """

    __slots__ = ("high", "index", "is_double", "low", "pips")
    _cache: ClassVar[dict[tuple[int, int], Tile]] = {}

    high: int
    low: int
    pips: int
    is_double: bool
    index: int

    def __new__(cls, a: int, b: int) -> Tile:
        key = (a, b) if a >= b else (b, a)
        tile = cls._cache.get(key)
        if tile is not None:
            return tile
        if not (isinstance(a, int) and isinstance(b, int)) or isinstance(a, bool) or isinstance(b, bool):
            raise TypeError(f"tile halves must be integers, got {a!r} and {b!r}")
        if not (key[1] >= 0 and key[0] <= MAX_SUPPORTED_PIPS):
            raise ValueError(f"tile halves must lie between 0 and {MAX_SUPPORTED_PIPS}, got {a}-{b}")
        tile = object.__new__(cls)
        high, low = key
        object.__setattr__(tile, "high", high)
        object.__setattr__(tile, "low", low)
        object.__setattr__(tile, "pips", high + low)
        object.__setattr__(tile, "is_double", high == low)
        # Index in the canonical order of a set: 0-0, 1-0, 1-1, 2-0, ... so that the tiles of a
        # double-n set are exactly the indices below (n + 1)(n + 2) / 2 for every n.
        object.__setattr__(tile, "index", high * (high + 1) // 2 + low)
        cls._cache[key] = tile
        return tile

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Read ``"a-b"`` (either order; ``|`` or ``:`` also separate the halves)."""
        a, b = parse_halves(text)
        return cls(a, b)

    def other(self, half: int) -> int:
        """The half opposite ``half``; raises ``ValueError`` if the tile does not show it."""
        if half == self.high:
            return self.low
        if half == self.low:
            return self.high
        raise ValueError(f"tile {self} has no half {half}")

    def __contains__(self, half: object) -> bool:
        return half == self.high or half == self.low

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Tile is immutable (tried to set {name})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Tile is immutable (tried to delete {name})")

    def __reduce__(self) -> tuple[type[Tile], tuple[int, int]]:
        return (Tile, (self.high, self.low))

    def __copy__(self) -> Tile:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Tile:
        return self

    def __hash__(self) -> int:
        return self.index

    def __lt__(self, other: Tile) -> bool:
        return self.index < other.index

    def __le__(self, other: Tile) -> bool:
        return self.index <= other.index

    def __gt__(self, other: Tile) -> bool:
        return self.index > other.index

    def __ge__(self, other: Tile) -> bool:
        return self.index >= other.index

    def __str__(self) -> str:
        return f"{self.high}-{self.low}"

    def __repr__(self) -> str:
        return f"Tile({self.high}, {self.low})"


_SETS: dict[int, tuple[Tile, ...]] = {}


def parse_halves(text: str) -> tuple[int, int]:
    """The two halves of ``"a-b"`` in the order written."""
    if not isinstance(text, str):
        raise ValueError(f"expected a tile like \"6-3\", got {text!r}")
    match = _TILE_TEXT.match(text)
    if match is None:
        raise ValueError(f"expected a tile like \"6-3\", got {text!r}")
    a, b = int(match.group(1)), int(match.group(2))
    if max(a, b) > MAX_SUPPORTED_PIPS:
        raise ValueError(f"tile {text!r} has more than {MAX_SUPPORTED_PIPS} pips on a half")
    return a, b


def tile_set(max_pips: int = 6) -> tuple[Tile, ...]:
    """Every tile of a double-``max_pips`` set, in canonical order (index order)."""
    tiles = _SETS.get(max_pips)
    if tiles is None:
        if not isinstance(max_pips, int) or not 0 <= max_pips <= 18:
            raise ValueError(f"max_pips must lie between 0 and 18, got {max_pips!r}")
        tiles = tuple(Tile(high, low) for high in range(max_pips + 1) for low in range(high + 1))
        _SETS[max_pips] = tiles
    return tiles


def set_size(max_pips: int) -> int:
    """Number of tiles in a double-``max_pips`` set: 28 for double-six."""
    return (max_pips + 1) * (max_pips + 2) // 2


def opening_rank(tile: Tile) -> tuple[int, int, int]:
    """Sort key for the opening of a first hand: doubles first (highest first), then weight."""
    return (1 if tile.is_double else 0, tile.pips, tile.high)
