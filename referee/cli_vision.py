"""``referee detect`` and ``referee evaluate``: the vision's commands, hooked into
``referee.cli.build_parser`` by ``add_parsers``. Vision and OpenCV are imported only when one of
these commands runs."""

from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import numpy as np

    from referee.vision.config import VisionConfig
    from referee.vision.evaluate import ImageScore
    from referee.vision.types import Detection


def _user_error(message: str) -> Exception:
    from referee.cli import UserError
    return UserError(message)


def _settings(args: argparse.Namespace) -> tuple[VisionConfig, Any]:
    """The config and profile the options name: the profile's settings, then those of --config
    on top of them (a config file sets only the keys it has)."""
    from referee.vision.config import ConfigError, VisionConfig, load_config

    profile = None
    config = VisionConfig()
    try:
        if args.calibration is not None:
            from referee.vision.profile import load_profile
            profile = load_profile(args.calibration)
            config = profile.vision
        if args.config is not None:
            load_config(args.config)  # reads and checks the file, naming it in any error
            data = json.loads(Path(args.config).read_text(encoding="utf-8"))
            config = VisionConfig.from_json({**config.to_json(), **data}, str(args.config))
    except ConfigError as error:
        raise _user_error(str(error)) from None
    return config, profile


def _detector(config: VisionConfig, profile: Any) -> Callable[[np.ndarray], Detection]:
    """Detection with these settings, as a callable that pickles (a live session's workers take it)."""
    from referee.vision.detect import detect
    return functools.partial(detect, config=config, profile=profile)


# -- detect ------------------------------------------------------------------------------------
def describe(path: str, detection: Detection) -> str:
    """One readable line: ``photo.jpg: 12 tiles (1 uncertain), 3 face down: 5-1 4-6 2-2? ...``
    (``?`` marks an uncertain tile)."""
    if detection.occluded:
        return f"{path}: occluded (a hand or arm over the table); frame ignored"
    n, unsure = len(detection.tiles), len(detection.uncertain)
    text = f"{path}: {n} tile{'' if n == 1 else 's'}"
    if unsure:
        text += f" ({unsure} uncertain)"
    text += f", {len(detection.face_down)} face down"
    if detection.tiles:
        text += ": " + " ".join(f"{t.pips[0]}-{t.pips[1]}{'?' if t.uncertain else ''}" for t in detection.tiles)
    return text


def annotate_paths(out: str, images: Sequence[str]) -> list[Path]:
    """Where each image's drawing goes: OUT itself for one image; for several, OUT with each
    image's stem inserted (``out.png`` -> ``out-photo.png``)."""
    import cv2

    target = Path(out)
    if not cv2.haveImageWriter(str(target)):
        raise _user_error(f"--annotate {out}: OpenCV cannot write {target.suffix or 'files without an extension'}; "
                          "name a .png or .jpg file")
    if not target.parent.is_dir():
        raise _user_error(f"--annotate {out}: no such directory {target.parent}")
    if len(images) == 1:
        return [target]
    paths = [target.with_name(f"{target.stem}-{Path(image).stem}{target.suffix}") for image in images]
    seen: dict[Path, str] = {}
    for image, path in zip(images, paths, strict=True):
        if path in seen:
            raise _user_error(f"--annotate: {seen[path]} and {image} would both be drawn to {path}; "
                              "annotate them one at a time")
        seen[path] = image
    return paths


def cmd_detect(args: argparse.Namespace) -> int:
    import cv2

    from referee.vision.annotate import annotate
    from referee.vision.images import ImageError, check_readable, read_image

    try:
        for path in args.images:  # every file first, so a typo fails before any work
            check_readable(path)
    except ImageError as error:
        raise _user_error(str(error)) from None
    outs = annotate_paths(args.annotate, args.images) if args.annotate else None
    config, profile = _settings(args)
    detect: Callable[[np.ndarray], Detection] | None = None
    several = len(args.images) > 1
    for n, path in enumerate(args.images):
        try:
            image = read_image(path)
        except ImageError as error:
            raise _user_error(str(error)) from None
        if detect is None:  # the detector loads once an image is known to be readable
            detect = _detector(config, profile)
        detection = detect(image)
        if args.json:
            doc = detection.to_json()
            print(json.dumps({"image": path, **doc} if several else doc), flush=True)
        else:
            print(describe(path, detection), flush=True)
        if outs is not None:
            try:
                written = cv2.imwrite(str(outs[n]), annotate(image, detection))
            except cv2.error:
                written = False
            if not written:
                raise _user_error(f"cannot write the annotated image {outs[n]}")
    return 0


# -- evaluate ----------------------------------------------------------------------------------
def cmd_evaluate(args: argparse.Namespace) -> int:
    from referee.cli import Progress
    from referee.vision.evaluate import (
        Totals,
        TruthError,
        evaluate_cases,
        find_cases,
        format_header,
        format_score,
        format_totals,
        write_csv,
    )
    from referee.vision.groups import FACTORS
    from referee.vision.images import ImageError
    for factor in args.by:
        if factor not in FACTORS:
            raise _user_error(f"--by {factor}: not a factor; expected one of {', '.join(FACTORS)}")
    directory = Path(args.dir)
    if not directory.is_dir():
        what = "is not a directory (give the folder holding the images and their truth files)" \
            if directory.exists() else "does not exist"
        raise _user_error(f"{args.dir} {what}")
    try:
        cases = find_cases(directory)
    except TruthError as error:
        raise _user_error(str(error)) from None
    if not cases:
        raise _user_error(f"no images with truth in {args.dir}: expected NAME.jpg, .jpeg or .png beside NAME.json "
                          "(the renderer's truth or the real-photo labels)")
    detect = _detector(*_settings(args))
    out: TextIO | None = None
    if args.csv is not None:
        try:
            out = open(args.csv, "x", encoding="utf-8", newline="")  # noqa: SIM115 (closed below)
        except FileExistsError:
            raise _user_error(f"{args.csv} exists; not overwriting it (an earlier evaluation)") from None
        except OSError as error:
            raise _user_error(f"cannot write --csv {args.csv}: {error.strerror or error}") from None
    width = min(60, max(len("image"), *(len(c.relative) for c in cases)))
    progress = Progress(len(cases), args.quiet, "frames")
    if not args.quiet:
        print(format_header(width), flush=True)

    def scored() -> Iterator[ImageScore]:
        for n, score in enumerate(evaluate_cases(cases, detect)):
            if not args.quiet:
                print(format_score(score, width), flush=True)
            progress.update(n + 1)
            yield score
    try:
        scores = write_csv(scored(), out) if out is not None else list(scored())
    except (ImageError, TruthError) as error:
        if out is not None:  # the rows of an evaluation cut short are no result: the new file goes
            out.close()
            Path(args.csv).unlink(missing_ok=True)
        raise _user_error(str(error)) from None
    finally:
        if out is not None:
            out.close()
    if not args.quiet:
        print()
    for line in format_totals(Totals.of(scores)):
        print(line)
    if args.by:
        from referee.vision.groups import by_group, format_groups, groups_of
        framed = [(groups_of(c.truth, c.scene, c.truth_path), s) for c, s in zip(cases, scores, strict=True)]
        for factor in dict.fromkeys(args.by):
            print()
            for line in format_groups(factor, by_group(framed, factor)):
                print(line)
    if args.csv is not None:
        print(f"one row per image written to {args.csv}")
    return 0


# -- the parsers -------------------------------------------------------------------------------
def _settings_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--calibration", metavar="PROFILE",
                        help="a calibration profile (JSON, made by referee calibrate); without one the tile "
                             "size is estimated from each frame")
    parser.add_argument("--config", metavar="FILE",
                        help="a JSON object of vision settings; its keys override the defaults and the profile's")


def add_parsers(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``detect`` and ``evaluate`` to the ``referee`` command's subparsers."""
    det = sub.add_parser("detect", help="find the tiles in overhead frames and count their pips",
                         description="Find every tile in each frame, count the pips on its halves and "
                                     "locate face-down tiles; say when a hand or arm hides the table.")
    det.add_argument("images", nargs="+", metavar="IMAGE", help="a .jpg or .png frame")
    _settings_options(det)
    det.add_argument("--json", action="store_true",
                     help="one JSON document per image; with several images one per line, in the order "
                          "given, each with an \"image\" key holding the path as given")
    det.add_argument("--annotate", metavar="OUT.png",
                     help="draw what was found (outlines, pip counts, uncertain tiles in orange, face-down "
                          "tiles in blue) into OUT; with several images one file each, the image's stem "
                          "inserted: OUT-STEM.png. An existing file of that name is replaced.")
    det.set_defaults(func=cmd_detect)

    ev = sub.add_parser("evaluate", help="score detection against truth files",
                        description="Run detection on every image under DIR (recursively) that has a truth "
                                    "file of the same name (NAME.json: the renderer's truth or the real-photo "
                                    "labels), match what was found to the truth and print, per image and in "
                                    "total, recall, precision, tiles with both halves right, pip accuracy per "
                                    "half, face-down count error, occlusion and time per frame.")
    ev.add_argument("dir", metavar="DIR")
    ev.add_argument("--csv", metavar="OUT", help="write one row per image to this new file (never over one)")
    _settings_options(ev)
    ev.add_argument("--quiet", action="store_true", help="print only the totals")
    ev.add_argument("--by", action="append", metavar="FACTOR", default=[],
                    help="after the totals, a table of them by one factor of the frames (repeat for several): "
                         "kind, style, table, size, tilt or tile (the tile length in pixels); labelled photos "
                         "carry no scene, only their size and tile")
    ev.set_defaults(func=cmd_evaluate)
