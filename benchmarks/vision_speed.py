"""How long detection takes on a 1920x1080 frame holding 28 tiles (a full double-six set: the
end-of-hand reveal, with the line of play, the hands laid open and the boneyard face down), on
one thread, and, measured side by side in the same run, the floor: grayscale, a 5x5 Gaussian
blur, an Otsu threshold and contour finding on the same frames.

The frames are rendered first (not timed). Then, round after round, each frame is detected and
floored back to back, so slow spells of this noisy machine hit both; the figures are medians,
and the ratio is the median of each frame's detect/floor ratio. Times are CPU time of this
process (OpenCV is held to one thread, so that is the time one core spends).

Run: .venv/bin/python benchmarks/vision_speed.py [--frames N] [--rounds R]
Last line: ``vision_speed: detect=N ms/frame floor=M ms/frame ratio=R``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial

import referee  # noqa: F401  # isort: skip  (before numpy loads: one BLAS thread, as in every referee command)
import cv2
import numpy as np

from referee.render.generate import Options
from referee.render.stills import render_still

TILES = 28


def frames(count: int) -> list[np.ndarray]:
    """``count`` unoccluded reveal frames showing all 28 tiles, from seeds 1, 2, ..."""
    options = Options(size=(1920, 1080), max_pips=6)
    out: list[np.ndarray] = []
    seed = 0
    while len(out) < count:
        seed += 1
        still = render_still("reveal", np.random.default_rng(seed), options)
        truth = still.truth
        if not truth["occluded"] and len(truth["tiles"]) + len(truth["face_down"]) == TILES:
            out.append(still.image)
    return out


def floor_once(image: np.ndarray) -> int:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    blurred = cv2.GaussianBlur(grey, (5, 5), 0)
    _, binary = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    return len(contours)


def ms_of(run: Callable[[], object]) -> float:
    clock = time.process_time
    start = clock()
    run()
    return (clock() - start) * 1000.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=6, help="frames rendered (default 6)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds over all frames (default 5)")
    args = parser.parse_args(argv)
    try:
        from referee.vision.detect import detect
    except ImportError as error:
        print(f"vision_speed: no detector to time ({error})", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    shots = frames(args.frames)
    for image in shots:  # warm-up: OpenCV start-up, caches, first-call costs
        detect(image)
        floor_once(image)
    detect_ms: list[float] = []
    floor_ms: list[float] = []
    ratios: list[float] = []
    for _ in range(args.rounds):
        for image in shots:
            d = ms_of(partial(detect, image))
            f = ms_of(partial(floor_once, image))
            detect_ms.append(d)
            floor_ms.append(f)
            ratios.append(d / max(f, 1e-6))
    found = [len(seen.tiles) + len(seen.face_down) for seen in map(detect, shots)]
    det, flo = statistics.median(detect_ms), statistics.median(floor_ms)
    print(f"frames: {len(shots)} x {args.rounds} rounds, 1920x1080, {TILES} tiles each "
          f"(detector found {', '.join(map(str, found))}); OpenCV threads: {cv2.getNumThreads()}")
    print(f"detect ms: min {min(detect_ms):.1f}, median {det:.1f}, max {max(detect_ms):.1f}")
    print(f"floor ms:  min {min(floor_ms):.1f}, median {flo:.1f}, max {max(floor_ms):.1f}")
    print(f"vision_speed: detect={det:.1f} ms/frame floor={flo:.1f} ms/frame ratio={statistics.median(ratios):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
