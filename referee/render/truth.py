"""Ground truth for a rendered frame, in the shapes ``referee detect --json`` and
``referee layout --json`` print. Pixel coordinates are in the final, distorted image."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from referee.render.camera import Camera, CameraSpec
from referee.render.scene import TilePose, TileSize


def _pt(p: np.ndarray) -> list[float]:
    return [round(float(p[0]), 2), round(float(p[1]), 2)]


def tile_truth(pose: TilePose, size: TileSize, camera: Camera) -> dict[str, Any]:
    """One face-up tile: its pips, the pixel centre of each half, its top face's corners and
    centre."""
    z = size.thickness
    halves = camera.project(pose.halves(size, z))
    corners = camera.project(pose.corners(size, z))
    centre = camera.project(np.array([[pose.x, pose.y, z]]))[0]
    return {"pips": [pose.pips[0], pose.pips[1]], "halves": [_pt(h) for h in halves],
            "corners": [_pt(c) for c in corners], "center": _pt(centre)}


def face_down_truth(pose: TilePose, size: TileSize, camera: Camera) -> dict[str, Any]:
    z = size.thickness
    corners = camera.project(pose.corners(size, z))
    centre = camera.project(np.array([[pose.x, pose.y, z]]))[0]
    return {"center": _pt(centre), "corners": [_pt(c) for c in corners]}


def frame_truth(poses: Sequence[TilePose], size: TileSize, camera: Camera, occluded: bool,
                layout: dict[str, Any] | None, scene: dict[str, Any], glare: Sequence[int] = ()) -> dict[str, Any]:
    """The truth document of one frame. ``glare`` lists the poses that caught the lamp's glare;
    the truth names them in ``scene.glare_tiles`` as indices into its ``tiles``."""
    face_up = [i for i, p in enumerate(poses) if p.face_up]
    glare_set = set(glare)
    scene = {**scene, "glare_tiles": [n for n, i in enumerate(face_up) if i in glare_set]}
    return {
        "width": camera.spec.width,
        "height": camera.spec.height,
        "occluded": occluded,
        "tiles": [tile_truth(p, size, camera) for p in poses if p.face_up],
        "face_down": [face_down_truth(p, size, camera) for p in poses if not p.face_up],
        "layout": layout,
        "scene": scene,
    }


def camera_params(camera: Camera) -> dict[str, Any]:
    s = camera.spec
    return {
        "size": [s.width, s.height], "height_mm": round(s.height_mm, 1), "tilt_deg": round(s.tilt_deg, 2),
        "tilt_azimuth_deg": round(s.tilt_azimuth_deg, 1), "yaw_deg": round(s.yaw_deg, 1),
        "roll_deg": round(s.roll_deg, 2), "hfov_deg": round(s.hfov_deg, 2), "k1": round(s.k1, 4),
        "k2": round(s.k2, 4), "target_mm": [round(s.target[0], 1), round(s.target[1], 1)],
        "principal_offset": [round(s.principal_offset[0], 2), round(s.principal_offset[1], 2)],
        "K": [[round(float(v), 3) for v in row] for row in camera.K],
        "dist": [round(float(v), 5) for v in camera.dist],
        "px_per_mm": round(camera.px_per_mm(), 3),
    }


def camera_from_params(params: dict[str, Any]) -> Camera:
    """The camera a truth document's ``scene.camera`` describes (rounded as written)."""
    w, h = params["size"]
    spec = CameraSpec(int(w), int(h), params["height_mm"], params["tilt_deg"], params["tilt_azimuth_deg"],
                      params["yaw_deg"], params["roll_deg"], params["hfov_deg"], params["k1"], params["k2"],
                      (params["target_mm"][0], params["target_mm"][1]),
                      (params["principal_offset"][0], params["principal_offset"][1]))
    return Camera(spec)


#: Where each seat sits, as a direction on the table (degrees; the renderer's convention:
#: clockwise from the near edge, two players face each other).
SEAT_DIRECTIONS = {2: (270.0, 90.0), 3: (270.0, 180.0, 90.0), 4: (270.0, 180.0, 90.0, 0.0)}


def seat_angles(camera: Camera, players: int) -> tuple[float, ...]:
    """Each seat's edge as a direction in the image (degrees: 0 right, 90 down), as the person
    setting up the camera tells the referee (``--seats``)."""
    out = []
    for d in SEAT_DIRECTIONS[players]:
        a = math.radians(d)
        pts = camera.project(np.array([[0.0, 0.0, 0.0], [300 * math.cos(a), 300 * math.sin(a), 0.0]]))
        v = pts[1] - pts[0]
        out.append(round(math.degrees(math.atan2(float(v[1]), float(v[0]))) % 360.0, 1))
    return tuple(out)
