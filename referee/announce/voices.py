"""The espeak-ng voice of each language: ``voices.json`` next to this module, optionally
overridden by a user file of the same shape.

A user file may change some fields of a built-in language (``{"pl": {"speed": 140}}``) or add a
language, which must then give every field. Every value is checked; a bad one raises
:class:`VoiceConfigError` naming the file and the key (``voices.json: pl.speed must be ...``).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any


class VoiceConfigError(ValueError):
    """A voice settings file or value that cannot be used; the message names the file and key."""


#: espeak-ng voice names: letters, digits and a few separators ("en-gb", "gmw/en-US", "pl+f3").
_VOICE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+/-]*")

#: The integer settings and the ranges espeak-ng accepts.
_RANGES = {"speed": (80, 450), "pitch": (0, 99), "volume": (0, 200)}


@dataclasses.dataclass(frozen=True)
class VoiceConfig:
    """How one language is spoken.

    ``voice``: the espeak-ng voice (``espeak-ng --voices``); ``speed`` in words per minute
    (80-450); ``pitch`` 0-99 (espeak-ng's default 50); ``volume`` (espeak-ng's amplitude, 0-200,
    default 100); ``tile_joiner``: what the dash of a tile ("6-5") becomes when spoken (a space
    makes "six five" rather than "six dash five")."""

    language: str
    voice: str
    speed: int
    pitch: int
    volume: int
    tile_joiner: str = " "

    def __post_init__(self) -> None:
        where = f"{self.language}."
        if not isinstance(self.voice, str) or not _VOICE_NAME.fullmatch(self.voice):
            raise VoiceConfigError(f"{where}voice must be an espeak-ng voice name like 'pl' or 'en-gb', "
                                   f"got {self.voice!r}")
        for name, (low, high) in _RANGES.items():
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise VoiceConfigError(f"{where}{name} must be an integer from {low} to {high}, got {value!r}")
        if not isinstance(self.tile_joiner, str) or len(self.tile_joiner) > 10 or "\n" in self.tile_joiner:
            raise VoiceConfigError(f"{where}tile_joiner must be a short one-line text, got {self.tile_joiner!r}")

    def spoken(self, text: str) -> str:
        """``text`` as it is handed to espeak-ng: tiles ("6-5") with the dash replaced."""
        return _TILE.sub(lambda m: f"{m[1]}{self.tile_joiner}{m[2]}", text)


_TILE = re.compile(r"\b(\d{1,2})-(\d{1,2})\b")
_FIELDS = tuple(f.name for f in dataclasses.fields(VoiceConfig) if f.name != "language")


def _read(path: Path | None) -> tuple[str, Any]:
    if path is None:
        text = resources.files("referee.announce").joinpath("voices.json").read_text(encoding="utf-8")
        return "voices.json", json.loads(text)
    try:
        return str(path), json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise VoiceConfigError(f"cannot read voice settings {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise VoiceConfigError(f"{path} is not a JSON file of voice settings: {error}") from None


def _entries(name: str, data: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(data, dict):
        raise VoiceConfigError(f"{name}: must be an object of languages, like {{\"pl\": {{\"voice\": \"pl\"}}}}")
    out: dict[str, dict[str, Any]] = {}
    for language, entry in data.items():
        if not re.fullmatch(r"[a-z]{2,3}", language):
            raise VoiceConfigError(f"{name}: {language!r} is not a language code like 'pl'")
        if not isinstance(entry, dict):
            raise VoiceConfigError(f"{name}: {language} must be an object of settings")
        unknown = sorted(set(entry) - set(_FIELDS))
        if unknown:
            raise VoiceConfigError(f"{name}: {language}.{unknown[0]} is not a voice setting "
                                   f"(known: {', '.join(_FIELDS)})")
        out[language] = dict(entry)
    return out


def _build(name: str, language: str, entry: Mapping[str, Any]) -> VoiceConfig:
    missing = [field for field in _FIELDS if field not in entry and field != "tile_joiner"]
    if missing:
        raise VoiceConfigError(f"{name}: {language}.{missing[0]} is missing (a new language gives "
                               f"{', '.join(_FIELDS[:-1])})")
    try:
        return VoiceConfig(language=language, **entry)
    except VoiceConfigError as error:
        raise VoiceConfigError(f"{name}: {error}") from None


def load_voices(user_file: str | Path | None = None) -> dict[str, VoiceConfig]:
    """Every language's voice: the built-in settings, with ``user_file``'s on top when given."""
    name, data = _read(None)
    entries = _entries(name, data)
    voices = {language: _build(name, language, entry) for language, entry in entries.items()}
    if user_file is not None:
        name, data = _read(Path(user_file))
        for language, entry in _entries(name, data).items():
            voices[language] = _build(name, language, {**entries.get(language, {}), **entry})
    return voices


def voice_for(language: str, user_file: str | Path | None = None) -> VoiceConfig:
    """The voice of ``language``; :class:`VoiceConfigError` naming the languages there are."""
    voices = load_voices(user_file)
    if language not in voices:
        raise VoiceConfigError(f"no voice for language {language!r}; available: {', '.join(voices)}")
    return voices[language]
