"""How long the renderer takes for one 1920x1080 frame of a line of play with its boneyard, and,
measured side by side in the same run, the floor: the unavoidable per-frame work of warping a
full frame through the camera and the lens and encoding it as JPEG.

Run: .venv/bin/python benchmarks/render_speed.py [--frames N]
Last line: ``render_speed: frame=N ms floor=M ms ratio=R``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import cv2
import numpy as np

from referee.render.camera import Camera, CameraSpec
from referee.render.generate import Options
from referee.render.stills import render_still


def floor_once(camera: Camera, texture: np.ndarray) -> None:
    h = camera.plane_homography(0.0)
    canvas = cv2.warpPerspective(texture, h, (camera.spec.width, camera.spec.height))
    map_x, map_y = camera.lens_maps()
    image = cv2.remap(canvas, map_x, map_y, cv2.INTER_LINEAR)
    cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 88])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=12)
    args = parser.parse_args(argv)
    options = Options(size=(1920, 1080))
    render_still("line", np.random.default_rng(0), options)  # warm-up: OpenCV start, caches
    camera = Camera(CameraSpec(1920, 1080, height_mm=900, k1=-0.1))
    texture = np.random.default_rng(0).integers(0, 255, (1500, 2000, 3), dtype=np.uint8)
    frame_ms, floor_ms = [], []
    for seed in range(1, args.frames + 1):
        start = time.perf_counter()
        render_still("line", np.random.default_rng(seed), options)
        frame_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        floor_once(camera, texture)
        floor_ms.append((time.perf_counter() - start) * 1000)
    frame, floor = statistics.median(frame_ms), statistics.median(floor_ms)
    print(f"frames: {len(frame_ms)}; frame ms: min {min(frame_ms):.0f}, median {frame:.0f}, max {max(frame_ms):.0f}")
    print(f"render_speed: frame={frame:.0f} ms floor={floor:.0f} ms ratio={frame / floor:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
