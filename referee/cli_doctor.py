"""``referee doctor``: is this set-up ready to referee a table? Hooked into
``referee.cli.build_parser`` by ``add_parser``. One line per check: ``ok: ...``, ``skipped: ...``
or ``problem: ... — do: ...``. Exit 0 when nothing is a problem, 1 when something is, 2 for bad
options or a bad settings file (one line on stderr)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

CHECK_NAMES = ("camera", "calibration", "lighting", "focus", "pips", "audio", "records", "port")


def _user_error(message: str) -> Exception:
    from referee.cli import UserError
    return UserError(message)


def add_parser(sub: Any) -> None:
    doc = sub.add_parser(
        "doctor", help="check the camera, light, focus, calibration, pip size, sound, records and port",
        description="Check that this set-up can referee a table: the camera opens and gives frames of the "
                    "configured size, the table is lit and in focus, the calibration profile matches the camera, "
                    "a pip is big enough in pixels, speech plays, the records can be written and the dashboard's "
                    "port is free. Options override the settings file. Lay a few tiles face up under the camera "
                    "first, and stop the referee if it runs (it holds the camera and the port).",
        epilog="exit status: 0 when every check is ok or skipped, 1 when one found a problem, 2 for a bad option "
               "or settings file")
    doc.add_argument("--settings", metavar="FILE", help="settings file (default: ~/.config/domino-referee/"
                     "config.toml, else /etc/domino-referee/config.toml, else the defaults)")
    doc.add_argument("--camera", metavar="SPEC", help="camera.source: pi, a webcam number, or a video or folder")
    doc.add_argument("--size", metavar="WxH", help="camera.width x camera.height, e.g. 1920x1080")
    doc.add_argument("--calibration", metavar="PROFILE", help="camera.calibration: the calibration profile")
    doc.add_argument("--db", metavar="PATH", help="records.db: the records database")
    doc.add_argument("--log", metavar="PATH", help="records.log: the event log")
    doc.add_argument("--port", metavar="N", help="server.port: the dashboard's port")
    doc.add_argument("--table-mm", metavar="MM", help="table.width_mm: the width of table the camera sees (mm)")
    doc.add_argument("--skip", metavar="CHECK", action="append", default=[], choices=CHECK_NAMES,
                     help=f"leave a check out (repeatable): {', '.join(CHECK_NAMES)}")
    doc.add_argument("--save-frame", metavar="PATH", help="save the camera's last frame here (.png or .jpg; never "
                     "overwrites), e.g. for referee calibrate")
    doc.set_defaults(func=cmd_doctor)


def _number(text: str) -> int | float | str:
    """The option's number (as the TOML value would be), or the text itself for the error message."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def _settings(args: argparse.Namespace) -> tuple[Any, str]:
    """The settings the options mean, and where they came from (for the first line)."""
    from referee.settings import Settings, SettingsError, default_settings_path, load_settings, override, user_path
    from referee.settings.load import SYSTEM_PATH

    path = Path(args.settings) if args.settings else default_settings_path()
    try:
        settings = load_settings(path) if path is not None else Settings()
        source = f"settings: {path}" if path is not None else \
            f"settings: none found ({user_path()}, {SYSTEM_PATH}); the defaults"
        changes: list[tuple[str, Any, str]] = []
        if args.camera is not None:
            changes.append(("camera.source", args.camera, "--camera"))
        if args.size is not None:
            width, _, height = args.size.lower().partition("x")
            if not (width.isdigit() and height.isdigit()):
                raise SettingsError(f"--size must be WIDTHxHEIGHT like 1920x1080, got {args.size!r}")
            changes += [("camera.width", int(width), "--size"), ("camera.height", int(height), "--size")]
        for option, key in (("calibration", "camera.calibration"), ("db", "records.db"), ("log", "records.log")):
            if getattr(args, option) is not None:
                changes.append((key, getattr(args, option), f"--{option}"))
        if args.port is not None:
            changes.append(("server.port", _number(args.port), "--port"))
        if args.table_mm is not None:
            changes.append(("table.width_mm", _number(args.table_mm), "--table-mm"))
        for key, value, where in changes:
            settings = override(settings, key, value, where)
    except SettingsError as error:
        raise _user_error(str(error)) from None
    return settings, source


def _save(frame: Any, path: Path) -> str:
    """Write the frame without overwriting; the line saying what became of it."""
    import cv2

    if frame is None:
        return f"not saved: {path} (no frame came from the camera)"
    ok, data = cv2.imencode(path.suffix or ".png", frame)
    if not ok:
        return f"not saved: {path} (OpenCV cannot write {path.suffix or 'files without an extension'})"
    try:
        with open(path, "xb") as out:
            out.write(data.tobytes())
    except OSError as error:
        return f"not saved: {path} ({error.strerror or error})"
    height, width = frame.shape[:2]
    return f"saved: {path} ({width}x{height}), for referee calibrate"


def cmd_doctor(args: argparse.Namespace) -> int:
    settings, source = _settings(args)
    save = Path(args.save_frame) if args.save_frame else None
    if save is not None:
        import cv2
        if save.exists() or save.is_symlink():
            raise _user_error(f"--save-frame {save} already exists; frames are never overwritten: choose a new name")
        if not cv2.haveImageWriter(str(save)):
            kind = save.suffix or "files without an extension"
            raise _user_error(f"--save-frame {save}: OpenCV cannot write {kind}; name a .png or .jpg file")
    from referee.doctor import diagnose

    print(source, flush=True)
    diagnosis = diagnose(settings, args.skip)
    for finding in diagnosis.findings:
        print(finding.line(), flush=True)
    if save is not None:
        print(_save(diagnosis.frame, save))
    problems = sum(1 for f in diagnosis.findings if not f.ok)
    print("all checks passed" if not problems else f"{problems} problem{'s' if problems > 1 else ''} found")
    return 1 if problems else 0
