"""One frame's tiles as the rules see them: the line of play from end to end (90-degree turns
included), the spinner and its arms, the open ends and their fives count; and what does not
belong to the line (touching halves that do not match, tiles against the middle of the line or
a closed side of a double, tiles lying apart), reported rather than forced in."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import Any

from referee.layout.geometry import Contact, Part, Piece, contacts, end_of, piece, side_of
from referee.rules.table import DOWN, LEFT, RIGHT, UP, Table
from referee.rules.tiles import Tile
from referee.vision.types import Detection

# A port is where a tile joins another: ("half", h) on a tile that is not a double, ("long", +1 or
# -1) on a double's long sides, ("end", h) on a double's short ends.
Port = tuple[str, int]


@dataclasses.dataclass(frozen=True)
class LayoutConfig:
    """Tolerances, in tile widths: ``reach`` the largest gap between touching tiles, ``middle``
    how near a long side's middle a touch counts as the middle, ``facing`` how much of a tile's
    end another must lie in front of to touch it; ``spinner``: whether the first
    double's short ends take tiles (All Fives), so a tile there belongs to the line."""

    reach: float = 0.5
    middle: float = 0.25
    facing: float = 0.2
    spinner: bool = True
    max_pips: int = 6

    def __post_init__(self) -> None:
        for name in ("reach", "middle", "facing"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and 0 < value < 1):
                raise ValueError(f"layout {name} must be a number between 0 and 1 (tile widths), got {value!r}")
        if not isinstance(self.spinner, bool):
            raise ValueError(f"layout spinner must be true or false, got {self.spinner!r}")
        if isinstance(self.max_pips, bool) or not isinstance(self.max_pips, int) or not 1 <= self.max_pips <= 18:
            raise ValueError(f"layout max_pips must be a whole number from 1 to 18, got {self.max_pips!r}")


@dataclasses.dataclass(frozen=True)
class Join:
    """Tiles ``a`` and ``b`` touch at ports ``pa`` and ``pb`` (``gap`` in tile widths)."""

    a: int
    pa: Port
    b: int
    pb: Port
    gap: float


@dataclasses.dataclass(frozen=True)
class Layout:
    """The table of one frame, in the shape ``referee layout --json`` prints. Tiles are written
    "a-b". ``mismatches`` pairs a line tile with a touching tile whose half does not match it
    (both written with the touching halves adjacent); ``misplaced`` holds a line tile, the tile
    against it and where ("middle" of the line, "closed_side" of a double, "crowded" when a
    second tile touches the same place); ``loose`` the face-up tiles apart from the line;
    ``uncertain`` the line's tiles vision could not read reliably."""

    line: tuple[str, ...] = ()
    spinner: int | None = None
    branches: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=lambda: {"up": (), "down": ()})
    open_ends: tuple[int, ...] = ()
    count: int = 0
    mismatches: tuple[tuple[str, str], ...] = ()
    misplaced: tuple[tuple[str, str, str], ...] = ()
    loose: tuple[str, ...] = ()
    uncertain: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"line": list(self.line), "spinner": self.spinner,
                "branches": {k: list(v) for k, v in self.branches.items()},
                "open_ends": list(self.open_ends), "count": self.count,
                "mismatches": [list(m) for m in self.mismatches],
                "misplaced": [list(m) for m in self.misplaced],
                "loose": list(self.loose), "uncertain": list(self.uncertain)}


def ports_of(pieces: list[Piece], found: Iterable[Contact]) -> tuple[list[Join], list[tuple[int, int, str]]]:
    """Contacts as joins between ports (one per pair of tiles, the tightest), and the contacts
    that cannot be joins: (touched tile, touching tile, "middle")."""
    best: dict[tuple[int, int], Join] = {}
    bad: list[tuple[int, int, str]] = []
    for c in found:
        a, b = pieces[c.tile], pieces[c.other]
        pa: Port = ("long", c.side) if c.side else ("end", c.half) if a.is_double else ("half", c.half)
        if c.side and c.part is Part.MIDDLE and not b.is_double:
            continue  # a double's side along another tile's side: they lie side by side
        # (two doubles side by side do touch: never legally, as no number has two doubles, so
        # such a join is always a mismatch, reported as one)
        if b.is_double:
            pb: Port = ("end", c.other_half) if c.part is Part.END else ("long", side_of(b, a.end_point(c.half)))
        elif c.part is Part.MIDDLE:
            bad.append((c.other, c.tile, "middle"))
            continue
        else:
            pb = ("half", c.other_half)
        key = (min(c.tile, c.other), max(c.tile, c.other))
        join = Join(c.tile, pa, c.other, pb, c.gap)
        if key not in best or join.gap < best[key].gap:
            best[key] = join
    return sorted(best.values(), key=lambda j: j.gap), bad


def value_at(p: Piece, port: Port) -> int:
    return p.pips[port[1]] if port[0] == "half" else p.pips[0]


def exit_port(p: Piece, port: Port) -> Port:
    """The port a line leaves ``p`` by when it enters at ``port``."""
    kind, k = port
    return (kind, -k) if kind == "long" else (kind, 1 - k)


def build(detection: Detection, config: LayoutConfig | None = None) -> Layout:
    """The line of play one frame shows."""
    config = config or LayoutConfig()
    pieces = [piece(i, t) for i, t in enumerate(detection.tiles)]
    if not pieces:
        return Layout()
    joins, bad = ports_of(pieces, contacts(pieces, config.reach, config.middle, config.facing))
    names = [p.name for p in pieces]
    misplaced: list[tuple[str, str, str]] = [(names[a], names[b], why) for a, b, why in bad]
    mismatched: list[tuple[int, Port, int, Port]] = []
    # One join per port; a join is followed only when its touching halves match.
    at: dict[tuple[int, Port], tuple[int, Port]] = {}
    for j in joins:
        pa, pb = pieces[j.a], pieces[j.b]
        if (j.a, j.pa) in at or (j.b, j.pb) in at:
            misplaced.append((names[j.b], names[j.a], "crowded"))
            continue
        va, vb = value_at(pa, j.pa), value_at(pb, j.pb)
        if va != vb and not (pa.uncertain or pb.uncertain):
            mismatched.append((j.b, j.pb, j.a, j.pa))
            continue
        at[(j.a, j.pa)] = (j.b, j.pb)
        at[(j.b, j.pb)] = (j.a, j.pa)
    component = _main_component(pieces, at, (detection.width / 2, detection.height / 2))
    table, order, branch_tiles = _lay(pieces, at, component, config, misplaced, names)
    snap = table.snapshot()
    line = tuple(f"{a}-{b}" for a, b in snap.line)
    branches = {k: tuple(f"{a}-{b}" for a, b in v) for k, v in snap.branches.items()}
    placed = set(order) | branch_tiles
    pairs = [(_facing(pieces[b], pb, last=True), _facing(pieces[a], pa, last=False)) if b in placed
             else (_facing(pieces[a], pa, last=True), _facing(pieces[b], pb, last=False))
             for b, pb, a, pa in mismatched]
    reported = {m[1] for m in misplaced} | {names[a] if b in placed else names[b] for b, _, a, _ in mismatched}
    loose = tuple(names[i] for i in range(len(pieces)) if i not in placed and names[i] not in reported)
    uncertain = tuple(names[i] for i in sorted(placed) if pieces[i].uncertain)
    return Layout(line, snap.spinner, branches, snap.open_ends, snap.count, tuple(pairs), tuple(misplaced), loose,
                  uncertain)


def _facing(p: Piece, port: Port, last: bool) -> str:
    """``p`` written "a-b" with the half at ``port`` last (the line's tile) or first (the tile
    touching it)."""
    if port[0] != "half":
        return p.name
    near, far = p.pips[port[1]], p.pips[1 - port[1]]
    return f"{far}-{near}" if last else f"{near}-{far}"


def _main_component(pieces: list[Piece], at: dict[tuple[int, Port], tuple[int, Port]],
                    centre: tuple[float, float]) -> list[int]:
    """The largest group of joined tiles (nearest the frame's centre on a tie)."""
    seen: set[int] = set()
    groups: list[list[int]] = []
    links: dict[int, list[int]] = {}
    for (a, _), (b, _) in at.items():
        links.setdefault(a, []).append(b)
    for start in range(len(pieces)):
        if start in seen:
            continue
        group, todo = [], [start]
        seen.add(start)
        while todo:
            i = todo.pop()
            group.append(i)
            for k in links.get(i, []):
                if k not in seen:
                    seen.add(k)
                    todo.append(k)
        groups.append(sorted(group))

    def key(g: list[int]) -> tuple[int, float]:
        x = sum(pieces[i].centre[0] for i in g) / len(g)
        y = sum(pieces[i].centre[1] for i in g) / len(g)
        return (-len(g), math.hypot(x - centre[0], y - centre[1]))

    return min(groups, key=key)


def _walk(pieces: list[Piece], at: dict[tuple[int, Port], tuple[int, Port]], start: int, port: Port,
          stop: set[int]) -> list[tuple[int, int]]:
    """The tiles beyond ``port`` of ``start``, outward, each with the value left open."""
    arm: list[tuple[int, int]] = []
    here = at.get((start, port))
    while here is not None and here[0] not in stop:
        i, entry = here
        stop.add(i)
        out = exit_port(pieces[i], entry)
        arm.append((i, value_at(pieces[i], out)))
        here = at.get((i, out))
    return arm


def _lay(pieces: list[Piece], at: dict[tuple[int, Port], tuple[int, Port]], component: list[int],
         config: LayoutConfig, misplaced: list[tuple[str, str, str]],
         names: list[str]) -> tuple[Table, list[int], set[int]]:
    """A rules table holding the component, laid outward from its root (the spinner when there
    is one), so the rules count the open ends."""
    used = {i: [p for (k, p) in at if k == i] for i in component}
    doubles = [i for i in component if pieces[i].is_double and any(p[0] == "long" for p in used[i])]
    spinners = [i for i in doubles if config.spinner and any(p[0] == "end" for p in used[i])]
    root: int
    if spinners:
        root = max(spinners, key=lambda i: len(used[i]))
    else:
        # The line starts at one of its ends: never at a tile hanging off a double's short end
        # (closed here: no double takes tiles there), which would leave the line unwalked.
        hanging = {at[(i, q)][0] for i in doubles for q in used[i] if q[0] == "end"}
        ends = [i for i in component if len(used[i]) <= 1 and i not in hanging]
        root = ends[0] if ends else component[0]
        if config.spinner and doubles:
            path = [root] + [i for i, _ in _walk(pieces, at, root, used[root][0], {root})] if used[root] else [root]
            middle = (len(path) - 1) / 2
            root = min(doubles, key=lambda i: abs(path.index(i) - middle) if i in path else 99)
    p = pieces[root]
    sides: list[Port]
    if root in doubles:
        sides = [("long", -1), ("long", 1)]
    elif not p.is_double:
        sides = [("half", 0), ("half", 1)]
    else:
        sides = [("end", 0), ("end", 1)]
    if len(used[root]) == 1 and used[root][0] == sides[0]:
        sides.reverse()  # an end tile as root: its open half starts the line
    stop = {root}
    arms = [_walk(pieces, at, root, q, stop) for q in sides]
    # Vision may read more pips than the set has (its default reads up to nine): the table
    # counts whatever was read rather than fail on it.
    top = max([config.max_pips, *(max(pieces[i].pips) for i in component)])
    table = Table(spinner_rule=config.spinner, max_pips=top)
    tile = Tile(*p.pips)
    table.place_opener(tile, value_at(p, sides[0]) if not p.is_double else None)
    for arm_index, arm in ((LEFT, arms[0]), (RIGHT, arms[1])):
        for i, outer in arm:
            table.place(Tile(*pieces[i].pips), arm_index, outer)
    branch_tiles: set[int] = set()
    spinner_i = root if root in spinners else None
    if spinner_i is not None:
        d = _direction(pieces, root, arms)
        for half in (0, 1):
            arm = _walk(pieces, at, root, ("end", half), stop)
            if not arm:
                continue
            if table.values[UP] < 0:  # the short ends open only once both long sides are taken
                misplaced.append((names[root], names[arm[0][0]], "closed_side"))
                continue
            toward = pieces[root].end_point(half)
            dx, dy = toward[0] - pieces[root].centre[0], toward[1] - pieces[root].centre[1]
            up = dx * d[1] - dy * d[0] > 0  # on the left hand walking from left to right
            for i, outer in arm:
                table.place(Tile(*pieces[i].pips), UP if up else DOWN, outer)
                branch_tiles.add(i)
    for i in component:
        if pieces[i].is_double and i != spinner_i and any(q[0] == "end" for q in used[i]) and i in doubles:
            for (k, q), (other, _) in at.items():
                if k == i and q[0] == "end":
                    misplaced.append((names[i], names[other], "closed_side"))
    order = [root] + [i for arm in arms for i, _ in arm]
    return table, order, branch_tiles


def _direction(pieces: list[Piece], root: int, arms: list[list[tuple[int, int]]]) -> tuple[float, float]:
    """The line's direction through the spinner, from its left arm to its right arm."""
    p = pieces[root]
    normal = (-p.axis[1], p.axis[0])
    if arms[1]:
        q = pieces[arms[1][0][0]].centre
        s = side_of(p, q)
        return (normal[0] * s, normal[1] * s)
    if arms[0]:
        q = pieces[arms[0][0][0]].centre
        s = -side_of(p, q)
        return (normal[0] * s, normal[1] * s)
    return normal


__all__ = ["Join", "Layout", "LayoutConfig", "build", "end_of", "exit_port", "ports_of", "value_at"]
