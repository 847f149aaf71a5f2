"""Random scenes for the renderer: every parameter drawn from a seeded generator and written
into the truth, so any frame can be made again."""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from referee.render.camera import Camera, CameraSpec, corner_radius, lens_folds
from referee.render.compose import Finish
from referee.render.layout import LineBuilder, reveal_row, scatter
from referee.render.scene import ArmPose, Lighting, Scene, Table, TilePose, TileSize, rect_overlap
from referee.render.styles import TableKind, TileLook, TileStyle
from referee.rules import Rules, Variant

SIZES: tuple[tuple[int, int], ...] = ((1280, 720), (1920, 1080), (4032, 3024))
#: The widest horizontal field of view aim() will open the lens to.
MAX_HFOV = 88.0


@dataclasses.dataclass(frozen=True)
class Options:
    """What the person asking for frames fixed; None means drawn at random."""

    style: TileStyle | None = None
    table: TableKind | None = None
    size: tuple[int, int] | None = None
    tilt_max: float = 20.0
    variant: str = "draw"
    players: int = 2
    max_pips: int = 6
    jpeg_quality: int | None = None


def rules_for(options: Options) -> Rules:
    """The rules of the games the renderer plays (partners is always four players)."""
    variant = Variant(options.variant)
    players = 4 if variant is Variant.PARTNERS else options.players
    return Rules(variant, players=players, max_pips=options.max_pips)


@dataclasses.dataclass(frozen=True)
class Setting:
    """A table, a set of tiles and a camera, kept for every frame of a sequence."""

    table: Table
    size: TileSize
    style: TileStyle
    pin: bool
    camera_spec: CameraSpec
    lighting: Lighting
    finish: Finish
    params: dict[str, Any]

    def look_for(self, seed: int) -> Any:
        """A function giving each tile its look: the set's style with a slight per-tile tint."""
        def look(pips: tuple[int, int]) -> TileLook:
            r = np.random.default_rng([seed, min(pips), max(pips)])
            # A few grey levels of difference between tiles; less on black, where it shows more.
            spread = 1.5 if self.style is TileStyle.BLACK else 4.0
            tint = tuple(float(v) for v in r.normal(0, spread, 3))
            gloss = 0.6 if self.style is TileStyle.BLACK else 0.3
            return TileLook(self.style, (tint[0], tint[1], tint[2]), self.pin, gloss)
        return look


def draw_setting(rng: np.random.Generator, options: Options) -> Setting:
    """A table, a tile set, lighting and the camera's resolution and lens (not yet aimed)."""
    style = options.style or TileStyle(str(rng.choice([s.value for s in TileStyle])))
    kind = options.table or TableKind(str(rng.choice([k.value for k in TableKind])))
    size = options.size or SIZES[int(rng.integers(len(SIZES)))]
    scale = float(rng.uniform(0.85, 1.15))
    tile = TileSize(48.0 * scale, 24.0 * scale, 7.5 * scale * float(rng.uniform(0.9, 1.1)))
    table = Table(kind, float(rng.uniform(1000, 1500)), float(rng.uniform(750, 1000)), int(rng.integers(2**31)))
    lighting = Lighting(
        lamp=(float(rng.uniform(-400, 400)), float(rng.uniform(-300, 300))),
        falloff_mm=float(rng.uniform(600, 1400)), strength=float(rng.uniform(0.15, 0.5)),
        warmth=float(rng.uniform(-0.6, 0.8)), vignette=float(rng.uniform(0.1, 0.45)),
        shadow_dir=(float(rng.uniform(-0.6, 0.6)), float(rng.uniform(-0.6, 0.6))))
    big = size[0] > 2500
    finish = Finish(blur_sigma=float(rng.uniform(0.2, 1.3)) * (2.0 if big else 1.0),
                    noise_sigma=float(rng.uniform(1.0, 4.5)), jpeg_quality=int(rng.integers(72, 96)))
    if options.jpeg_quality is not None:
        finish = dataclasses.replace(finish, jpeg_quality=options.jpeg_quality)
    k1, k2 = float(rng.uniform(-0.22, 0.04)), float(rng.uniform(-0.02, 0.06))
    # A real lens maps every pixel to one direction: redraw a lens that would fold over inside
    # the widest view aim() may choose.
    widest = corner_radius(size[0], size[1], MAX_HFOV) * 1.05
    while lens_folds(k1, k2, widest):
        k1, k2 = k1 * 0.8, max(k2, 0.0)
    spec = CameraSpec(
        width=size[0], height=size[1], height_mm=float(rng.uniform(600, 1100)),
        tilt_deg=float(rng.uniform(0, options.tilt_max)), tilt_azimuth_deg=float(rng.uniform(0, 360)),
        yaw_deg=float(rng.uniform(-180, 180)), roll_deg=float(rng.normal(0, 2.0)),
        hfov_deg=float(rng.uniform(58, 75)), k1=k1, k2=k2,
        principal_offset=(float(rng.normal(0, 6)), float(rng.normal(0, 6))))
    params = {
        "style": style.value, "table": kind.value, "table_size_mm": [round(table.width, 1), round(table.depth, 1)],
        "table_seed": table.seed, "tile_mm": [round(tile.length, 2), round(tile.width, 2), round(tile.thickness, 2)],
        "pin": bool(rng.random() < 0.5),
        "lighting": {"lamp_mm": [round(v, 1) for v in lighting.lamp], "falloff_mm": round(lighting.falloff_mm, 1),
                     "strength": round(lighting.strength, 3), "warmth": round(lighting.warmth, 3),
                     "vignette": round(lighting.vignette, 3),
                     "shadow_dir": [round(v, 3) for v in lighting.shadow_dir]},
        "finish": {"blur_sigma": round(finish.blur_sigma, 3), "noise_sigma": round(finish.noise_sigma, 3),
                   "jpeg_quality": finish.jpeg_quality},
    }
    return Setting(table, tile, style, bool(params["pin"]), spec, lighting, finish, params)


def aim(setting: Setting, poses: Sequence[TilePose], rng: np.random.Generator) -> Camera | None:
    """Point the camera at the tiles from a height that shows every one of them with a margin
    (raising it, then widening the lens, as someone setting up a camera would); None when no
    camera within reach shows them all."""
    spec = setting.camera_spec
    pts = np.concatenate([p.corners(setting.size, setting.size.thickness) for p in poses]) if poses else \
        np.zeros((1, 3))
    lo, hi = pts[:, :2].min(axis=0), pts[:, :2].max(axis=0)
    target = ((lo[0] + hi[0]) / 2 + float(rng.normal(0, 15)), (lo[1] + hi[1]) / 2 + float(rng.normal(0, 15)))
    border = 0.04 * min(spec.width, spec.height)
    height, hfov = spec.height_mm, spec.hfov_deg
    for _ in range(60):
        candidate = dataclasses.replace(spec, height_mm=height, hfov_deg=hfov, target=target)
        camera = Camera(candidate)
        if camera.visible(camera.project(pts), border).all():
            return camera
        if height < 1100:
            height = min(1100.0, height + 40.0)
        elif hfov < MAX_HFOV:
            hfov = min(MAX_HFOV, hfov + 2.0)
        else:
            break
    return None


def line_bounds(setting: Setting) -> tuple[float, float, float, float]:
    """Where the line of play may run: the table less a strip along each edge for the tiles the
    players lay face up in front of them at the end of the hand."""
    t, s = setting.table, setting.size
    m = s.length + 45.0
    return (-t.width / 2 + m, -t.depth / 2 + m, t.width / 2 - m, t.depth / 2 - m)


def line_scene(setting: Setting, rules_table: Any, rng: np.random.Generator,
               extra: Sequence[TilePose] = ()) -> tuple[LineBuilder, list[TilePose]]:
    """The line of play of a rules table laid out on the table."""
    t = setting.table
    builder = LineBuilder(setting.size, line_bounds(setting), rng, setting.look_for(t.seed))
    centre = (float(rng.normal(0, 40)), float(rng.normal(0, 30)))
    poses = builder.from_table(rules_table, centre, float(rng.uniform(0, 360)))
    return builder, list(poses) + list(extra)


def boneyard(setting: Setting, tiles: Sequence[tuple[int, int]], avoid: Sequence[TilePose],
             rng: np.random.Generator) -> list[TilePose]:
    """Face-down tiles in a loose heap beside the line, where there is room for them."""
    t, s = setting.table, setting.size
    if not tiles:
        return []
    look = setting.look_for(t.seed)
    # A heap about as big as the tiles need, tried at places around the line until one is free.
    side = math.sqrt(len(tiles)) * s.length * 1.25 + s.length
    if avoid:
        xs = [p.x for p in avoid]
        ys = [p.y for p in avoid]
        cx, cy, reach = float(np.mean(xs)), float(np.mean(ys)), max(np.ptp(xs), np.ptp(ys)) / 2
    else:
        cx, cy, reach = 0.0, 0.0, 0.0
    best: list[TilePose] = []
    for attempt in range(24):
        angle = float(rng.uniform(0, 2 * math.pi))
        distance = reach + side / 2 + 30.0 + 15.0 * attempt
        x, y = cx + math.cos(angle) * distance, cy + math.sin(angle) * distance
        x0, y0, x1, y1 = line_bounds(setting)  # the strip along the edges is for the reveal
        area = (max(x - side / 2, x0), max(y - side / 2, y0), min(x + side / 2, x1), min(y + side / 2, y1))
        if area[2] - area[0] < s.length * 2 or area[3] - area[1] < s.length * 2:
            continue
        placed = scatter(tiles, s, area, rng, look, face_up=False, avoid=avoid, spacing=2.0)
        if len(placed) == len(tiles):
            return placed
        if len(placed) > len(best):
            best = placed
    rest = list(tiles[len(best):])
    return best + scatter(rest, s, line_bounds(setting), rng, look, face_up=False, avoid=[*avoid, *best],
                          spacing=2.0)


def scattered_tiles(setting: Setting, rng: np.random.Generator, max_pips: int = 6) -> tuple[list[TilePose], Camera]:
    """Tiles of the set strewn face up (and a few face down) at any angle over the part of the
    table the camera sees."""
    all_pips = [(a, b) for a in range(max_pips + 1) for b in range(a + 1)]
    n = int(rng.integers(6, min(29, len(all_pips) + 1)))
    chosen = [all_pips[i] for i in rng.choice(len(all_pips), size=n, replace=False)]
    chosen = [(b, a) if rng.random() < 0.5 else (a, b) for a, b in chosen]
    t, size = setting.table, setting.size
    target = (float(rng.normal(0, 60)), float(rng.normal(0, 40)))
    camera = Camera(dataclasses.replace(setting.camera_spec, target=target))
    spec = camera.spec
    border = 0.05 * min(spec.width, spec.height)

    def seen(corners: np.ndarray) -> bool:
        top = corners.copy()
        top[:, 2] = size.thickness
        return bool(camera.visible(camera.project(top), border).all())

    area = (-t.width / 2 + 30, -t.depth / 2 + 30, t.width / 2 - 30, t.depth / 2 - 30)
    look = setting.look_for(t.seed)
    poses = scatter(chosen, size, area, rng, look, spacing=float(rng.uniform(1.0, 12.0)), inside=seen)
    downs = int(rng.integers(0, 5))
    return poses[downs:] + [dataclasses.replace(p, face_up=False) for p in poses[:downs]], camera


def arm_over(setting: Setting, target: tuple[float, float], rng: np.random.Generator) -> ArmPose:
    """An arm reaching from a table edge towards ``target``: from an edge far enough away that
    the arm crosses a good part of the view (a hand at the very edge hides nothing)."""
    t = setting.table
    along = float(rng.uniform(-0.4, 0.4))
    entries = [(along * t.width, -t.depth / 2 - 250), (-t.width / 2 - 250, along * t.depth),
               (along * t.width, t.depth / 2 + 250), (t.width / 2 + 250, along * t.depth)]
    far = [e for e in entries if math.hypot(e[0] - target[0], e[1] - target[1]) >= 550.0] or entries
    entry = far[int(rng.integers(len(far)))]
    tip = (target[0] + float(rng.normal(0, 30)), target[1] + float(rng.normal(0, 30)))
    return ArmPose((float(entry[0]), float(entry[1])), tip, float(rng.uniform(70, 100)), float(rng.uniform(40, 110)))


def with_glare(setting: Setting, scene: Scene, rng: np.random.Generator) -> Scene:
    """Mark a few tiles to catch the lamp's glare (more of them on a glossy set)."""
    n = len(scene.tiles)
    if n == 0 or rng.random() < 0.35:
        return scene
    k = int(rng.integers(1, max(2, n // 5)))
    chosen = tuple(int(i) for i in rng.choice(n, size=min(k, n), replace=False))
    return dataclasses.replace(scene, lighting=dataclasses.replace(scene.lighting, glare_tiles=chosen))


def random_seed(rng: np.random.Generator) -> random.Random:
    """A stdlib generator for the rules engine's bots, drawn from ``rng``."""
    return random.Random(int(rng.integers(2**63)))


def reveal_tiles(setting: Setting, hands: Sequence[Sequence[tuple[int, int]]], players: int,
                 rng: np.random.Generator, around: Sequence[TilePose] = ()) -> list[TilePose] | None:
    """Each player's remaining tiles face up in front of them: at their edge of the table, or
    nearer when the tiles in play leave room (players reach no further than they need). None
    when a row finds no free place."""
    t, s = setting.table, setting.size
    width, depth = t.width, t.depth
    if around:
        xs = np.array([abs(p.x) for p in around])
        ys = np.array([abs(p.y) for p in around])
        width = min(width, 2 * (float(xs.max()) + 1.5 * s.length + 40.0))
        depth = min(depth, 2 * (float(ys.max()) + 1.5 * s.length + 40.0))
    look = setting.look_for(t.seed)
    out: list[TilePose] = []
    for seat, pips in enumerate(hands):
        row = reveal_row(pips, seat, players, (t.width, t.depth), s, rng, look, [*around, *out])
        if row is None:
            return None
        # Bring the row in towards the tiles when there is room (reveal_row starts at the edge).
        out += _nearer(row, (width, depth), (t.width, t.depth), s, [*around, *out])
    return out


def _nearer(row: list[TilePose], near: tuple[float, float], table: tuple[float, float], size: TileSize,
            avoid: Sequence[TilePose]) -> list[TilePose]:
    """The row moved in towards the centre, as far as ``near`` says and ``avoid`` allows."""
    if not row:
        return row
    ux, uy = row[0].axis()
    along_y = abs(uy) > 0.5
    shift = ((table[1] - near[1]) if along_y else (table[0] - near[0])) / 2
    others = [o.corners(size) for o in avoid]
    while shift > 0:
        moved = [dataclasses.replace(p, x=p.x - ux * shift, y=p.y - uy * shift) for p in row]
        if not any(rect_overlap(m.corners(size), o, slack=-3.0) for m in moved for o in others):
            return moved
        shift -= 10.0
    return row
