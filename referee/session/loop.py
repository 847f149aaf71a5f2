"""The live loop: frames -> detections -> stable states -> the referee's events -> the event log
-> announcements. Every event is appended to the log (committed, flushed to disk) before it is
announced; then marked announced (a quick commit that survives a killed process) and said. A
kill during the flush leaves the event unsaid and unmarked: the resumed session says it. A kill
in the microseconds between the mark and the words would cost the saying, never the event, and
nothing is ever said twice. A resumed session brings the referee to where the log left it, says any event a crash (or an
older log) left unsaid, adds the events that follow from it (a blocked table, the match's end)
if the crash came between them, and goes on."""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from referee.rules import IllegalAction, Rules, Tile, Variant
from referee.rules.table import End
from referee.rules.variants import BlockedScoring
from referee.session.eventlog import EventLog
from referee.session.events import Event
from referee.session.faces import ConsensusConfig, FaceConsensus, read_with
from referee.session.phrases import Phrases
from referee.session.referee import Referee, RefereeConfig
from referee.session.stabilise import Stabiliser, StabiliserConfig
from referee.vision.types import Detection, FaceModel

Announce = Callable[[Event, str | None], None]

#: What may be entered by hand (``watch`` keys, an inputs file, the dashboard).
ACTIONS = ("pass", "undo", "correct", "next_hand", "play", "reveal")
#: The ends a play may be entered at.
END_NAMES = tuple(e.value for e in End)


@dataclasses.dataclass(frozen=True)
class Input:
    """Something entered by hand at ``frame``: "pass", "undo", "correct" (``old`` -> ``new``),
    "next_hand" (start the next hand: :meth:`referee.session.referee.Referee.next_hand`) or
    "play" (``tile`` at ``end``, the end needed only where the tile fits several: a tile the
    camera could not read, :meth:`referee.session.referee.Referee.play_by_hand`) or "reveal"
    (the ``tiles`` a player shows at the hand's end, ``seat`` from 0, needed only when several
    players hold tiles: :meth:`referee.session.referee.Referee.reveal_by_hand`)."""

    frame: int
    action: str
    old: str | None = None
    new: str | None = None
    tile: str | None = None
    end: str | None = None
    tiles: tuple[str, ...] = ()
    seat: int | None = None

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"unknown input {self.action!r} (pass, undo, correct, next_hand, play or reveal)")
        if self.action == "reveal" and not self.tiles:
            raise ValueError("a reveal needs the tiles shown, e.g. 0-0 3-1")
        for shown in self.tiles:
            Tile.parse(shown)
        if self.action == "correct" and not (self.old and self.new):
            raise ValueError("a correction needs the tile as read and as it is, e.g. 6-4 6-5")
        if self.action == "play" and not self.tile:
            raise ValueError("a play needs the tile, e.g. 6-4, and where it fits several ends the end, e.g. 6-4 left")
        if self.tile is not None:
            Tile.parse(self.tile)
        if self.end is not None and self.end not in END_NAMES:
            raise ValueError(f"end must be left, right, up or down, got {self.end!r}")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Input:
        frame, action = data.get("frame"), data.get("input")
        if not isinstance(frame, int) or isinstance(frame, bool):
            raise ValueError(f"'frame' must be an integer, got {frame!r}")
        if not isinstance(action, str):
            raise ValueError(f"'input' must be pass, undo, correct, next_hand, play or reveal, got {action!r}")
        values = {k: data.get(k) for k in ("old", "new", "tile", "end")}
        for k, v in values.items():
            if v is not None and not isinstance(v, str):
                raise ValueError(f"{k!r} must be text like \"6-4\" (or an end: left, right, up, down), got {v!r}")
        tiles, seat = reveal_fields(data)
        return cls(frame, action, values["old"], values["new"], values["tile"], values["end"], tiles, seat)


def reveal_fields(data: Mapping[str, Any]) -> tuple[tuple[str, ...], int | None]:
    """A reveal's ``tiles`` (a list of tile names; none when absent) and ``seat`` (from 0, or
    None) in a JSON object (an inputs-file line, a dashboard control); ``ValueError`` naming a
    value of the wrong kind."""
    tiles, seat = data.get("tiles", []), data.get("seat")
    if not isinstance(tiles, list) or not all(isinstance(t, str) for t in tiles):
        raise ValueError(f"'tiles' must be a list of tiles like [\"0-0\", \"3-1\"], got {tiles!r}")
    if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
        raise ValueError(f"'seat' must be a player's seat from 0, got {seat!r}")
    return tuple(tiles), seat


def settings_rules(settings: Mapping[str, Any]) -> Rules:
    """The rules a session's settings name (what the log keeps for --resume)."""
    options: dict[str, Any] = {"variant": Variant(settings.get("variant", "fives"))}
    for name in ("players", "hand_size", "target", "max_pips", "keep_in_boneyard", "draw_count", "spinner",
                 "draw_when_able", "first_player"):
        if settings.get(name) is not None:
            options[name] = settings[name]
    if settings.get("blocked_scoring") is not None:
        options["blocked_scoring"] = BlockedScoring(settings["blocked_scoring"])
    return Rules(**options)


def rules_settings(rules: Rules) -> dict[str, Any]:
    return {"variant": rules.variant.value, "players": rules.players, "hand_size": rules.hand_size,
            "target": rules.target, "max_pips": rules.max_pips, "keep_in_boneyard": rules.keep_in_boneyard,
            "draw_count": rules.draw_count, "spinner": rules.spinner, "draw_when_able": rules.draw_when_able,
            "first_player": rules.first_player,
            "blocked_scoring": None if rules.blocked_scoring is None else rules.blocked_scoring.value}


def restore(referee: Referee, events: Iterable[Event]) -> None:
    """Bring a fresh referee to where a logged session left off, without announcing anything."""
    referee.restore(events)


def _crash_point(where: str, seq: int | None) -> None:
    """Fault injection for the crash tests: ``REFEREE_CRASH_AT=saved:N`` (or ``said:N``) kills
    this process with SIGKILL right after event N is saved (or said), as a power cut would."""
    spec = os.environ.get("REFEREE_CRASH_AT")
    if spec and seq is not None and spec == f"{where}:{seq}":
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)


class Session:
    """One referee fed by frames and by hand, writing to an event log and announcing."""

    def __init__(self, rules: Rules, detect: Callable[..., Detection], *, log: EventLog | None = None,
                 settings: Mapping[str, Any] | None = None, resume: bool = False,
                 referee_config: RefereeConfig | None = None, stabiliser: StabiliserConfig | None = None,
                 phrases: Phrases | None = None, names: Sequence[str] | None = None,
                 announce: Announce | None = None, faces: ConsensusConfig | None = None) -> None:
        self.detect = detect
        #: What the recent frames agree the faces look like: given to the detection of the next
        #: (``detect(image, prior=...)``) by :meth:`frame`, and by a pool reading frames ahead.
        self.faces = FaceConsensus(faces)
        self.referee = Referee(rules, referee_config)
        # The stabiliser gives a state again once a tile is read surely as often, and as surely,
        # as the referee needs before it calls a placement illegal.
        self.stabiliser = Stabiliser(dataclasses.replace(
            stabiliser or StabiliserConfig(), confirm_votes=self.referee.config.illegal_votes,
            confirm_confidence=self.referee.config.illegal_confidence))
        self.log = log
        self.phrases = phrases or Phrases.load("pl")
        self.names = names
        self.announce = announce or (lambda event, text: None)
        self.events: list[Event] = []
        self.resumed_from = -1
        self.session_id: int | None = None
        if log is not None:
            latest = log.latest_session() if resume else None
            if latest is not None:
                self.session_id = latest[0]
                logged = log.events(self.session_id)
                restore(self.referee, [e for _, e, _ in logged])
                self.events = [e for _, e, _ in logged]
                self.resumed_from = max((e.frame for e in self.events), default=-1)
                for seq, event in log.unannounced(self.session_id):
                    self._say(event, seq)
                self._handle(self.referee.catch_up())
            else:
                self.session_id = log.start_session({**rules_settings(rules), **(settings or {})})

    def _say(self, event: Event, seq: int | None) -> None:
        if self.log is not None and self.session_id is not None and seq is not None:
            self.log.mark_announced(self.session_id, seq)
        self.announce(event, self.phrases.say(event, self.names))
        _crash_point("said", seq)

    def _handle(self, events: Iterable[Event]) -> list[Event]:
        out = list(events)
        for event in out:
            seq = None
            if self.log is not None and self.session_id is not None:
                seq = self.log.append(self.session_id, event)  # saved before it is said
                _crash_point("saved", seq)
            self.events.append(event)
            self._say(event, seq)
        return out

    def prior(self, index: int) -> FaceModel | None:
        """The face colour and tile length the frames before frame ``index`` agree on, to read it with."""
        return self.faces.prior(index)

    def frame(self, index: int, image: Any = None, detection: Detection | None = None) -> list[Event]:
        """Feed one frame (an image, or its detection when already known). An image is read with
        what the frames before agree the faces look like, once they do (:meth:`prior`)."""
        found = detection if detection is not None else read_with(self.detect, image, self.prior(index))
        self.faces.feed(index, found)
        state = self.stabiliser.feed(index, found)
        if state is None:
            return []
        return self._handle(self.referee.observe(state))

    def manual(self, item: Input) -> list[Event]:
        """Input by hand: the events it caused (see :meth:`waiting` when there are none)."""
        ref = self.referee
        if item.action == "pass":
            return self._handle(ref.pass_turn(item.frame, settled=self.stabiliser.settled()))
        if item.action == "undo":
            return self._handle(ref.undo(item.frame))
        if item.action == "next_hand":
            return self._handle(ref.next_hand(item.frame))
        if item.action == "play":
            assert item.tile is not None
            try:
                return self._handle(ref.play_by_hand(item.frame, item.tile, item.end))
            except (ValueError, IllegalAction) as error:
                raise ValueError(f"play {item.tile}{' ' + item.end if item.end else ''}: {error}") from None
        if item.action == "reveal":
            try:
                return self._handle(ref.reveal_by_hand(item.frame, item.tiles, item.seat))
            except ValueError as error:
                raise ValueError(f"reveal {' '.join(item.tiles)}: {error}") from None
        assert item.old is not None and item.new is not None
        try:
            return self._handle(ref.correct(item.frame, item.old, item.new))
        except (ValueError, IllegalAction) as error:
            raise ValueError(f"correction {item.old} -> {item.new}: {error}") from None

    def waiting(self, action: str, before: int) -> str | None:
        """What to tell the person who entered ``action`` by hand, which caused no event, when
        it changed the passes waiting for the table (``before``: how many waited before it)."""
        now = self.referee.passes_waiting
        if action == "pass" and now > before:
            return "pass noted: it is said once the table settles (the camera may yet show a draw)"
        if action == "undo" and now < before:
            return "the pass waiting for the table is taken back"
        return None

    def finish(self) -> list[Event]:
        return self._handle(self.referee.finish())
