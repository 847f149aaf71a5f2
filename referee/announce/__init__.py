"""Spoken announcements: texts (from ``referee.session.phrases``) to speech with espeak-ng, played
through aplay or paplay on a background thread.

- :class:`VoiceConfig`, :func:`load_voices`, :func:`voice_for`: each language's espeak-ng voice
  and speed (``voices.json``, overridable by a user file); :class:`VoiceConfigError`.
- :func:`synthesise`: text -> WAV bytes; :class:`VoiceError` when speech cannot be made or played.
- :class:`Player`, :class:`CommandPlayer`, :func:`find_player`: playing a WAV.
- :class:`Speaker`: what the live session calls (``say``, ``announce``, ``close``).
- :func:`check_audio` (a test tone through a player), :func:`check_speech`: one-line diagnoses
  (``referee doctor`` speaks a phrase through :func:`synthesise` and :func:`find_player`).
"""

from referee.announce.players import CHOICES, CommandPlayer, Player, check_audio, find_player, tone_wav
from referee.announce.speaker import Speaker
from referee.announce.synth import VoiceError, check_speech, synthesise, wav_seconds
from referee.announce.voices import VoiceConfig, VoiceConfigError, load_voices, voice_for

__all__ = [
    "CHOICES", "CommandPlayer", "Player", "Speaker", "VoiceConfig", "VoiceConfigError", "VoiceError", "check_audio",
    "check_speech", "find_player", "load_voices", "synthesise", "tone_wav", "voice_for", "wav_seconds",
]
