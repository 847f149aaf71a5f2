"""The ``referee watch`` options a settings file means, so that ``referee watch --settings FILE``
is the same as typing them, and options given after it still win."""

from __future__ import annotations

from collections.abc import Sequence

from referee.settings.load import load_settings
from referee.settings.model import Settings


def settings_to_args(settings: Settings) -> list[str]:
    """The ``referee watch`` argument list the settings mean (without "watch"). The dashboard's
    token, the sound player and device are not options (a token on a command line is visible to
    every user in ``ps``): read them from ``Settings`` itself."""
    camera, table, house = settings.camera, settings.table, settings.table.house_rules
    args = ["--camera", camera.source] if camera.is_camera else ["--source", camera.source]
    if camera.is_camera:
        args += ["--size", f"{camera.width}x{camera.height}"]
    if camera.calibration:
        args += ["--calibration", camera.calibration]
    if camera.vision_config:
        args += ["--config", camera.vision_config]
    if camera.workers is not None:
        args += ["--workers", str(camera.workers)]
    args += ["--variant", table.variant, "--players", str(table.players), "--lang", table.language,
             "--opener", str(table.opener)]
    if table.names:
        args += ["--names", ",".join(table.names)]
    if table.seats:
        args += ["--seats", ",".join(table.seats)]
    if table.referee_config:
        args += ["--referee-config", table.referee_config]
    for name in ("hand_size", "target", "max_pips", "keep_in_boneyard", "draw_count", "first_player"):
        value = getattr(house, name)
        if value is not None:
            args += [f"--{name.replace('_', '-')}", str(value)]
    if house.blocked_scoring is not None:
        args += ["--blocked-scoring", house.blocked_scoring]
    if house.draw_when_able:
        args.append("--draw-when-able")
    if house.spinner is not None:
        args.append("--spinner" if house.spinner else "--no-spinner")
    if settings.records.log:
        args += ["--log", settings.records.log]
    if settings.records.db:
        args += ["--db", settings.records.db]
    if settings.records.resume:
        args.append("--resume-unfinished")
    if settings.server.serve:
        args += ["--serve", "--host", settings.server.host, "--port", str(settings.server.port)]
    if settings.sound.mute:
        args.append("--mute")
    return args


def _split(argv: Sequence[str]) -> tuple[str | None, list[str]]:
    """The settings file a ``referee watch`` command line names, and its other words."""
    words = list(argv)
    if not words or words[0] != "watch":
        return None, words
    rest: list[str] = [words[0]]
    path: str | None = None
    i = 1
    while i < len(words):
        word = words[i]
        if word == "--":
            rest += words[i:]
            break
        if word == "--settings" and i + 1 < len(words):
            path, i = words[i + 1], i + 2
            continue
        if word.startswith("--settings="):
            path, i = word.split("=", 1)[1], i + 1
            continue
        rest.append(word)
        i += 1
    return path, rest


def settings_path(argv: Sequence[str]) -> str | None:
    """The settings file ``referee watch ... --settings FILE`` names (None without one)."""
    return _split(argv)[0]


def expand_settings(argv: Sequence[str]) -> list[str]:
    """A ``referee`` command line with ``watch ... --settings FILE`` (or ``--settings=FILE``)
    replaced by the file's options, put first so that options typed on the command line win.
    Other command lines come back unchanged. A bad file raises SettingsError naming it."""
    path, rest = _split(argv)
    if path is None:
        return list(argv)
    given = settings_to_args(load_settings(path))
    typed = {word.split("=", 1)[0] for word in rest[1:] if word.startswith("--")}
    if typed & {"--camera", "--source"}:  # a source typed replaces the file's camera (one source only)
        given = _without(given, {"--camera", "--source", "--size"} - typed)
    return ["watch", *given, *rest[1:]]


def _without(args: list[str], options: set[str]) -> list[str]:
    """``args`` (pairs of an option and its value, and flags) without ``options`` and their values."""
    out: list[str] = []
    i = 0
    while i < len(args):
        if args[i] in options:
            i += 2
            continue
        out.append(args[i])
        i += 1
    return out
