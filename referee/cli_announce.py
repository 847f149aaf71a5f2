"""``referee say``, and the sound options of the live commands (``--mute``, ``--player``,
``--voices``): hooked into ``referee.cli.build_parser`` by ``add_parser``; the session commands
add theirs with ``add_arguments`` and make their speaker with ``open_speaker``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.announce.speaker import Speaker


def _user_error(message: str) -> Exception:
    from referee.cli import UserError
    return UserError(message)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--mute``, ``--player`` and ``--voices`` for a command that announces (watch, replay, demo)."""
    from referee.announce.players import CHOICES
    group = parser.add_argument_group("sound")
    group.add_argument("--mute", action=argparse.BooleanOptionalAction, default=False,
                       help="do not speak the announcements (they are still printed)")
    group.add_argument("--player", choices=CHOICES, default="auto",
                       help="how to play sound: paplay (PulseAudio/PipeWire), aplay (ALSA), or auto (default)")
    group.add_argument("--voices", metavar="FILE", help="voice settings (JSON) over the built-in ones")
    group.add_argument("--audio-device", metavar="DEVICE", default="",
                       help="sound device for the player (aplay: e.g. plughw:1,0; paplay: a sink name)")


def open_speaker(args: argparse.Namespace, on_error: Callable[[str], None] | None = None) -> Speaker | None:
    """The speaker ``args`` ask for (``args.lang``, ``args.player``, ``args.voices``), or None with
    ``--mute``. A language without a voice or a bad voice file is a ``UserError``."""
    if getattr(args, "mute", False):
        return None
    from referee.announce.players import Player, find_player
    from referee.announce.speaker import Speaker, print_error
    from referee.announce.synth import VoiceError
    from referee.announce.voices import VoiceConfigError
    report = on_error or print_error
    player: Player | str = getattr(args, "player", "auto")
    try:
        device = getattr(args, "audio_device", "")
        if device:
            try:
                player = find_player(str(player), device=device)
            except VoiceError as error:  # no player program: said once, and the referee goes on unheard
                report(f"sound: {error}; announcements are printed only (--mute to silence this)")
                return None
        return Speaker(args.lang, player=player, voices=getattr(args, "voices", None), on_error=report)
    except VoiceConfigError as error:
        raise _user_error(str(error)) from None


def cmd_say(args: argparse.Namespace) -> int:
    from referee.announce.players import find_player
    from referee.announce.synth import VoiceError, synthesise, wav_seconds
    from referee.announce.voices import VoiceConfigError, voice_for

    text = " ".join(args.text).strip()
    if not text:
        raise _user_error("nothing to say: TEXT is empty")
    try:
        voice = voice_for(args.lang, args.voices)
        wav = synthesise(text, voice)
        if args.wav is None:
            find_player(args.player).play(wav)
            return 0
    except (VoiceConfigError, VoiceError) as error:
        raise _user_error(str(error)) from None
    if args.wav == "-":
        sys.stdout.buffer.write(wav)
        sys.stdout.flush()
        return 0
    try:
        with open(args.wav, "xb") as out:
            out.write(wav)
    except FileExistsError:
        raise _user_error(f"{args.wav} already exists: --wav will not overwrite it") from None
    except OSError as error:
        raise _user_error(f"cannot write {args.wav}: {error.strerror or error}") from None
    print(f"wrote {Path(args.wav)} ({wav_seconds(wav):.1f} s, voice {voice.voice})")
    return 0


def add_parser(sub: Any) -> None:
    from referee.announce.players import CHOICES
    say = sub.add_parser("say", help="speak a text as the referee would (or write it as a WAV file)",
                         description="Speak TEXT with the referee's voice for --lang through espeak-ng, "
                                     "or write the speech to a WAV file.")
    say.add_argument("text", nargs="+", metavar="TEXT", help="what to say")
    say.add_argument("--lang", default="pl", help="language (voice): pl, en, da, sv (default pl)")
    say.add_argument("--wav", metavar="OUT.wav", help="write the speech here (- for standard output) "
                                                      "instead of playing it; never overwrites")
    say.add_argument("--player", choices=CHOICES, default="auto",
                     help="how to play sound: paplay (PulseAudio/PipeWire), aplay (ALSA), or auto (default)")
    say.add_argument("--voices", metavar="FILE", help="voice settings (JSON) over the built-in ones")
    say.set_defaults(func=cmd_say)
