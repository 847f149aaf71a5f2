"""Evaluation totals by what a frame shows (``referee evaluate --by``): which kinds of frame,
tile sets, tables, frame sizes, camera tilts and tile sizes the detector fails on, as chesscog
counts its mistakes by kind. The renderer's truth names its scene; labelled photographs have
no scene, so only ``size`` and ``tile`` (from the frame and its labelled tiles) place them, and
the other factors put them in the group ``-``."""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.vision.evaluate import ImageScore, Totals, Truth, percent

#: The factors a frame can be grouped by.
FACTORS = ("kind", "style", "table", "size", "tilt", "tile")
#: Camera tilt bands, degrees from straight down (a band holds tilts from its bound up).
TILT_BANDS = (0.0, 8.0, 15.0)
#: Tile length bands, pixels of the full frame: below 40 the pips are a pixel or two across.
TILE_BANDS = (0.0, 40.0, 80.0, 160.0)
NONE = "-"


def _band(value: float, bounds: Sequence[float], unit: str) -> str:
    """The band ``value`` falls in, e.g. ``8-15 deg`` or ``160+ px``."""
    i = max(k for k, b in enumerate(bounds) if value >= b) if value >= bounds[0] else 0
    if i + 1 < len(bounds):
        return f"{bounds[i]:g}-{bounds[i + 1]:g} {unit}"
    return f"{bounds[i]:g}+ {unit}"


def groups_of(truth: Truth, scene: Mapping[str, Any] | None, truth_path: Path) -> dict[str, str]:
    """The group a frame falls in for each factor. ``scene`` is the truth file's ``scene`` (the
    renderer's; None for labelled photos); a frame of a rendered hand (a ``sequence.json``
    beside it) is of kind ``sequence``."""
    scene = scene if isinstance(scene, Mapping) else {}
    seen = scene.get("camera")
    camera: Mapping[str, Any] = seen if isinstance(seen, Mapping) else {}
    kind = scene.get("kind")
    if not isinstance(kind, str):
        kind = "sequence" if (truth_path.parent / "sequence.json").is_file() else NONE
    tilt = camera.get("tilt_deg")
    lengths = [t.length for t in truth.tiles]
    if lengths:
        tile = _band(statistics.median(lengths), TILE_BANDS, "px")
    else:
        mm, per = scene.get("tile_mm"), camera.get("px_per_mm")
        if isinstance(mm, list) and mm and isinstance(mm[0], int | float) and isinstance(per, int | float):
            tile = _band(float(mm[0]) * float(per), TILE_BANDS, "px")
        else:
            tile = NONE
    return {
        "kind": kind,
        "style": str(scene.get("style", NONE)),
        "table": str(scene.get("table", NONE)),
        "size": f"{truth.width}x{truth.height}",
        "tilt": _band(float(tilt), TILT_BANDS, "deg") if isinstance(tilt, int | float) else NONE,
        "tile": tile,
    }


def by_group(framed: Sequence[tuple[Mapping[str, str], ImageScore]], factor: str) -> dict[str, Totals]:
    """The totals of each group of ``factor``: bands and sizes in numeric order, then names in
    alphabetical order. ``framed`` pairs each frame's groups with its score."""
    if factor not in FACTORS:
        raise ValueError(f"unknown factor {factor!r}: expected one of {', '.join(FACTORS)}")
    parts: dict[str, list[ImageScore]] = {}
    for groups, score in framed:
        parts.setdefault(groups[factor], []).append(score)
    return {name: Totals.of(parts[name]) for name in sorted(parts, key=_order)}


def _order(name: str) -> tuple[float, str]:
    """Groups in order of the number they start with (bands, sizes), then by name."""
    digits = re.match(r"\d+(\.\d+)?", name)
    return (float(digits.group()) if digits else math.inf, name)


def format_groups(factor: str, groups: Mapping[str, Totals]) -> list[str]:
    """A table of one factor's groups: frames, tiles, recall, precision, both halves right (of
    found), silent wrong, uncertain, occluded frames recognised and false occlusion alarms."""
    width = max(len(factor), *(len(g) for g in groups)) if groups else len(factor)
    head = f"{factor:<{width}} {'frames':>6} {'tiles':>6} {'recall':>7} {'prec':>7} {'right':>7} " \
           f"{'wrong':>5} {'unsure':>6} {'occluded':>9} {'false':>5}"
    lines = [head]
    for name, t in groups.items():
        occluded = f"{t.occluded_recognised}/{t.occluded_truth}"
        lines.append(f"{name:<{width}} {t.images:>6} {t.tiles:>6} {percent(t.recall):>7} {percent(t.precision):>7} "
                     f"{percent(t.right_share):>7} {t.wrong:>5} {t.uncertain:>6} {occluded:>9} {t.occluded_false:>5}")
    return lines
