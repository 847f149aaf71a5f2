"""``referee calibrate``: a profile for one camera over one table, from a frame showing the four
markers and, optionally, checkerboard frames for the lens. Every user error is one line on
stderr and exit 2 (raised as ``UserError``)."""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path
from typing import Any

PROFILES = Path("calibration") / "profiles"
SHEET = Path("calibration") / "markers.json"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def _pair(kind: type, what: str, low: float) -> Any:
    def parse(text: str) -> tuple[Any, Any]:
        try:
            a, b = (kind(v) for v in text.lower().split("x"))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not (a >= low and b >= low):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return a, b
    return parse


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a size in mm, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a size in mm above 0, got {text!r}")
    return value


def add_parser(sub: Any) -> None:
    cal = sub.add_parser(
        "calibrate", help="calibrate a camera over a table from the printed markers",
        description="Compute a calibration profile: the table plane in millimetres from a frame showing the "
                    "four markers of calibration/marker-sheet.svg and, with --checkerboard, the lens from "
                    "frames of a checkerboard. Saves calibration/profiles/NAME.json; never overwrites.")
    cal.add_argument("frame", metavar="FRAME", help="a frame from the camera showing all four markers, flat")
    cal.add_argument("--checkerboard", metavar="IMG", nargs="+", action="extend", default=[],
                     help="three or more frames of a flat checkerboard from the same camera (for the lens)")
    cal.add_argument("--pattern", type=_pair(int, "COLSxROWS inner corners like 9x6, at least 3x3", 3), default=(9, 6),
                     help="checkerboard inner corners, COLSxROWS (default 9x6)")
    cal.add_argument("--square-mm", type=_positive, default=25.0, help="checkerboard square size (default 25)")
    cal.add_argument("--sheet", metavar="JSON", help=f"marker sheet description (default {SHEET})")
    cal.add_argument("--marker-mm", type=_positive, help="the printed markers' measured size (overrides the sheet)")
    cal.add_argument("--tile-mm", type=_pair(float, "LENGTHxWIDTH in mm like 48x24", 1e-9),
                     help="your tiles' face size, LENGTHxWIDTH in mm (default 48x24)")
    cal.add_argument("--config", metavar="JSON", help="vision settings to keep in the profile")
    out = cal.add_mutually_exclusive_group()
    out.add_argument("--name", help=f"save as {PROFILES}/NAME.json (default: the frame's name)")
    out.add_argument("--out", metavar="PATH", help="save the profile here instead")
    cal.set_defaults(func=cmd_calibrate)


def _read_image(path: str, what: str) -> Any:
    import cv2
    import numpy as np

    from referee.cli import UserError

    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise UserError(f"cannot read {what} {path}: {error.strerror or error}") from None
    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR) if data else None
    if image is None:
        raise UserError(f"cannot read {what} {path}: not an image OpenCV can decode")
    return image


def _output(args: argparse.Namespace) -> Path:
    from referee.cli import UserError

    if args.out is not None:
        return Path(args.out)
    name = args.name if args.name is not None else re.sub(r"[^A-Za-z0-9._-]+", "-", Path(args.frame).stem) or "table"
    if args.name is not None and not _NAME.fullmatch(name):
        raise UserError(f"--name {name!r}: use letters, digits, '.', '_' and '-' (no path), up to 64 characters")
    return PROFILES / f"{name}.json"


def cmd_calibrate(args: argparse.Namespace) -> int:
    from referee.cli import UserError
    from referee.vision.calibrate import CalibrationError, CheckerboardNotFound, MarkersNotFound, calibrate
    from referee.vision.config import ConfigError, VisionConfig, load_config
    from referee.vision.markers import MarkerSheet, load_sheet
    from referee.vision.profile import save_profile

    target = _output(args)
    if target.exists():
        raise UserError(f"{target} already exists: profiles are never overwritten; choose another --name or --out")
    try:
        if args.sheet is not None:
            sheet = load_sheet(args.sheet)
        else:
            sheet = load_sheet(SHEET) if SHEET.is_file() else MarkerSheet()
        if args.marker_mm is not None:
            sheet = MarkerSheet(args.marker_mm, sheet.ids, sheet.dictionary)
        vision = load_config(args.config) if args.config is not None else VisionConfig()
    except ConfigError as error:
        raise UserError(str(error)) from None
    if args.tile_mm is not None:
        if args.tile_mm[1] >= args.tile_mm[0]:
            raise UserError(f"--tile-mm {args.tile_mm[0]:g}x{args.tile_mm[1]:g}: give the length first, then the "
                            "(smaller) width")
        vision = vision.replace(tile_mm=args.tile_mm)
    if args.checkerboard and len(args.checkerboard) < 3:
        raise UserError(f"--checkerboard needs at least 3 frames, got {len(args.checkerboard)}")
    frame = _read_image(args.frame, "image")
    boards = [_read_image(p, "checkerboard image") for p in args.checkerboard]
    for path, board in zip(args.checkerboard, boards, strict=True):
        if board.shape[:2] != frame.shape[:2]:
            raise UserError(f"{path} is {board.shape[1]}x{board.shape[0]} but {args.frame} is "
                            f"{frame.shape[1]}x{frame.shape[0]}: take every frame with the same camera setting")
    try:
        profile = calibrate(frame, sheet, boards, args.pattern, args.square_mm, vision)
    except CheckerboardNotFound as error:
        raise UserError(f"{args.checkerboard[error.index]}: {str(error).split(': ', 1)[1]}") from None
    except MarkersNotFound as error:
        raise UserError(f"{args.frame}: {error}") from None
    except CalibrationError as error:
        raise UserError(str(error)) from None
    try:
        save_profile(profile, target)
    except ConfigError as error:
        raise UserError(str(error)) from None
    print(summary(profile, target, len(boards)))
    return 0


def summary(profile: Any, target: Path, boards: int) -> str:
    """The one line ``referee calibrate`` prints."""
    w, h = profile.image_size
    scale = profile.px_per_mm((w - 1) / 2, (h - 1) / 2)
    tile_mm = profile.vision.tile_mm[0]
    parts = [f"saved {target}: {scale:.2f} px/mm at the centre of {w}x{h} (a {tile_mm:g} mm tile is "
             f"{profile.tile_px(w, h):.0f} px)", f"markers fitted to {profile.marker_rms_px:.2f} px"]
    if profile.markers_mm is not None and len(profile.markers_mm) == 4:
        m = profile.markers_mm
        parts.append(f"marker 0 to 1 {math.dist(m[0], m[1]):.0f} mm, 0 to 3 {math.dist(m[0], m[3]):.0f} mm")
    if profile.has_lens:
        parts.append(f"lens k1 {profile.dist_coeffs[0]:+.3f} from {boards} checkerboard frames fitted to "
                     f"{profile.lens_rms_px:.2f} px")
    else:
        parts.append("no lens calibration")
    line = ", ".join(parts)
    if profile.marker_rms_px > 1.0:
        line += " (high fit error: are the markers flat? a wide lens needs --checkerboard frames)"
    return line
