"""Regenerate the printable marker sheet from calibration/markers.json (deterministic):

    .venv/bin/python calibration/make_sheet.py > calibration/marker-sheet.svg
    .venv/bin/python calibration/make_sheet.py --marker-mm 50 --out my-sheet.svg

Writes the SVG to standard output, or to --out (never overwriting a file).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from referee.vision.config import ConfigError
from referee.vision.markers import MarkerSheet, load_sheet, sheet_svg

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the printable marker sheet (SVG).")
    parser.add_argument("--markers", default=str(HERE / "markers.json"), help="the sheet description (JSON)")
    parser.add_argument("--marker-mm", type=float, help="print the markers at this size instead (up to 60 mm)")
    parser.add_argument("--out", help="write here instead of standard output (never overwrites)")
    args = parser.parse_args(argv)
    try:
        sheet = load_sheet(args.markers)
        if args.marker_mm is not None:
            sheet = MarkerSheet(args.marker_mm, sheet.ids, sheet.dictionary)
        svg = sheet_svg(sheet)
    except ConfigError as error:
        print(f"make_sheet: {error}", file=sys.stderr)
        return 2
    if args.out is None:
        sys.stdout.write(svg)
        return 0
    try:
        with open(args.out, "x", encoding="utf-8") as out:
            out.write(svg)
    except FileExistsError:
        print(f"make_sheet: {args.out} already exists: choose another name", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"make_sheet: cannot write {args.out}: {error.strerror}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
