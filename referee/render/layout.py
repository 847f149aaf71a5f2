"""Where tiles lie: a line of play laid by hand from a rules table, scattered tiles, the
boneyard and the end-of-hand reveal. Everything in mm on the table. Nothing is laid on another
tile: a line that finds no room says so (``LineBuilder.crowded``) and the caller deals again."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from referee.render.scene import Footprints, TilePose, TileSize, rect_overlap
from referee.render.styles import TileLook
from referee.rules import Tile
from referee.rules.table import DOWN, LEFT, RIGHT, UP, Table

LookFor = Callable[[tuple[int, int]], TileLook]


def _rot(d: tuple[float, float], deg: float) -> tuple[float, float]:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return d[0] * c - d[1] * s, d[0] * s + d[1] * c


def _angle(d: tuple[float, float]) -> float:
    return math.degrees(math.atan2(d[1], d[0]))


class _Cursor:
    """Where the next tile of one arm goes: the end point of the arm and its direction."""

    def __init__(self, x: float, y: float, d: tuple[float, float]) -> None:
        self.x, self.y, self.d = x, y, d


class LineBuilder:
    """Lays the line of play tile by tile as people do: end to end, doubles crosswise, small
    gaps and angle jitter, turning 90 degrees before the table's edge; the spinner's up and down
    arms leave from its short ends. Poses never move once laid, so frames of a sequence agree."""

    def __init__(self, size: TileSize, bounds: tuple[float, float, float, float], rng: np.random.Generator,
                 look_for: LookFor, jitter: float = 1.0) -> None:
        self.size, self.bounds, self.rng, self.look_for, self.jitter = size, bounds, rng, look_for, jitter
        self.poses: list[TilePose] = []
        self._laid = Footprints()
        self.cursors: dict[int, _Cursor] = {}
        self.spinner_pose: TilePose | None = None
        #: Tiles that had to be laid where they did not fit (touching another, or off the table).
        self.crowded = 0

    # -- the opener and the arms ---------------------------------------------------------------
    def opener(self, tile: Tile, left: int, centre: tuple[float, float], direction_deg: float) -> TilePose:
        d = _rot((1.0, 0.0), direction_deg)
        x, y = centre
        if tile.is_double:
            pips = (tile.high, tile.low)
            pose = TilePose(pips, x, y, direction_deg + 90, True, self.look_for(pips))
            ext = self.size.width
        else:
            pips = (left, tile.other(left))
            pose = TilePose(pips, x, y, direction_deg, True, self.look_for(pips))
            ext = self.size.length
        self.cursors[RIGHT] = _Cursor(x + d[0] * ext / 2, y + d[1] * ext / 2, d)
        self.cursors[LEFT] = _Cursor(x - d[0] * ext / 2, y - d[1] * ext / 2, (-d[0], -d[1]))
        self._lay_down(pose)
        return pose

    def open_spinner(self, spinner: TilePose, line_dir: tuple[float, float]) -> None:
        """Start the up and down arms from the spinner's short ends."""
        half = self.size.length / 2
        for arm, turn in ((UP, 90.0), (DOWN, -90.0)):
            d = _rot(line_dir, turn)
            self.cursors[arm] = _Cursor(spinner.x + d[0] * half, spinner.y + d[1] * half, d)

    def add(self, arm: int, tile: Tile, outer: int, commit: bool = True) -> TilePose:
        """Lay ``tile`` at the end of ``arm`` with ``outer`` left open. ``commit=False`` only
        says where it would go (an illegal tile put down and taken back)."""
        cur = self.cursors[arm]
        inner = tile.other(outer)
        rng = self.rng
        gap = float(rng.uniform(0.0, 1.6)) * self.jitter
        drift = float(rng.normal(0.0, 1.2)) * self.jitter
        d = _rot(cur.d, drift)
        if tile.is_double:
            pose, end = self._straight(cur, d, tile, inner, outer, gap, crosswise=True)
        else:
            pose, end = self._straight(cur, d, tile, inner, outer, gap, crosswise=False)
            # Turn before the edge (or another arm) while there is still room for a double
            # next: a double lies across the line and cannot turn a corner itself.
            if not (self._fits(pose) and self._room_after(end)):
                turned, turned_end = self._turn(cur, d, tile, inner, outer, gap)
                # Keep going straight when the corner is worse off than the straight tile.
                if self._fits(turned) or not self._fits(pose):
                    pose, end = turned, turned_end
        if commit:
            if not self._fits(pose):
                self.crowded += 1  # nothing fitted: the caller deals again rather than stack tiles
            self._lay_down(pose)
            self.cursors[arm] = end
        return pose

    def _straight(self, cur: _Cursor, d: tuple[float, float], tile: Tile, inner: int, outer: int,
                  gap: float, crosswise: bool) -> tuple[TilePose, _Cursor]:
        ext = self.size.width if crosswise else self.size.length
        cx, cy = cur.x + d[0] * (gap + ext / 2), cur.y + d[1] * (gap + ext / 2)
        jitter = float(self.rng.normal(0.0, 1.5)) * self.jitter
        if crosswise:
            pose = TilePose((inner, outer), cx, cy, _angle(d) + 90 + jitter, True, self.look_for((inner, outer)))
        else:
            pose = TilePose((inner, outer), cx, cy, _angle(d) + jitter, True, self.look_for((inner, outer)))
        return pose, _Cursor(cur.x + d[0] * (gap + ext), cur.y + d[1] * (gap + ext), d)

    def _turn(self, cur: _Cursor, d: tuple[float, float], tile: Tile, inner: int, outer: int,
              gap: float) -> tuple[TilePose, _Cursor]:
        """The snake's corner: the tile turns 90 degrees, its touching half just past the end."""
        w = self.size.width
        x0, y0, x1, y1 = self.bounds
        centre = ((x0 + x1) / 2, (y0 + y1) / 2)
        options = []
        for turn in (90.0, -90.0):
            d2 = _rot(d, turn)
            px, py = cur.x + d[0] * (gap + w / 2), cur.y + d[1] * (gap + w / 2)
            cx, cy = px + d2[0] * w / 2, py + d2[1] * w / 2
            pose = TilePose((inner, outer), cx, cy, _angle(d2) + float(self.rng.normal(0, 1.5)) * self.jitter,
                            True, self.look_for((inner, outer)))
            end = _Cursor(px + d2[0] * (1.5 * w + gap), py + d2[1] * (1.5 * w + gap), d2)
            room = (centre[0] - cx) * d2[0] + (centre[1] - cy) * d2[1]  # heading inward is better
            options.append((self._fits(pose) and self._room_after(end), self._fits(pose), room, pose, end))
        options.sort(key=lambda o: (o[0], o[1], o[2]), reverse=True)
        return options[0][3], options[0][4]

    def _room_after(self, end: _Cursor) -> bool:
        """Whether a double laid next at ``end``, and a tile after it, would fit: a double lies
        across the line and cannot turn a corner itself."""
        w, length = self.size.width, self.size.length
        double = TilePose((0, 0), end.x + end.d[0] * w / 2, end.y + end.d[1] * w / 2, _angle(end.d) + 90, True)
        reach = w + length / 2
        after = TilePose((0, 0), end.x + end.d[0] * reach, end.y + end.d[1] * reach, _angle(end.d), True)
        return self._fits(double) and self._fits(after)

    def _fits(self, pose: TilePose) -> bool:
        corners = pose.corners(self.size)
        x0, y0, x1, y1 = self.bounds
        if corners[:, 0].min() < x0 or corners[:, 0].max() > x1 or corners[:, 1].min() < y0 or corners[:, 1].max() > y1:
            return False
        return not self._laid.hits(corners, slack=0.5)

    def _lay_down(self, pose: TilePose) -> None:
        self.poses.append(pose)
        self._laid.add(pose.corners(self.size))

    # -- a whole table -----------------------------------------------------------------------
    def from_table(self, table: Table, centre: tuple[float, float], direction_deg: float) -> list[TilePose]:
        """Lay every tile of a rules table in the order it was played."""
        counts = [0, 0, 0, 0]
        for arm in table.order:
            self._lay(table, arm, counts[arm] if arm >= 0 else 0, centre, direction_deg)
            if arm >= 0:
                counts[arm] += 1
        return self.poses

    def place(self, table: Table, arm: int, centre: tuple[float, float], direction_deg: float) -> TilePose:
        """Lay the tile just played on ``arm`` of ``table`` (-1: the opener)."""
        return self._lay(table, arm, len(table.arms[arm]) - 1 if arm >= 0 else 0, centre, direction_deg)

    def _lay(self, table: Table, arm: int, position: int, centre: tuple[float, float],
             direction_deg: float) -> TilePose:
        """Lay tile ``position`` of ``arm`` of ``table`` (arm -1: the opener)."""
        if arm == -1:
            assert table.opener is not None
            pose = self.opener(table.opener, table.opener_left, centre, direction_deg)
        else:
            tile, outer = table.arms[arm][position]
            pose = self.add(arm, tile, outer)
        self._note_spinner(table, arm, position)
        return pose

    def _note_spinner(self, table: Table, arm: int, position: int) -> None:
        """Once the spinner is laid, prepare its up and down arms (the rules open them later)."""
        if table.spinner == (arm, position) and self.spinner_pose is None:
            pose = self.poses[-1]
            self.spinner_pose = pose
            # The spinner lies across the line; along the left arm tiles are laid right to left,
            # and "up" is to the left of the line read from its left end to its right end.
            along = _rot((1.0, 0.0), pose.angle - 90)
            self.open_spinner(pose, (-along[0], -along[1]) if arm == LEFT else along)


def scatter(pips: Sequence[tuple[int, int]], size: TileSize, area: tuple[float, float, float, float],
            rng: np.random.Generator, look_for: LookFor, face_up: bool = True,
            avoid: Sequence[TilePose] = (), spacing: float = 4.0,
            inside: Callable[[np.ndarray], bool] | None = None) -> list[TilePose]:
    """Tiles at random positions and angles inside ``area`` (and, if given, where ``inside``
    accepts the tile's corners), none overlapping (rejection)."""
    x0, y0, x1, y1 = area
    placed: list[TilePose] = []
    laid = Footprints()
    for other in avoid:
        laid.add(other.corners(size))
    for p in pips:
        for _ in range(400):
            pose = TilePose(p, float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1)),
                            float(rng.uniform(0, 360)), face_up, look_for(p))
            corners = pose.corners(size)
            if corners[:, 0].min() < x0 or corners[:, 0].max() > x1 or corners[:, 1].min() < y0 \
                    or corners[:, 1].max() > y1:
                continue
            if inside is not None and not inside(corners):
                continue
            grown = _grow(corners, spacing)
            if not laid.hits(grown):
                placed.append(pose)
                laid.add(corners)
                break
    return placed


def _grow(corners: np.ndarray, by: float) -> np.ndarray:
    centre = corners.mean(axis=0)
    out = corners.copy()
    vec = corners - centre
    norm = np.linalg.norm(vec[:, :2], axis=1, keepdims=True)
    out[:, :2] = corners[:, :2] + vec[:, :2] / np.maximum(norm, 1e-9) * by
    return out


def reveal_row(pips: Sequence[tuple[int, int]], seat: int, players: int, table_size: tuple[float, float],
               size: TileSize, rng: np.random.Generator, look_for: LookFor,
               avoid: Sequence[TilePose] = ()) -> list[TilePose] | None:
    """A player's remaining tiles laid face up in a row in front of them, each pointing at the
    centre, as near the centre as ``avoid`` allows (never beyond the table's edge: None if there
    is no room). Seats go clockwise from the near edge: 0 bottom, then left, top, right (two
    players: bottom and top)."""
    w, h = table_size
    edges = {2: [270.0, 90.0], 3: [270.0, 180.0, 90.0], 4: [270.0, 180.0, 90.0, 0.0]}
    direction = edges.get(players, edges[4])[seat % 4] if players <= 4 else 270.0 - 360.0 * seat / players
    out_d = _rot((1.0, 0.0), direction)
    edge = h / 2 if abs(out_d[1]) > 0.5 else w / 2
    along = _rot(out_d, 90.0)
    n = len(pips)
    step = size.width + 6.0
    offsets = [(k - (n - 1) / 2) * step + float(rng.normal(0, 1.0)) for k in range(n)]
    turns = [direction + float(rng.normal(0, 2.0)) for _ in range(n)]
    others = [o.corners(size) for o in avoid]
    reach = edge - size.length / 2 - 25.0
    while reach + size.length / 2 <= edge - 5.0:
        poses = [TilePose(p, out_d[0] * reach + along[0] * off, out_d[1] * reach + along[1] * off, turn, True,
                          look_for(p)) for p, off, turn in zip(pips, offsets, turns, strict=True)]
        if not any(rect_overlap(_grow(pose.corners(size), 3.0), o) for pose in poses for o in others):
            return poses
        reach += 10.0
    return None
