"""The line of play: the tiles on the table, their open ends and the spinner.

Ends are indexed 0..3 (left, right, up, down). Doubles lie crosswise: in the basic game only
their long sides take tiles, so along the line a double behaves like any tile. With a spinner
(the first double laid, in fives or by house rule) the double's two short ends open as ``up``
and ``down`` once both its long sides are taken.
"""

from __future__ import annotations

import dataclasses
import enum

from referee.rules.tiles import Tile


class End(enum.StrEnum):
    """An open end of the line of play."""

    LEFT = "left"
    RIGHT = "right"
    UP = "up"
    DOWN = "down"

    # Hash as the plain string (which it equals anyway): Enum's own __hash__ is Python code, and
    # ends are looked up on every play.
    __hash__ = str.__hash__

    def __repr__(self) -> str:
        return f"End.{self.name}"

    def __str__(self) -> str:
        return self.value


ENDS: tuple[End, End, End, End] = (End.LEFT, End.RIGHT, End.UP, End.DOWN)
END_INDEX: dict[End, int] = {end: i for i, end in enumerate(ENDS)}
LEFT, RIGHT, UP, DOWN = 0, 1, 2, 3
CLOSED = -1


@dataclasses.dataclass(frozen=True, slots=True)
class Play:
    """Lay ``tile`` at ``end``. ``end`` may be None when only one end fits. For the opening
    tile, ``left`` is the half shown at the left end (None: the higher half)."""

    tile: Tile
    end: End | None = None
    left: int | None = None

    def __repr__(self) -> str:
        args = [repr(self.tile)]
        if self.end is not None:
            args.append(repr(self.end))
        if self.left is not None:
            args.append(f"left={self.left}")
        return f"Play({', '.join(args)})"

    def __str__(self) -> str:
        if self.left is not None:
            text = f"{self.left}-{self.tile.other(self.left)}"
        else:
            text = str(self.tile)
        return f"{text} {self.end}" if self.end is not None else text


@dataclasses.dataclass(frozen=True, slots=True)
class LineOfPlay:
    """A snapshot of the table as the rules see it, in the shape ``referee layout`` prints.

    ``line`` runs from the left end to the right end, each tile written as ``(a, b)`` with ``b``
    touching the next tile's ``a``; ``branches`` hold the spinner's up and down arms, each
    written outward from the spinner.
    """

    line: tuple[tuple[int, int], ...]
    spinner: int | None
    branches: dict[str, tuple[tuple[int, int], ...]]
    open_ends: tuple[int, ...]
    count: int

    def to_dict(self) -> dict[str, object]:
        return {
            "line": [f"{a}-{b}" for a, b in self.line],
            "spinner": self.spinner,
            "branches": {k: [f"{a}-{b}" for a, b in v] for k, v in self.branches.items()},
            "open_ends": list(self.open_ends),
            "count": self.count,
        }


#: The line of play of an empty table.
EMPTY_LINE = LineOfPlay((), None, {"up": (), "down": ()}, (), 0)


class Table:
    """The tiles on the table. Mutable; :meth:`place` and :meth:`take_back` are exact inverses.

    The caller (a hand) checks legality; the table only keeps the geometry and the counts.
    """

    __slots__ = (
        "arms",
        "count",
        "doubles",
        "max_pips",
        "opener",
        "opener_left",
        "order",
        "size",
        "spinner",
        "spinner_rule",
        "values",
    )

    def __init__(self, spinner_rule: bool = False, max_pips: int = 6) -> None:
        self.spinner_rule = spinner_rule
        self.max_pips = max_pips
        #: Value of each open end, or CLOSED (-1).
        self.values: list[int] = [CLOSED, CLOSED, CLOSED, CLOSED]
        #: Whether the tile forming each end is a (crosswise) double.
        self.doubles: list[bool] = [False, False, False, False]
        #: Tiles laid on each arm, in order outward, as (tile, outer half).
        self.arms: tuple[list[tuple[Tile, int]], ...] = ([], [], [], [])
        self.opener: Tile | None = None
        self.opener_left = 0
        #: None, or (arm, position) of the spinner; arm -1 means the opening tile.
        self.spinner: tuple[int, int] | None = None
        #: Arms in the order tiles were laid (-1 for the opener), for take_back.
        self.order: list[int] = []
        #: Tiles on the table carrying each number.
        self.count: list[int] = [0] * (max_pips + 1)
        self.size = 0

    # -- reading -------------------------------------------------------------------------
    def open_ends(self) -> dict[End, int]:
        """Each open end and the number showing there."""
        return {ENDS[i]: v for i, v in enumerate(self.values) if v != CLOSED}

    def fives_count(self) -> int:
        """Sum of the open ends as All Fives counts them: a crosswise double at an end counts both
        halves, a lone opening double counts once, an empty spinner short end not at all."""
        if self.size == 0:
            return 0
        if self.size == 1 and self.opener is not None and self.opener.is_double:
            return self.opener.pips
        total = 0
        values, doubles, arms = self.values, self.doubles, self.arms
        for i in (LEFT, RIGHT, UP, DOWN):
            v = values[i]
            if v != CLOSED and (i < UP or arms[i]):
                total += 2 * v if doubles[i] else v
        return total

    def is_blocked(self) -> bool:
        """True when every tile carrying an open-end number is already on the table, so that no
        tile anywhere can ever be laid again."""
        if self.size == 0:
            return False
        full = self.max_pips + 1
        count = self.count
        for v in self.values:
            if v != CLOSED and count[v] != full:
                return False
        return True

    def snapshot(self) -> LineOfPlay:
        """The line of play end to end, as ``referee layout`` prints it."""
        if self.opener is None:
            return EMPTY_LINE
        left = [(outer, t.other(outer)) for t, outer in reversed(self.arms[LEFT])]
        right = [(t.other(outer), outer) for t, outer in self.arms[RIGHT]]
        opener = (self.opener_left, self.opener.other(self.opener_left))
        line = (*left, opener, *right)
        spinner: int | None = None
        if self.spinner is not None:
            arm, pos = self.spinner
            if arm == -1:
                spinner = len(left)
            elif arm == LEFT:
                spinner = len(left) - 1 - pos
            else:
                spinner = len(left) + 1 + pos
        branches = {
            "up": tuple((t.other(outer), outer) for t, outer in self.arms[UP]),
            "down": tuple((t.other(outer), outer) for t, outer in self.arms[DOWN]),
        }
        open_ends = tuple(v for i, v in enumerate(self.values)
                          if v != CLOSED and (i < UP or self.arms[i]))
        return LineOfPlay(line, spinner, branches, open_ends, self.fives_count())

    def spinner_tile(self) -> Tile | None:
        """The spinner, once there is one."""
        if self.spinner is None:
            return None
        arm, pos = self.spinner
        return self.opener if arm == -1 else self.arms[arm][pos][0]

    def _spinner_open(self) -> bool:
        """Both long sides of the spinner are taken."""
        if self.spinner is None:
            return False
        arm, pos = self.spinner
        if arm == -1:
            return bool(self.arms[LEFT]) and bool(self.arms[RIGHT])
        return len(self.arms[arm]) > pos + 1

    # -- changing ------------------------------------------------------------------------
    def place_opener(self, tile: Tile, left: int | None = None) -> None:
        left_half = tile.high if left is None else left
        self.opener = tile
        self.opener_left = left_half
        self.values[LEFT] = left_half
        self.values[RIGHT] = tile.other(left_half)
        self.doubles[LEFT] = self.doubles[RIGHT] = tile.is_double
        if tile.is_double and self.spinner_rule:
            self.spinner = (-1, 0)
        self.order.append(-1)
        self._count(tile, 1)
        self.size = 1

    def place(self, tile: Tile, i: int, outer: int) -> None:
        """Lay ``tile`` on end ``i`` with ``outer`` the half left open (the caller checked it)."""
        arm = self.arms[i]
        arm.append((tile, outer))
        self.values[i] = outer
        self.doubles[i] = tile.is_double
        self.order.append(i)
        count = self.count
        count[tile.high] += 1
        if not tile.is_double:
            count[tile.low] += 1
        self.size += 1
        if self.spinner_rule and i < UP:
            if self.spinner is None:
                if tile.is_double:
                    self.spinner = (i, len(arm) - 1)
            elif self.values[UP] == CLOSED and self._spinner_open():
                spinner = self.spinner_tile()
                assert spinner is not None
                self.values[UP] = self.values[DOWN] = spinner.high
                self.doubles[UP] = self.doubles[DOWN] = True

    def take_back(self) -> Tile:
        """Remove the tile laid last and return it."""
        i = self.order.pop()
        if i == -1:
            tile = self.opener
            assert tile is not None
            self.opener = None
            self.values[:] = [CLOSED, CLOSED, CLOSED, CLOSED]
            self.doubles[:] = [False, False, False, False]
            self.spinner = None
            self._count(tile, -1)
            self.size = 0
            return tile
        arm = self.arms[i]
        tile, _ = arm.pop()
        self._count(tile, -1)
        self.size -= 1
        if self.spinner is not None and self.spinner[0] == i and self.spinner[1] == len(arm):
            self.spinner = None
        self._refresh_end(i)
        if i < UP and self.values[UP] != CLOSED and not self._spinner_open():
            self.values[UP] = self.values[DOWN] = CLOSED
        return tile

    def _refresh_end(self, i: int) -> None:
        arm = self.arms[i]
        if arm:
            last, outer = arm[-1]
            self.values[i], self.doubles[i] = outer, last.is_double
        elif i < UP:
            assert self.opener is not None
            value = self.opener_left if i == LEFT else self.opener.other(self.opener_left)
            self.values[i], self.doubles[i] = value, self.opener.is_double
        else:
            spinner = self.spinner_tile()
            assert spinner is not None
            self.values[i], self.doubles[i] = spinner.high, True

    def _count(self, tile: Tile, step: int) -> None:
        self.count[tile.high] += step
        if not tile.is_double:
            self.count[tile.low] += step
