"""What the live session calls: :class:`Speaker` says texts one after another on a background
thread, so announcing never holds up the frame loop."""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from referee.announce.players import CHOICES, Player, find_player
from referee.announce.synth import VoiceError, synthesise
from referee.announce.voices import VoiceConfig, VoiceConfigError, voice_for
from referee.session.events import Event

#: What the one error line adds: the referee goes on, printing what it would have said.
GIVING_UP = "announcements are printed only (--mute to silence this)"


def print_error(line: str) -> None:
    """The default ``on_error``: the line on standard error."""
    print(f"referee: {line}", file=sys.stderr, flush=True)


class Speaker:
    """Says texts in ``language`` in the order given, without blocking the caller.

    ``player``: a :class:`Player`, or the name for :func:`find_player` (``"auto"``, ``"aplay"``,
    ``"paplay"``; looked up on the background thread). ``voice``: the voice settings (default: the
    language's from :func:`voice_for`, with ``voices`` as the user file). When speaking fails (no
    espeak-ng, no sound device...) ``on_error`` gets one line, called from the background thread,
    and the speaker stays quiet from then on: :meth:`say` still returns normally.

    A bad language, voice setting or player name raises :class:`VoiceConfigError` here, at once.
    """

    def __init__(self, language: str, *, player: Player | str = "auto", voice: VoiceConfig | None = None,
                 voices: str | Path | None = None, on_error: Callable[[str], None] = print_error,
                 espeak: str = "espeak-ng", synth_timeout: float = 10.0) -> None:
        self.voice = voice if voice is not None else voice_for(language, voices)
        if isinstance(player, str) and player not in CHOICES:
            raise VoiceConfigError(f"unknown player {player!r}; choose {', '.join(CHOICES)}")
        self._player = player
        self._on_error = on_error
        self._espeak = espeak
        self._synth_timeout = synth_timeout
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._abandon = threading.Event()
        self._closed = False
        self.error: str | None = None  #: the problem that silenced the speaker, once there is one
        self._thread = threading.Thread(target=self._run, name=f"speaker-{language}", daemon=True)
        self._thread.start()

    # -- the caller's side -------------------------------------------------------------------

    def say(self, text: str | None) -> None:
        """Queue ``text`` to be said after what is already queued; returns at once. Blank text
        (or None, an event that is not announced) is ignored. ``RuntimeError`` once closed."""
        if self._closed:
            raise RuntimeError("this speaker is closed")
        if text and text.strip():
            self._queue.put(text.strip())

    def announce(self, event: Event, text: str | None) -> None:
        """The session's announce callback (``Session(announce=...)``): says ``text``."""
        self.say(text)

    def close(self, timeout: float = 10.0) -> bool:
        """Wait up to ``timeout`` seconds for everything queued to be said, then stop the thread.
        True when all of it was said (or dropped quietly after a failure) in time; False when
        time ran out (the rest is dropped; a sound already playing is left to finish)."""
        if not self._closed:
            self._closed = True
            self._queue.put(None)
        self._thread.join(max(0.0, timeout))
        if self._thread.is_alive():
            self._abandon.set()
            return False
        return True

    def __enter__(self) -> Speaker:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    # -- the background thread ---------------------------------------------------------------

    def _run(self) -> None:
        player: Player | None = None
        while True:
            text = self._queue.get()
            if text is None:
                return
            if self.error is not None or self._abandon.is_set():
                continue
            try:
                if player is None:
                    player = find_player(self._player) if isinstance(self._player, str) else self._player
                wav = synthesise(text, self.voice, self._espeak, self._synth_timeout)
                if self._abandon.is_set():
                    continue
                player.play(wav)
            except VoiceError as error:
                self._fail(str(error))
            except Exception as error:  # a custom player's bug must not kill the thread silently
                self._fail(f"{type(error).__name__}: {error}")

    def _fail(self, problem: str) -> None:
        self.error = problem
        with contextlib.suppress(Exception):  # the error line is best effort; the referee must go on
            self._on_error(f"sound: {problem}; {GIVING_UP}")

