"""Playing a WAV: any object with ``play(wav: bytes)``; :class:`CommandPlayer` runs a program
(``aplay`` reads the WAV on its standard input; ``paplay`` gets a temporary file) and
:func:`find_player` picks the one that fits this machine."""

from __future__ import annotations

import array
import dataclasses
import io
import math
import os
import shutil
import subprocess
import sys
import tempfile
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from referee.announce.synth import VoiceError, _last_line, wav_seconds
from referee.announce.voices import VoiceConfigError

#: Where ``argv`` takes the WAV as a file; without it the WAV goes to the program's standard input.
WAV_FILE = "{wav}"


class Player(Protocol):
    """Plays one complete WAV file to the end, raising :class:`VoiceError` when it cannot."""

    def play(self, wav: bytes) -> None: ...


@dataclasses.dataclass(frozen=True)
class CommandPlayer:
    """A player that runs ``argv`` once per sound. An argument ``"{wav}"`` is replaced by a
    temporary file holding the WAV; without one the WAV is written to the program's standard input.
    ``name`` is what messages call it (default: the program's file name); a program still playing
    ``margin`` seconds after the sound's own length is stopped."""

    argv: tuple[str, ...]
    name: str = ""
    margin: float = 10.0

    def __post_init__(self) -> None:
        if not self.argv or not all(isinstance(a, str) and a for a in self.argv):
            raise VoiceConfigError(f"a player command must be a non-empty list of arguments, got {self.argv!r}")
        if not self.margin > 0:
            raise VoiceConfigError(f"a player's margin must be more than 0 seconds, got {self.margin!r}")

    @property
    def label(self) -> str:
        return self.name or os.path.basename(self.argv[0])

    def play(self, wav: bytes) -> None:
        try:
            timeout = wav_seconds(wav) + self.margin
        except ValueError:
            timeout = self.margin
        if WAV_FILE not in self.argv:
            self._run(list(self.argv), wav, timeout)
            return
        handle, path = tempfile.mkstemp(prefix="referee-say-", suffix=".wav")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(wav)
            self._run([path if a == WAV_FILE else a for a in self.argv], None, timeout)
        finally:
            os.unlink(path)

    def _run(self, argv: list[str], stdin: bytes | None, timeout: float) -> None:
        try:
            done = subprocess.run(argv, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise VoiceError(f"{self.label}: still playing after {timeout:.0f} s, stopped") from None
        except OSError as error:
            raise VoiceError(f"{self.label}: cannot run {argv[0]}: {error.strerror or error}") from None
        if done.returncode != 0:
            line = _last_line(done.stderr) or f"exit code {done.returncode}"
            raise VoiceError(line if line.startswith(f"{self.label}:") else f"{self.label}: {line}")


#: The players find_player knows: the command, and the Debian package that has the program.
PLAYERS: dict[str, tuple[tuple[str, ...], str]] = {
    "aplay": (("aplay", "-q", "-"), "alsa-utils"),
    "paplay": (("paplay", WAV_FILE), "pulseaudio-utils"),
}
CHOICES = ("auto", *PLAYERS)


def _pulse_socket() -> bool:
    """Whether a pulse server could be listening: an address in ``PULSE_SERVER``, or a socket
    where servers put theirs (the session's ``$XDG_RUNTIME_DIR/pulse/native``, or the
    system-wide ``/run/pulse/native``)."""
    if os.environ.get("PULSE_SERVER"):
        return True
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    places = [Path(runtime) / "pulse" / "native"] if runtime else []
    return any(place.exists() for place in [*places, Path("/run/pulse/native")])


def pulse_answers(timeout: float = 3.0) -> bool:
    """Whether a PulseAudio (or PipeWire's pulse) server answers ``pactl info``. Where no server
    could be listening, pactl is not run: a pulse client with nowhere to connect makes runtime
    folders in HOME and TMPDIR, and the referee writes nothing it was not asked to."""
    pactl = shutil.which("pactl")
    if pactl is None or not _pulse_socket():
        return False
    try:
        done = subprocess.run([pactl, "info"], stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout,
                              check=False)
    except (subprocess.TimeoutExpired, OSError):
        return False
    return done.returncode == 0


#: How each player is told which sound device to use.
DEVICE_OPTION: dict[str, Callable[[str], tuple[str, ...]]] = {
    "aplay": lambda device: ("-D", device),
    "paplay": lambda device: (f"--device={device}",),
}


def find_player(name: str = "auto", margin: float = 10.0, device: str = "") -> CommandPlayer:
    """The player called ``name``: ``aplay``, ``paplay``, or ``auto`` (paplay when a PulseAudio or
    PipeWire server answers, else aplay, else paplay), on ``device`` when given (an ALSA device
    such as "plughw:1,0" for aplay, a sink name for paplay). :class:`VoiceConfigError` for an
    unknown name, :class:`VoiceError` saying what to install when the program is missing."""
    if name not in CHOICES:
        raise VoiceConfigError(f"unknown player {name!r}; choose {', '.join(CHOICES)}")
    found = {player: shutil.which(argv[0]) for player, (argv, _) in PLAYERS.items()}
    if name == "auto":
        if found["paplay"] and pulse_answers():
            name = "paplay"
        elif found["aplay"] or found["paplay"]:
            name = "aplay" if found["aplay"] else "paplay"
        else:
            raise VoiceError("no audio player found: install the Debian package alsa-utils (aplay) or "
                             "pulseaudio-utils (paplay)")
    argv, package = PLAYERS[name]
    program = found[name]
    if program is None:
        raise VoiceError(f"{name} not found: install the Debian package {package}")
    options = DEVICE_OPTION[name](device) if device else ()
    return CommandPlayer((program, *options, *argv[1:]), name=name, margin=margin)


def tone_wav(seconds: float = 0.3, hz: float = 440.0, rate: int = 22050, level: float = 0.25) -> bytes:
    """A short sine tone as a WAV (16-bit mono), faded in and out so it does not click."""
    count = int(seconds * rate)
    fade = max(1, int(0.02 * rate))
    samples = array.array("h", (
        int(32767 * level * min(1.0, i / fade, (count - i) / fade) * math.sin(2 * math.pi * hz * i / rate))
        for i in range(count)))
    if sys.byteorder == "big":
        samples.byteswap()
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes(samples.tobytes())
    return out.getvalue()


def check_audio(player: Player | str = "auto") -> str | None:
    """None when a short test tone plays through ``player`` (or the player of that name), else
    the problem in one line (for ``referee doctor``)."""
    try:
        chosen = find_player(player) if isinstance(player, str) else player
        chosen.play(tone_wav())
    except (VoiceError, VoiceConfigError) as error:
        return str(error)
    return None
