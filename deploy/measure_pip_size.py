"""How many pixels across a pip must be for the vision to read tiles: the rendered sample frames
(exact truth) shrunk step by step, as if filmed by a camera with fewer pixels, and read again.

    .venv/bin/python deploy/measure_pip_size.py [--scales 1,0.8,...]

Prints, per scale, the median pip diameter in pixels and the share of tiles read right (both
halves), and the share found at all. deploy/README.md quotes its result.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import cv2

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from referee.vision.config import VisionConfig  # noqa: E402
from referee.vision.detect import detect  # noqa: E402
from referee.vision.evaluate import match  # noqa: E402

#: The renderer drills pips 0.18 of the tile's width across (``referee/render/sprites.py``).
PIP_SHARE_OF_WIDTH = 0.18


def _scaled(truth: dict[str, Any], s: float) -> dict[str, Any]:
    def pt(p: list[float]) -> list[float]:
        return [p[0] * s, p[1] * s]
    tiles = [{"pips": t["pips"], "halves": [pt(h) for h in t["halves"]], "center": pt(t["center"])}
             for t in truth["tiles"]]
    return {"width": round(truth["width"] * s), "height": round(truth["height"] * s),
            "occluded": truth["occluded"], "tiles": tiles, "face_down": truth.get("face_down", [])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1,0.8,0.65,0.5,0.4,0.33,0.25")
    samples = REPO / "sample_images"
    parser.add_argument("--images", nargs="+", default=[str(samples / "stills"),
                                                         *map(str, sorted((samples / "sequences").iterdir()))],
                        help="folders of frames with truth files (default: every sample frame)")
    args = parser.parse_args()
    scales = [float(v) for v in args.scales.split(",")]
    cases = []
    for truth_path in sorted(p for folder in args.images for p in Path(folder).glob("*.json")):
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        if "scene" not in truth:
            continue
        image = cv2.imread(str(truth_path.with_suffix(".jpg")), cv2.IMREAD_COLOR)
        if image is None or truth.get("occluded"):
            continue
        scene = truth["scene"]
        pip_px = PIP_SHARE_OF_WIDTH * scene["tile_mm"][1] * scene["camera"]["px_per_mm"]
        cases.append((truth_path.stem, image, truth, pip_px))
    print("scale  pip px (median)  tile px (median)  found  both halves right")
    for s in scales:
        found = right = total = 0
        pips, tiles = [], []
        for _name, image, truth, pip_px in cases:
            small = image if s == 1 else cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
            score = match(detect(small, VisionConfig()), _scaled(truth, s))
            total += score.tiles
            found += score.matched
            right += score.right
            pips.append(pip_px * s)
            tiles.append(pip_px * s / PIP_SHARE_OF_WIDTH * 2)
        print(f"{s:5.2f}  {statistics.median(pips):15.1f}  {statistics.median(tiles):16.0f}  "
              f"{found / total:5.0%}  {right / total:17.0%}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
