"""Text to a WAV file's bytes with espeak-ng (the Debian package ``espeak-ng``)."""

from __future__ import annotations

import io
import os
import shutil
import struct
import subprocess
import wave

from referee.announce.voices import VoiceConfig


class VoiceError(RuntimeError):
    """Speech could not be made or played; the message says which program failed, how, and what
    to do about it."""


INSTALL_ESPEAK = "install the Debian package espeak-ng (apt install espeak-ng)"

#: espeak-ng opens a sound connection as it starts, even when it only writes a WAV to stdout. With
#: no sound server to reach (a service, a test, a shell over ssh) its PulseAudio client makes
#: runtime folders in HOME and TMPDIR. It is given a server that cannot exist instead: the WAV is
#: the same, and nothing is written.
_NO_SOUND_SERVER = {"PULSE_SERVER": "unix:/nonexistent/domino-referee-no-sound-server"}


def _last_line(stderr: bytes) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def complete_wav(data: bytes) -> bytes:
    """A WAV whose RIFF and data sizes are the real ones. espeak-ng writing to a pipe cannot go
    back to fill them in and leaves them at 0x7fffffff; players and ``wave`` then read garbage
    lengths. ``ValueError`` when ``data`` is not a RIFF/WAVE file with a data chunk."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise ValueError(f"not a WAV file (starts with {data[:12]!r})")
    out = bytearray(data)
    pos = 12
    while pos + 8 <= len(out):
        chunk, size = out[pos:pos + 4], struct.unpack_from("<I", out, pos + 4)[0]
        if chunk == b"data":
            size = len(out) - pos - 8
            size -= size % 2  # whole samples, and RIFF chunks are of even length
            del out[pos + 8 + size:]
            struct.pack_into("<I", out, pos + 4, size)
            struct.pack_into("<I", out, 4, len(out) - 8)
            return bytes(out)
        pos += 8 + size + (size % 2)
    raise ValueError("WAV file without a data chunk")


def wav_seconds(wav: bytes) -> float:
    """How long a complete WAV plays; ``ValueError`` when it is not one ``wave`` can read."""
    try:
        with wave.open(io.BytesIO(wav)) as reader:
            frames: int = reader.getnframes()
            rate: int = reader.getframerate()
            return frames / rate
    except (wave.Error, EOFError) as error:
        raise ValueError(f"not a readable WAV file: {error}") from None


def synthesise(text: str, voice: VoiceConfig, espeak: str = "espeak-ng", timeout: float = 10.0) -> bytes:
    """``text`` spoken in ``voice``, as a complete WAV file (16-bit mono, espeak-ng's rate).

    The text goes in on standard input (so nothing in it is taken for an option). A missing
    espeak-ng, a voice it does not have, a failure or taking longer than ``timeout`` seconds raise
    :class:`VoiceError` saying what to do."""
    program = shutil.which(espeak)
    if program is None:
        raise VoiceError(f"{espeak} not found: {INSTALL_ESPEAK}")
    argv = [program, "-b", "1", "-v", voice.voice, "-s", str(voice.speed), "-p", str(voice.pitch),
            "-a", str(voice.volume), "--stdin", "--stdout"]
    try:
        done = subprocess.run(argv, input=voice.spoken(text).encode("utf-8"), capture_output=True,
                              timeout=timeout, check=False, env={**os.environ, **_NO_SOUND_SERVER})
    except subprocess.TimeoutExpired:
        raise VoiceError(f"{espeak}: no speech after {timeout:g} s (is the machine overloaded?)") from None
    except OSError as error:
        raise VoiceError(f"{espeak}: cannot run it ({error.strerror or error}): {INSTALL_ESPEAK}") from None
    if done.returncode != 0 or not done.stdout:
        problem = _last_line(done.stderr) or f"exit code {done.returncode}"
        hint = (f"check the voice names in the voice settings against `{espeak} --voices`"
                if "voice" in problem.lower() else "try it by hand: " + " ".join([espeak, "-v", voice.voice, "hello"]))
        raise VoiceError(f"{espeak} (voice {voice.voice}): {problem}; {hint}")
    try:
        return complete_wav(done.stdout)
    except ValueError as error:
        raise VoiceError(f"{espeak} (voice {voice.voice}) did not write a WAV file: {error}") from None


def check_speech(voice: VoiceConfig, espeak: str = "espeak-ng") -> str | None:
    """None when espeak-ng speaks a word in ``voice``, else the problem in one line."""
    try:
        synthesise("1 2 3", voice, espeak)
    except VoiceError as error:
        return str(error)
    return None
