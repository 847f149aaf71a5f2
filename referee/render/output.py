"""Writing rendered frames and their truth to a folder (never over existing files)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.render.generate import Options
from referee.render.sequence import plan_hand, render_plan
from referee.render.stills import render_still
from referee.render.truth import camera_params


class OutputExists(FileExistsError):
    """A file the renderer would write is already there."""


def _write_image(path: Path, image: np.ndarray, quality: int) -> None:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise OSError(f"could not encode {path}")
    with open(path, "xb") as out:
        out.write(data.tobytes())


def _write_json(path: Path, data: dict[str, Any]) -> None:
    with open(path, "x", encoding="utf-8") as out:
        json.dump(data, out, indent=1)
        out.write("\n")


def _check_free(paths: list[Path]) -> None:
    for path in paths:
        if path.exists():
            raise OutputExists(f"{path} already exists; the renderer never overwrites: choose an empty folder")


def write_stills(kind: str, count: int, seed: int, out: Path, options: Options,
                 progress: Callable[[int], None] | None = None) -> list[Path]:
    """Render ``count`` frames of ``kind``; frame i depends only on (seed, i)."""
    stems = [out / f"{kind}-{seed}-{i:04d}" for i in range(count)]
    _check_free([s.with_suffix(".jpg") for s in stems] + [s.with_suffix(".json") for s in stems])
    out.mkdir(parents=True, exist_ok=True)
    for i, stem in enumerate(stems):
        rng = np.random.default_rng([seed, i])
        still = render_still(kind, rng, options)
        still.truth["scene"]["seed"] = [seed, i]  # default_rng([seed, i]) makes this frame again
        quality = int(still.truth["scene"]["finish"]["jpeg_quality"])
        _write_image(stem.with_suffix(".jpg"), still.image, quality)
        _write_json(stem.with_suffix(".json"), still.truth)
        if progress is not None:
            progress(i + 1)
    return [s.with_suffix(".jpg") for s in stems]


def write_sequences(count: int, seed: int, out: Path, options: Options, illegal: bool,
                    progress: Callable[[int], None] | None = None, hold: int | None = None) -> list[Path]:
    """Render ``count`` whole hands, each into its own folder with a sequence.json. ``hold``:
    frames of every table state (as a camera sees it for a while); default 2, and 1 after a
    draw or a take-back."""
    folders = [out / f"sequence-{seed}-{i:03d}" for i in range(count)]
    _check_free(folders)
    for i, folder in enumerate(folders):
        rng = np.random.default_rng([seed, i])
        plan = plan_hand(rng, options, illegal=illegal, hold=hold)
        folder.mkdir(parents=True)
        frames = []
        for n, (image, truth) in enumerate(render_plan(plan, rng)):
            name = f"frame-{n:04d}"
            _write_image(folder / f"{name}.jpg", image, int(truth["scene"]["finish"]["jpeg_quality"]))
            truth["scene"]["seed"] = [seed, i]
            _write_json(folder / f"{name}.json", truth)
            frames.append({"frame": n, "file": f"{name}.jpg", "occluded": truth["occluded"]})
        # The file is the hand's game record (referee check reads it as it is), with the frames,
        # the events a referee should report and the scene beside the record's own keys.
        _write_json(folder / "sequence.json", {**plan.record, "frames": frames, "events": list(plan.events),
                                               "scene": {**plan.setting.params, "seed": [seed, i],
                                                         "camera": camera_params(plan.camera)}})
        if progress is not None:
            progress(i + 1)
    return folders
