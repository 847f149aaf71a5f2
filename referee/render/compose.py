"""Drawing a scene through a camera: the table, shadows, tiles as little boxes with their
faces, a lamp's light, an arm, then the lens, focus, sensor noise and JPEG."""

from __future__ import annotations

import dataclasses
import functools
import math

import cv2
import numpy as np

from referee.render import arm as arm_art
from referee.render import effects, sprites, textures
from referee.render.camera import Camera
from referee.render.scene import Scene, Table, TilePose
from referee.render.styles import TileLook, TileStyle


@dataclasses.dataclass(frozen=True)
class Finish:
    """What the camera and its processing add: focus blur (px), sensor noise (grey levels),
    JPEG quality (0 for a lossless frame)."""

    blur_sigma: float = 0.6
    noise_sigma: float = 2.0
    jpeg_quality: int = 88


def _premultiplied(sprite: np.ndarray) -> np.ndarray:
    """A straight-alpha uint8 BGRA sprite as float premultiplied alpha (0..1), which warps
    without dark fringes along the edges."""
    out = sprite.astype(np.float32) / 255.0
    out[:, :, :3] *= out[:, :, 3:4]
    return out


class _Canvas:
    """The undistorted image, with a margin so the lens has something to pull in."""

    def __init__(self, camera: Camera) -> None:
        self.camera = camera
        self.mx, self.my = camera.canvas_margin()
        self.width = camera.spec.width + 2 * self.mx
        self.height = camera.spec.height + 2 * self.my
        self.offset = (float(self.mx), float(self.my))

    def project(self, points: np.ndarray) -> np.ndarray:
        return self.camera.project_undistorted(points, self.offset)

    def homography(self, z: float) -> np.ndarray:
        return self.camera.plane_homography(z, self.offset)


def render(scene: Scene, camera: Camera, finish: Finish, rng: np.random.Generator) -> np.ndarray:
    """The frame a camera would take of ``scene``."""
    canvas = _Canvas(camera)
    image = _background(scene.table, camera).copy()
    image = _shadows(image, scene, canvas)
    image = _tiles(image, scene, canvas, rng)
    light = scene.lighting
    lamp = canvas.project(np.array([[light.lamp[0], light.lamp[1], 0.0]]))[0]
    ppm = camera.px_per_mm()
    image = effects.light_gradient(image, (float(lamp[0]), float(lamp[1])), light.falloff_mm * ppm,
                                   light.strength, light.warmth, rng)
    if scene.arm is not None:
        entry, tip = canvas.project(np.array([[*scene.arm.entry, scene.arm.lift], [*scene.arm.tip, scene.arm.lift]]))
        image, _ = arm_art.draw_arm(image, (float(entry[0]), float(entry[1])), (float(tip[0]), float(tip[1])),
                                           scene.arm.width_mm * ppm, rng)
    map_x, map_y = camera.lens_maps()
    image = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    image = effects.vignette(image, light.vignette)
    if finish.blur_sigma > 0:
        image = effects.focus_blur(image, finish.blur_sigma)
    if finish.noise_sigma > 0:
        image = effects.sensor_noise(image, finish.noise_sigma, rng)
    if finish.jpeg_quality:
        image = effects.jpeg(image, finish.jpeg_quality)
    return image


# -- the table ---------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4)
def _background(table: Table, camera: Camera) -> np.ndarray:
    """The table top (and the floor beyond its edges) as the canvas sees it; the same table
    through the same camera looks the same in every frame (and is drawn once)."""
    rng = np.random.default_rng(table.seed)
    canvas = _Canvas(camera)
    h0 = canvas.homography(0.0)
    inv = np.linalg.inv(h0)
    corners = np.array([[0, 0, 1], [canvas.width, 0, 1], [canvas.width, canvas.height, 1], [0, canvas.height, 1]],
                       dtype=np.float64)
    world = (inv @ corners.T).T
    world = world[:, :2] / world[:, 2:3]
    x0, y0 = world.min(axis=0) - 20
    x1, y1 = world.max(axis=0) + 20
    ppm = float(np.clip(canvas.camera.px_per_mm(), 0.6, 3.0))
    tw, th = math.ceil((x1 - x0) * ppm), math.ceil((y1 - y0) * ppm)
    texture = textures.floor_texture(tw, th, ppm, rng)
    # The table's rectangle in texture pixels (texture rows grow with y, like the world).
    tx0 = round((-table.width / 2 - x0) * ppm)
    tx1 = round((table.width / 2 - x0) * ppm)
    ty0 = round((-table.depth / 2 - y0) * ppm)
    ty1 = round((table.depth / 2 - y0) * ppm)
    cx0, cy0, cx1, cy1 = max(tx0, 0), max(ty0, 0), min(tx1, tw), min(ty1, th)
    if cx1 > cx0 and cy1 > cy0:
        texture[cy0:cy1, cx0:cx1] = textures.table_texture(table.kind, cx1 - cx0, cy1 - cy0, ppm, rng)
        edge = max(1, round(4 * ppm))
        cv2.rectangle(texture, (tx0, ty0), (tx1 - 1, ty1 - 1), (25, 25, 25), edge)
    to_world = np.array([[1 / ppm, 0, x0], [0, 1 / ppm, y0], [0, 0, 1]], dtype=np.float64)
    return cv2.warpPerspective(texture, h0 @ to_world, (canvas.width, canvas.height), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REFLECT)


def _shadows(image: np.ndarray, scene: Scene, canvas: _Canvas) -> np.ndarray:
    """Soft shadows each tile casts on the table, away from the lamp."""
    if not scene.tiles:
        return image
    mask = np.zeros((canvas.height, canvas.width), np.float32)
    sx, sy = scene.lighting.shadow_dir
    reach = scene.size.thickness
    for pose in scene.tiles:
        foot = pose.corners(scene.size, 0.0)
        foot[:, 0] += sx * reach
        foot[:, 1] += sy * reach
        pts = canvas.project(foot)
        cv2.fillConvexPoly(mask, np.round(pts * 4).astype(np.int32), 1.0, lineType=cv2.LINE_AA, shift=2)
    ppm = canvas.camera.px_per_mm()
    mask = cv2.GaussianBlur(mask, (0, 0), max(0.8, 2.5 * ppm))
    shade = 1.0 - 0.5 * mask[:, :, None]
    return np.clip(image.astype(np.float32) * shade, 0, 255).astype(np.uint8)


# -- the tiles ---------------------------------------------------------------------------------
def _tiles(image: np.ndarray, scene: Scene, canvas: _Canvas, rng: np.random.Generator) -> np.ndarray:
    out = image.astype(np.float32)
    size = scene.size
    ppm = canvas.camera.px_per_mm(size.thickness)
    # Twice the frame's scale, in steps of half a pixel per mm so that sprites are reused.
    sprite_ppm = float(np.clip(round(4.0 * ppm) / 2.0, 3.0, 12.0))
    cache: dict[tuple[tuple[int, int], bool, TileLook], np.ndarray] = {}
    centre = canvas.camera.centre
    looks = [pose.look or TileLook(TileStyle.IVORY) for pose in scene.tiles]
    # Every side wall first, then every top: a tilted camera sees a tile's wall rise above the
    # table, never above a neighbour's top face.
    for pose, look in zip(scene.tiles, looks, strict=True):
        _sides(out, pose, scene, canvas, look, centre)
    for pose, look in zip(scene.tiles, looks, strict=True):
        key = (pose.pips if pose.face_up else (0, 0), pose.face_up, look)
        sprite = cache.get(key)
        if sprite is None:
            # Seeded by the tile, so a tile looks the same in every frame it is in.
            tile_rng = np.random.default_rng([scene.table.seed, *pose.pips, int(pose.face_up)])
            if pose.face_up:
                sprite = _premultiplied(sprites.tile_top(pose.pips, look, size.length, size.width, sprite_ppm,
                                                         tile_rng))
            else:
                sprite = _premultiplied(sprites.tile_back(look, size.length, size.width, sprite_ppm, tile_rng))
            cache[key] = sprite
        _paste(out, sprite, pose, scene, canvas, sprite_ppm)
    result = np.clip(out, 0, 255).astype(np.uint8)
    for index in scene.lighting.glare_tiles:
        pose, look = scene.tiles[index], looks[index]
        if not pose.face_up:
            continue
        c = canvas.project(np.array([[pose.x, pose.y, size.thickness]]))[0]
        axes = (0.32 * size.length * ppm, 0.12 * size.width * ppm)
        # The highlight's angle follows the tile (and stays put from frame to frame).
        angle = float(-pose.angle + 25.0 * math.sin(pose.x + pose.y))
        result = effects.glare(result, (float(c[0]), float(c[1])), axes, angle, 0.35 + 0.4 * look.gloss)
    return result


def _sides(out: np.ndarray, pose: TilePose, scene: Scene, canvas: _Canvas, look: TileLook,
           camera_centre: np.ndarray) -> None:
    """The tile's side faces that the camera sees (a tilted camera sees more of them)."""
    size = scene.size
    bottom = pose.corners(size, 0.0)
    top = pose.corners(size, size.thickness)
    colour = np.array(sprites.tile_side_colour(look), dtype=np.float32)
    sx, sy = scene.lighting.shadow_dir
    for i in range(4):
        j = (i + 1) % 4
        face = np.array([bottom[i], bottom[j], top[j], top[i]])
        mid = face.mean(axis=0)
        edge = bottom[j] - bottom[i]
        normal = np.array([edge[1], -edge[0], 0.0])  # outward for counter-clockwise corners
        if float(normal @ (camera_centre - mid)) <= 0:
            continue
        n2 = normal[:2] / max(float(np.hypot(*normal[:2])), 1e-9)
        lit = 0.75 - 0.25 * float(n2 @ np.array([sx, sy]) / max(math.hypot(sx, sy), 1e-9))
        pts = canvas.project(face)
        cv2.fillConvexPoly(out, np.round(pts * 4).astype(np.int32), (colour * lit).tolist(), lineType=cv2.LINE_AA,
                           shift=2)


def _paste(out: np.ndarray, sprite: np.ndarray, pose: TilePose, scene: Scene, canvas: _Canvas,
           sprite_ppm: float) -> None:
    """Warp the top-face sprite onto the canvas where the tile's top lies."""
    size = scene.size
    ux, uy = pose.axis()
    vx, vy = -uy, ux
    hl, hw = size.length / 2, size.width / 2
    # Sprite pixel (u right, v down) -> world mm on the tile's top: u along the axis from half
    # 0, v against the tile's left-hand normal, so the face is not mirrored seen from above.
    to_world = np.array([
        [ux / sprite_ppm, -vx / sprite_ppm, pose.x - hl * ux + hw * vx],
        [uy / sprite_ppm, -vy / sprite_ppm, pose.y - hl * uy + hw * vy],
        [0.0, 0.0, 1.0],
    ])
    h = canvas.homography(size.thickness) @ to_world
    corners = canvas.project(pose.corners(size, size.thickness))
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 2
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, canvas.width), min(y1, canvas.height)
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], dtype=np.float64)
    warped = cv2.warpPerspective(sprite, shift @ h, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    alpha = warped[:, :, 3:4]
    roi = out[y0:y1, x0:x1]
    roi[:] = roi * (1 - alpha) + warped[:, :, :3] * 255.0
