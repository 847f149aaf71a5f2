"""Reading ``config.toml``: every value checked, every problem one ``SettingsError`` naming the
file, the key and what is allowed ("config.toml: camera.width must be a whole number from 320 to
8192, got 'wide'"). Unknown sections and keys are errors too (a misspelt key would otherwise be
silently ignored). Relative paths are taken from the settings file's folder."""

from __future__ import annotations

import dataclasses
import ipaddress
import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from referee.rules import Rules, RulesError, Variant
from referee.rules.variants import BlockedScoring
from referee.session.phrases import LANGUAGES
from referee.settings.model import (
    CameraSettings,
    DoctorSettings,
    HouseRules,
    RecordsSettings,
    ServerSettings,
    Settings,
    SettingsError,
    SoundSettings,
    TableSettings,
)

#: Where the Raspberry Pi install keeps its settings, and where a user's own install does.
SYSTEM_PATH = Path("/etc/domino-referee/config.toml")


def data_folder() -> Path:
    """Where the records database and the event log live when no path is set:
    ``$XDG_DATA_HOME/domino-referee`` (``~/.local/share/domino-referee`` by default)."""
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "domino-referee"


def user_path() -> Path:
    """``$XDG_CONFIG_HOME/domino-referee/config.toml`` (``~/.config`` by default)."""
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "domino-referee" / "config.toml"


def default_settings_path() -> Path | None:
    """The settings file a command reads when none is named: the user's, else the system's,
    else None (the defaults)."""
    for path in (user_path(), SYSTEM_PATH):
        if path.is_file():
            return path
    return None


class _Bad(Exception):
    """A value a converter refuses; ``allowed`` says what it takes."""

    def __init__(self, allowed: str) -> None:
        super().__init__(allowed)
        self.allowed = allowed


Convert = Callable[[Any, Path], Any]
EDGES = ("bottom", "left", "top", "right")
_TOKEN = re.compile(r"[A-Za-z0-9._~-]{16,256}")
_HOST = re.compile(r"(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}"
                   r"[A-Za-z0-9])?)*")


def _whole(low: int, high: int) -> Convert:
    def convert(value: Any, base: Path) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise _Bad(f"a whole number from {low} to {high}")
        return value
    return convert


def _optional_whole(low: int, high: int) -> Convert:
    def convert(value: Any, base: Path) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise _Bad(f"a whole number from {low} to {high} (leave it out for the variant's default)")
        return value
    return convert


def _workers(value: Any, base: Path) -> int | None:
    if value == "auto":
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 16:
        raise _Bad('a whole number from 1 to 16, or "auto" (one per core up to 3)')
    return int(value)


def _number(low: float, high: float) -> Convert:
    def convert(value: Any, base: Path) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
                or not low <= value <= high:
            raise _Bad(f"a number from {low:g} to {high:g}")
        return float(value)
    return convert


def _set(options: tuple[int, ...]) -> Convert:
    def convert(value: Any, base: Path) -> int:
        if isinstance(value, bool) or value not in options:
            raise _Bad(f"{', '.join(map(str, options[:-1]))} or {options[-1]} (double-6, -9 or -12)")
        return int(value)
    return convert


def _boolean(value: Any, base: Path) -> bool:
    if not isinstance(value, bool):
        raise _Bad("true or false")
    return value


def _choice(options: tuple[str, ...]) -> Convert:
    def convert(value: Any, base: Path) -> str:
        if value not in options or not isinstance(value, str):
            raise _Bad("one of " + ", ".join(f'"{o}"' for o in options))
        return value
    return convert


def _path(value: Any, base: Path) -> str | None:
    """A file path ("" for none), absolute: ``~`` expanded, relative to the settings file's folder."""
    if not isinstance(value, str) or "\0" in value or "\n" in value:
        raise _Bad('a file path in quotes ("" for none)')
    if not value.strip():
        return None
    path = Path(value.strip()).expanduser()
    return str(path if path.is_absolute() else base / path)


def _source(value: Any, base: Path) -> str:
    allowed = '"pi", a webcam number (0, 1, ...) or the path of a video or a folder of frames'
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 99:
        return str(value)
    if not isinstance(value, str) or not value.strip():
        raise _Bad(allowed)
    text = value.strip()
    if text.lower() == "pi":
        return "pi"
    if text.isascii() and text.isdigit():
        return str(int(text))
    path = _path(text, base)
    if path is None:
        raise _Bad(allowed)
    return path


def _names(value: Any, base: Path) -> tuple[str, ...]:
    allowed = 'a list of names in quotes, one per player, without commas (e.g. ["Ala", "Olek"])'
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() and "," not in v
                                              and len(v) <= 40 and v.isprintable() for v in value):
        raise _Bad(allowed)
    return tuple(v.strip() for v in value)


def _seats(value: Any, base: Path) -> tuple[str, ...]:
    allowed = 'a list with one place per player: "bottom", "left", "top", "right" or degrees (0 right, 90 down)'
    if not isinstance(value, list):
        raise _Bad(allowed)
    out = []
    for item in value:
        if isinstance(item, str) and item.strip().lower() in EDGES:
            out.append(item.strip().lower())
        elif isinstance(item, int | float) and not isinstance(item, bool) and math.isfinite(item):
            out.append(f"{float(item) % 360:g}")
        else:
            raise _Bad(allowed)
    return tuple(out)


def _host(value: Any, base: Path) -> str:
    if isinstance(value, str):
        try:
            return str(ipaddress.ip_address(value))
        except ValueError:
            if _HOST.fullmatch(value):
                return value
    raise _Bad('an address of this machine in quotes: "0.0.0.0" (every network), "127.0.0.1" (this machine '
               'only) or a host name')


def _token(value: Any, base: Path) -> str:
    if not isinstance(value, str) or (value and not _TOKEN.fullmatch(value)):
        raise _Bad("16 to 256 letters, digits, '.', '_', '~' or '-' in quotes (\"\" for none)")
    return value


def _program(value: Any, base: Path) -> str:
    if value not in ("auto", "aplay", "paplay"):
        raise _Bad('the program that plays sound: "aplay" (ALSA), "paplay" (PulseAudio, PipeWire) or "auto" '
                   "(paplay when a sound server answers, else aplay)")
    return str(value)


def _device(value: Any, base: Path) -> str:
    if not isinstance(value, str) or not (value == "" or re.fullmatch(r"[A-Za-z0-9_:,.=@-]+", value)):
        raise _Bad('a sound device name in quotes such as "plughw:1,0" ("" for the default)')
    return value


#: Every key of every section: its converter. The dataclass field of the same name gets the value.
FIELDS: dict[str, dict[str, Convert]] = {
    "camera": {"source": _source, "width": _whole(320, 8192), "height": _whole(240, 8192),
               "calibration": _path, "vision_config": _path, "workers": _workers},
    "table": {"variant": _choice(tuple(v.value for v in Variant)), "players": _whole(2, 10), "names": _names,
              "language": _choice(LANGUAGES), "opener": _whole(0, 9), "seats": _seats,
              "width_mm": _number(200, 5000), "referee_config": _path},
    "table.house_rules": {"hand_size": _optional_whole(1, 50), "target": _optional_whole(1, 10_000),
                          "max_pips": _set((6, 9, 12)),
                          "draw_when_able": _boolean, "keep_in_boneyard": _optional_whole(0, 100),
                          "blocked_scoring": _choice(tuple(b.value for b in BlockedScoring)),
                          "draw_count": _optional_whole(1, 50), "first_player": _optional_whole(0, 9),
                          "spinner": _boolean},
    "server": {"serve": _boolean, "host": _host, "port": _whole(1, 65535), "token": _token},
    "sound": {"mute": _boolean, "player": _program, "device": _device},
    "records": {"db": _path, "log": _path, "resume": _boolean},
    "doctor": {"frames": _whole(1, 100), "timeout_s": _number(1, 300), "min_brightness": _number(0, 255),
               "max_brightness": _number(0, 255), "clip_level": _whole(1, 255), "max_clipped": _number(0, 1),
               "min_focus": _number(0, 100_000), "pip_mm": _number(0.5, 30), "min_pip_px": _number(0.5, 100)},
}

_CLASSES: dict[str, type] = {"camera": CameraSettings, "table": TableSettings, "table.house_rules": HouseRules,
                             "server": ServerSettings, "sound": SoundSettings, "records": RecordsSettings,
                             "doctor": DoctorSettings}
SECTIONS = ("camera", "table", "server", "sound", "records", "doctor")


def _section(where: str, name: str, data: Any, base: Path) -> dict[str, Any]:
    """The checked values of one section (a TOML table), by field name."""
    fields = FIELDS[name]
    if not isinstance(data, Mapping):
        raise SettingsError(f"{where}: {name} must be a section ([{name}]), got {data!r}")
    values: dict[str, Any] = {}
    for key, value in data.items():
        if name == "table" and key == "house_rules":
            continue
        if key not in fields:
            raise SettingsError(f"{where}: unknown key {name}.{key} ([{name}] takes: {', '.join(fields)})")
        try:
            values[key] = fields[key](value, base)
        except _Bad as bad:
            raise SettingsError(f"{where}: {name}.{key} must be {bad.allowed}, got {value!r}") from None
    return values


def parse_settings(data: Mapping[str, Any], where: str = "config.toml", base: Path | None = None) -> Settings:
    """Settings from a parsed TOML document; ``where`` names it in errors; relative paths are
    taken from ``base`` (the file's folder; the working folder when None)."""
    folder = base if base is not None else Path.cwd()
    for name in data:
        if name not in SECTIONS:
            raise SettingsError(f"{where}: unknown section [{name}] (sections: {', '.join(SECTIONS)})")
    parts = {name: _section(where, name, data.get(name, {}), folder) for name in SECTIONS}
    table_data = data.get("table", {})
    house = _section(where, "table.house_rules", table_data.get("house_rules", {}), folder)
    if "players" not in parts["table"] and parts["table"].get("variant") == Variant.PARTNERS.value:
        parts["table"]["players"] = 4  # as referee watch: the partners game is for four
    table = TableSettings(**parts["table"], house_rules=HouseRules(**house))
    _check_table(where, table)
    server = ServerSettings(**parts["server"])
    if server.serve and not server.token and not _loopback(server.host):
        raise SettingsError(f"{where}: server.token must be set (16 or more letters and digits) when server.host "
                            f"{server.host!r} lets other machines in; or set host = \"127.0.0.1\"")
    doctor = DoctorSettings(**parts["doctor"])
    if doctor.min_brightness >= doctor.max_brightness:
        raise SettingsError(f"{where}: doctor.min_brightness must be below doctor.max_brightness, got "
                            f"{doctor.min_brightness:g} and {doctor.max_brightness:g}")
    return Settings(CameraSettings(**parts["camera"]), table, server, SoundSettings(**parts["sound"]),
                    RecordsSettings(**parts["records"]), doctor, where)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_table(where: str, table: TableSettings) -> None:
    """What one key cannot say alone: the rules as a whole, and one name and seat per player."""
    try:
        rules_of(table)
    except RulesError as error:
        key = f"table.house_rules.{error.field}" if error.field and error.field != "players" else "table.players"
        raise SettingsError(f"{where}: {key}: {error}") from None
    for key in ("names", "seats"):
        given = getattr(table, key)
        if given and len(given) != table.players:
            raise SettingsError(f"{where}: table.{key} must have one entry per player ({table.players}, "
                                f"table.players), got {len(given)}: {list(given)!r}")
    if table.opener >= table.players:
        raise SettingsError(f"{where}: table.opener must be a seat from 0 to {table.players - 1} (table.players "
                            f"is {table.players}), got {table.opener}")


def rules_of(table: TableSettings) -> Rules:
    """The rules the table's settings mean (RulesError when they make no sense together)."""
    house = table.house_rules
    options: dict[str, Any] = {"variant": Variant(table.variant), "players": table.players,
                               "draw_when_able": house.draw_when_able}
    for field in dataclasses.fields(house):
        value = getattr(house, field.name)
        if value is not None and field.name != "draw_when_able":
            options[field.name] = BlockedScoring(value) if field.name == "blocked_scoring" else value
    return Rules(**options)


def load_settings(path: str | Path) -> Settings:
    """Read and check a settings file; every problem is a SettingsError naming the file."""
    where = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise SettingsError(f"cannot read settings {where}: {error.strerror or error}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SettingsError(f"{where}: not a text file (TOML is UTF-8 text)") from None
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(f"{where}: not valid TOML: {error}") from None
    return parse_settings(data, where, Path(path).expanduser().resolve().parent)


def override(settings: Settings, key: str, value: Any, where: str, base: Path | None = None) -> Settings:
    """The settings with one key (``"camera.width"``) set from elsewhere, a command-line option
    named ``where``, checked as the file's value would be."""
    section, _, name = key.partition(".")
    convert = FIELDS[section][name]
    try:
        checked = convert(value, base if base is not None else Path.cwd())
    except _Bad as bad:
        raise SettingsError(f"{where} must be {bad.allowed}, got {value!r}") from None
    part = dataclasses.replace(getattr(settings, section), **{name: checked})
    return dataclasses.replace(settings, **{section: part})
