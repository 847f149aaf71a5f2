"""The people at the table, around the live commands (``watch``, ``replay``, ``demo``): the
referee's voice (``--mute``, or ``--speak`` for ``replay``; ``--player``, ``--voices``,
``--audio-device``), the records of every match and hand (``--db``; ``watch`` records into the
user's data folder unless ``--no-records``), and for ``watch`` a deployment settings file
(``--settings``, see ``deploy/``) and the camera's frame size (``--size``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.announce.speaker import Speaker
    from referee.rules import Rules
    from referee.session.eventlog import EventLog
    from referee.session.events import Event
    from referee.session.loop import Session
    from referee.store import Recorder, Store

Announce = Callable[["Event", "str | None"], None]


def _user_error(message: str) -> Exception:
    from referee.cli import UserError
    return UserError(message)


def _warn(message: str) -> None:
    print(f"referee: {message}", file=sys.stderr, flush=True)


def add_options(p: argparse.ArgumentParser, command: str) -> None:
    """The sound and records options of ``command`` (watch, replay or demo)."""
    from referee import cli_announce
    cli_announce.add_arguments(p)
    if command == "replay":  # a batch tool, faster than real time: it speaks only when asked
        p.add_argument("--speak", action="store_true", help="speak the announcements (replay is silent otherwise)")
    g = p.add_argument_group("records")
    if command == "watch":
        g.add_argument("--db", metavar="PATH", help="records database (default: records.sqlite in the user's data "
                       "folder, as for referee stats)")
        g.add_argument("--no-records", action="store_true", help="keep no record of this match")
        g.add_argument("--settings", metavar="FILE", help="deployment settings (config.toml, see deploy/): the "
                       "options it gives come first, so options typed here win")
        p.add_argument("--size", metavar="WxH", help="frame size asked of the camera, e.g. 1920x1080")
    else:
        g.add_argument("--db", metavar="PATH", help="also record the match in this records database")


def expand(argv: Sequence[str]) -> list[str]:
    """``referee watch --settings FILE ...`` as the options the file gives (``argv`` otherwise
    unchanged); a bad file is a UserError naming the file and the key."""
    from referee.settings import SettingsError, expand_settings
    try:
        return expand_settings(argv)
    except SettingsError as error:
        raise _user_error(str(error)) from None


def apply_settings(args: argparse.Namespace, argv: Sequence[str]) -> None:
    """What a settings file says that is no command-line option: the dashboard's token (a token
    on a command line shows in ``ps``) and the sound player and device."""
    from referee.settings import SettingsError, load_settings, settings_path
    path = settings_path(argv)
    args.token = None
    if path is None:
        return
    try:
        settings = load_settings(path)
    except SettingsError as error:
        raise _user_error(str(error)) from None
    args.token = settings.server.token or None
    typed = set(argv)
    if "--player" not in typed and not any(w.startswith("--player=") for w in typed) and settings.sound.player:
        args.player = settings.sound.player
    if not getattr(args, "audio_device", ""):
        args.audio_device = settings.sound.device


def frame_size(args: argparse.Namespace) -> tuple[int, int] | None:
    """``--size WxH`` as (width, height), or None."""
    text = getattr(args, "size", None)
    if text is None:
        return None
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise _user_error(f"--size must be WIDTHxHEIGHT in pixels, e.g. 1920x1080, got {text!r}") from None
    if not (16 <= width <= 16384 and 16 <= height <= 16384):
        raise _user_error(f"--size {text}: width and height must be from 16 to 16384 pixels")
    return width, height


class RecordsView:
    """The records for the dashboard's statistics page. The page is served from other threads
    than the one recording, so each question opens the database afresh (reading only)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _open(self) -> Store:
        from referee.store import Store
        return Store(self.path, create=False)

    def stats(self) -> Any:
        with self._open() as store:
            return store.stats()

    def matches(self) -> Any:
        with self._open() as store:
            return store.matches()

    def match_scores(self, match_id: int) -> list[tuple[int, ...]]:
        with self._open() as store:
            return store.match_scores(match_id)


class People:
    """A live command's voice and records. ``announce(show)`` is the session's callback: it
    shows the event, queues its words for the speaker and hands it to the recorder; ``attach``
    starts recording once the session exists (after a resume, writing any hand a crash left
    unrecorded); ``close`` lets the speaker finish and closes the database."""

    def __init__(self, args: argparse.Namespace, command: str) -> None:
        from referee.cli_announce import open_speaker
        from referee.cli_store import default_db
        if command == "replay" and not getattr(args, "speak", False):
            args.mute = True
        db = getattr(args, "db", None)
        path = Path(db) if db else None
        if path is None and command == "watch":
            path = default_db()
        if getattr(args, "no_records", False):
            path = None  # --no-records wins over a database named in a settings file or typed
        self.db_path = path
        self.store: Store | None = None
        self.recorder: Recorder | None = None
        self._session: Session | None = None
        self.speaker: Speaker | None = open_speaker(args)
        if path is not None:
            self.store = self._open_store(path, created_folder=not db)

    def _open_store(self, path: Path, created_folder: bool) -> Store:
        from referee.store import Store, StoreError
        try:
            if created_folder:
                path.parent.mkdir(parents=True, exist_ok=True)
            return Store(path)
        except OSError as error:
            self.close()
            raise _user_error(f"cannot create the records folder {path.parent}: {error.strerror}") from None
        except StoreError as error:
            self.close()
            raise _user_error(str(error)) from None

    def announce(self, show: Announce) -> Announce:
        def announce(event: Event, text: str | None) -> None:
            show(event, text)
            if self.speaker is not None:
                self.speaker.announce(event, text)
            if self.recorder is not None and self._session is not None:
                self.recorder.on_event(event, self._session.referee.match, self._session.events)
        return announce

    def attach(self, session: Session, *, rules: Rules, names: Sequence[str] | None, source: str | None,
               log: EventLog | None) -> None:
        from referee.store import Recorder, StoreError
        self._session = session
        if self.store is None:
            return
        key = None if log is None or session.session_id is None else f"{log.path.resolve()}#{session.session_id}"
        try:
            self.recorder = Recorder(self.store, names=names, rules=rules, source=source, key=key,
                                     warn=lambda message: _warn(f"records: {message}"))
        except StoreError as error:
            raise _user_error(str(error)) from None
        self.recorder.sync(session.referee.match, session.events)

    def view(self) -> RecordsView | None:
        return None if self.db_path is None or self.store is None else RecordsView(self.db_path)

    def close(self, wait: float = 15.0) -> None:
        """Let the speaker say what is queued for up to ``wait`` seconds (saying so when some is
        left unsaid), then close the database."""
        if self.speaker is not None:
            if not self.speaker.close(timeout=wait) and wait > 0:
                _warn(f"sound: the last announcements were not said within {wait:g} s")
            self.speaker = None
        if self.store is not None:
            self.store.close()
            self.store = None
