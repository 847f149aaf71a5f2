"""``referee layout``: one frame's line of play as the rules see it, hooked into
``referee.cli.build_parser`` by ``add_parser``. Vision and OpenCV are imported only when the
command runs (and not at all with ``--truth``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.cli_vision import _settings, _settings_options, _user_error

if TYPE_CHECKING:
    from referee.layout import Layout
    from referee.vision.types import Detection

VARIANTS = ("draw", "block", "fives", "partners")
#: The variants whose first double is a spinner (its short ends take tiles).
SPINNER_VARIANTS = ("fives",)


def _from_truth(path: str) -> Detection:
    """The tiles of a truth file (the renderer's format, or ``referee detect --json``)."""
    from referee.vision.types import Detection

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise _user_error(f"cannot read truth file {path}: {getattr(error, 'strerror', None) or error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise _user_error(f"{path}: not valid JSON ({error.msg}, line {error.lineno})") from None
    if not isinstance(data, dict):
        raise _user_error(f"{path}: expected a JSON object with width, height and tiles (a truth file)")
    try:
        return Detection.from_json(data)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        what = f"missing {error}" if isinstance(error, KeyError) else str(error)
        raise _user_error(f"{path}: not a truth file of tiles ({what})") from None


def _from_image(path: str, args: argparse.Namespace) -> Detection:
    from referee.cli_vision import _detector
    from referee.vision.images import ImageError, check_readable, read_image

    try:
        check_readable(path)
    except ImageError as error:
        raise _user_error(str(error)) from None
    config, profile = _settings(args)
    try:
        image = read_image(path)
    except ImageError as error:
        raise _user_error(str(error)) from None
    return _detector(config, profile)(image)


def describe(path: str, layout: Layout) -> list[str]:
    """Readable lines: the line end to end with the spinner in brackets, its arms, the open
    ends and their count; then whatever does not fit."""
    if not layout.line:
        lines = [f"{path}: no line of play"]
    else:
        tiles = [f"[{t}]" if n == layout.spinner else t for n, t in enumerate(layout.line)]
        n = len(layout.line) + sum(len(b) for b in layout.branches.values())
        lines = [f"{path}: {n} tile{'' if n == 1 else 's'} in the line: {' '.join(tiles)}"]
        if layout.spinner is not None:
            arms = "; ".join(f"{k} {' '.join(v) if v else '-'}" for k, v in layout.branches.items())
            lines.append(f"  spinner {layout.line[layout.spinner]} (in brackets), branches: {arms}")
        ends = " ".join(str(v) for v in layout.open_ends)
        lines.append(f"  open ends: {ends}; count {layout.count}")
    for line_tile, other in layout.mismatches:
        lines.append(f"  mismatch: {other} touches {line_tile} with a half that does not match")
    for line_tile, other, why in layout.misplaced:
        where = {"middle": "the middle of", "closed_side": "a closed side of",
                 "crowded": "a place already taken on"}.get(why, why)
        lines.append(f"  misplaced: {other} against {where} {line_tile}")
    if layout.loose:
        lines.append(f"  loose: {' '.join(layout.loose)}")
    if layout.uncertain:
        lines.append(f"  uncertain (read unreliably): {' '.join(layout.uncertain)}")
    return lines


def cmd_layout(args: argparse.Namespace) -> int:
    from referee.layout import LayoutConfig, build

    detection = _from_truth(args.image) if args.truth else _from_image(args.image, args)
    if detection.occluded:
        if args.json:
            print(json.dumps({"occluded": True}))
        else:
            print(f"{args.image}: occluded (a hand or arm over the table); frame ignored")
        return 0
    layout = build(detection, LayoutConfig(spinner=args.variant in SPINNER_VARIANTS))
    if args.json:
        print(json.dumps(layout.to_json()))
    else:
        print("\n".join(describe(args.image, layout)))
    return 0


def add_parser(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``layout`` to the ``referee`` command's subparsers."""
    lay = sub.add_parser("layout", help="the line of play one frame shows, as the rules see it",
                         description="Find the tiles in IMAGE and read the line of play from how they touch: "
                                     "the line end to end (through 90-degree turns and crosswise doubles), the "
                                     "spinner and its branches, the open ends and their count; and the tiles "
                                     "that do not fit (mismatched halves, misplaced or loose tiles) and those "
                                     "read unreliably.")
    lay.add_argument("image", metavar="IMAGE", help="a .jpg or .png frame (with --truth: a truth JSON file)")
    lay.add_argument("--json", action="store_true",
                     help="one line of JSON: line, spinner, branches, open_ends, count, mismatches, misplaced, "
                          "loose, uncertain ({\"occluded\": true} for an occluded frame)")
    lay.add_argument("--variant", choices=VARIANTS, default="fives",
                     help="the game played (default fives): in fives the first double is a spinner")
    _settings_options(lay)
    lay.add_argument("--truth", action="store_true",
                     help="read IMAGE as a truth file (the renderer's JSON) instead of an image, so the "
                          "layout works on exact tiles")
    lay.set_defaults(func=cmd_layout)
