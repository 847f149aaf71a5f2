"""What the referee knows and the small steps every part of it shares: the settings, the match
and hand being played, the events so far, what each place on the table showed and since when."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

from referee.layout.geometry import Piece
from referee.rules import Hand, IllegalAction, Play, Rules, Tile
from referee.rules.match import Match
from referee.rules.scoring import Termination
from referee.rules.state import Action
from referee.rules.table import END_INDEX, ENDS, End
from referee.session.ends import Placement
from referee.session.events import Event, Kind
from referee.session.stabilise import StableState


def name_of(pips: tuple[int, int]) -> str:
    """A tile's name as the rules write it: higher half first."""
    return f"{max(pips)}-{min(pips)}"


@dataclasses.dataclass(frozen=True)
class RefereeConfig:
    """``opener``: the seat that lays the first tile of the match (a camera cannot see who
    holds the highest double); ``takeback_states``: stable states the last tile must stay gone
    before it counts as taken back; ``boneyard_states``: how many stable states' face-down counts
    a draw must fall below (vision's count of a touching pile flickers; its lowest is trusted);
    ``illegal_votes``: sure readings a tile needs before its placement is called illegal (a
    misread tile makes a legal play look illegal, and the rules make such a reading suspect);
    ``illegal_confidence``: and the confidence at least one of those readings needs (vision's
    sure readings just above its bar are the least reliable: on rendered hands, 7 of the 9 wrong
    sure readings of 6,200 had a confidence below 0.6, and 1.5% of those below 0.6 were wrong
    against 0.03% above);
    ``reach``/``middle``/``facing``: contact tolerances in tile widths (see
    :func:`referee.layout.geometry.contacts`); ``covered``: a tile of the line no longer read
    is still there, unread, while its last place lies within a box found now grown by this many
    tile widths (a run re-boxed half a tile along), and gone (an arm vision missed) otherwise;
    ``slide``: a box found now, lying the same way as a tile of the line, is that tile while its
    centre lies less than this many tile lengths along the tile from where it was last seen (and
    less than a quarter width across): vision re-boxed a run of touching tiles part of a tile
    along (a tile laid at the end lies a whole length along); ``doubled``: a doubtful box read
    as a tile of the line, its centre less than this many tile lengths from where that tile
    lies, is that tile seen twice (a box straddling it and its neighbour), not a new tile (a
    new tile laid against it lies a whole length from it; at a length, a rendered 5-1 read
    doubtfully as the 3-1 it was laid against was taken for it, and the next player's tile
    went to the wrong player); ``unread_states``: stable
    states a new tile against the line may stay unreadable before the referee says it cannot
    read it (the first state after a play often shows it blurred or half boxed); ``lone_back``:
    at the hand's end, a back with no other within this many tile widths lies apart from the
    boneyard (a reveal's double blank, its plain face read as a back); ``plain_opening``: in
    a first hand, which opens on the highest double dealt, how many clear tiles must lie joined
    to a plain tile seen first before the referee takes it for the opening (no double was
    dealt) rather than a tile laid against a double it missed."""

    opener: int = 0
    takeback_states: int = 2
    reach: float = 0.5
    middle: float = 0.25
    facing: float = 0.2
    covered: float = 0.25
    slide: float = 0.35
    doubled: float = 0.9
    seats: tuple[float, ...] | None = None
    boneyard_states: int = 4
    illegal_votes: int = 2
    illegal_confidence: float = 0.6
    unread_states: int = 3
    lone_back: float = 4.0
    plain_opening: int = 2

    @classmethod
    def from_json(cls, data: object, where: str, **given: Any) -> RefereeConfig:
        """A config from a JSON object of the referee's tolerances (any field but ``opener`` and
        ``seats``, which come with ``given``; missing ones keep their defaults). A bad key or
        value raises ValueError naming ``where`` and the key."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{where}: expected a JSON object of the referee's tolerances")
        allowed = [f.name for f in dataclasses.fields(cls) if f.name not in ("opener", "seats")]
        for key in data:
            if key not in allowed:
                raise ValueError(f"{where}: unknown setting {key!r} (it takes: {', '.join(allowed)})")
        try:
            return cls(**{**data, **given})
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None

    def __post_init__(self) -> None:
        if not isinstance(self.opener, int) or self.opener < 0:
            raise ValueError(f"opener must be a seat number from 0, got {self.opener!r}")
        for name in ("reach", "middle", "facing", "covered", "slide", "doubled"):
            value = getattr(self, name)
            if isinstance(value, bool) or not (isinstance(value, (int, float)) and 0 < value < 1):
                unit = "tile lengths" if name in ("slide", "doubled") else "tile widths"
                raise ValueError(f"{name} must be a number between 0 and 1 ({unit}), got {value!r}")
        if self.seats is not None and not all(isinstance(a, (int, float)) for a in self.seats):
            raise ValueError(f"seats must be directions in degrees, got {self.seats!r}")
        if not isinstance(self.boneyard_states, int) or self.boneyard_states < 1:
            raise ValueError(f"boneyard_states must be a whole number >= 1, got {self.boneyard_states!r}")
        if not isinstance(self.illegal_votes, int) or self.illegal_votes < 1:
            raise ValueError(f"illegal_votes must be a whole number >= 1, got {self.illegal_votes!r}")
        if isinstance(self.illegal_confidence, bool) or not (
                isinstance(self.illegal_confidence, (int, float)) and 0 <= self.illegal_confidence <= 1):
            raise ValueError(f"illegal_confidence must be a confidence from 0 to 1, got {self.illegal_confidence!r}")
        if not isinstance(self.unread_states, int) or self.unread_states < 1:
            raise ValueError(f"unread_states must be a whole number >= 1, got {self.unread_states!r}")
        if isinstance(self.lone_back, bool) or not (isinstance(self.lone_back, (int, float)) and self.lone_back >= 1):
            raise ValueError(f"lone_back must be a number of tile widths >= 1, got {self.lone_back!r}")
        if not isinstance(self.plain_opening, int) or self.plain_opening < 1:
            raise ValueError(f"plain_opening must be a whole number >= 1, got {self.plain_opening!r}")
        if not isinstance(self.takeback_states, int) or self.takeback_states < 1:
            raise ValueError(f"takeback_states must be a whole number >= 1, got {self.takeback_states!r}")


class RefereeBase:
    """The referee's state; :class:`referee.session.referee.Referee` is the whole referee."""

    def __init__(self, rules: Rules, config: RefereeConfig | None = None) -> None:
        self.rules = rules
        self.config = config or RefereeConfig()
        if self.config.opener >= rules.players:
            raise ValueError(f"opener must be a seat from 0 to {rules.players - 1}, got {self.config.opener}")
        if self.config.seats is not None and len(self.config.seats) != rules.players:
            raise ValueError(f"seats must give {rules.players} directions, one per seat, got {len(self.config.seats)}")
        self.match = Match(rules)
        self.hand: Hand = self.match.new_hand()
        self.history: list[Event] = []
        self.pending: dict[str, End | None] = {}  # illegal tiles left on the table, and where
        self._pending_at: dict[str, Piece] = {}  # where each of them was read
        self._retracted: set[str] = set()  # illegal tiles taken back this hand (tried again elsewhere?)
        self.face_down: int | None = None  # the boneyard as last confirmed
        self._pile: int | None = None  # the boneyard's backs before any draw the referee saw
        self._boneyard_at: list[tuple[float, float]] = []  # where the face-down tiles lie
        # Places emptied in one state, waiting for the next: (places, the state's frame, moves so
        # far, draws, states waited through, the frame the backs were gone by: StableState.down_since)
        self._tentative: tuple[list[tuple[float, float]], int, int, int, int, int] | None = None
        self._down_counts: list[int] = []  # face-down counts of the last stable states
        self._backs_seen: list[list[tuple[float, float]]] = []  # face-down places of the last stable states
        self.gone: dict[str, int] = {}
        self.reported: set[tuple[str, ...]] = set()
        self.waiting_reveal = False
        self.over = False  # the hand is scored; waiting for the table to be cleared
        self._cleared = 0  # stable states since, without the last hand's line
        self.last_frame = -1
        self._last_seen: dict[str, Piece] = {}  # where each table tile was last read
        self._present: dict[str, int] = {}  # the last frame of the last state that read each tile
        self._lost_at = -1  # the last state that lost sight of a tile of the line
        self._seen: list[tuple[tuple[float, float], int]] = []  # places that showed a tile, and since when
        self._first_read: dict[str, int] = {}  # the first frame, stable or not, that read each tile where it lies
        self._unread: dict[int, set[int]] = {}  # a new tile against the line not read: since when -> states
        self._by_hand: list[str] = []  # tiles played by hand, not yet matched to a tile on the table
        self._shown_by_hand: dict[int, list[str]] = {}  # the reveal entered by hand so far, by seat
        self._finished_line: list[str] = []
        self._passes_due: list[int] = []  # passes entered by hand, waiting for a stable state (their frames)

    # -- what the rules know -----------------------------------------------------------------

    def on_table(self) -> list[str]:
        table = self.hand.table
        names = [str(t) for arm in table.arms for t, _ in arm]
        if table.opener is not None:
            names.append(str(table.opener))
        return names

    def _seat(self) -> int:
        turn = self.hand.turn
        return self.config.opener if turn is None else turn

    def _draw_unseen(self, frame: int, events: list[Event]) -> int | None:
        """The player to move draws a tile nobody saw: their seat, or None (said as something
        the referee could not follow) when the rules refuse it."""
        seat = self._seat()
        try:
            self.hand.draw(seat=seat, unseen=True)
        except IllegalAction as error:
            self._unfollowed_at(frame, f"draw_{error.reason.value}", [], events)
            return None
        return seat

    def _emit(self, events: list[Event], event: Event) -> None:
        events.append(event)
        self.history.append(event)

    def _lost_before(self, frame: int) -> bool:
        """Whether a state after the hand's last move, and before ``frame``, lost sight of a
        tile of the line (vision blinded by a lamp, say): a play it then missed may have opened
        or changed the end a tile laid at ``frame`` went to, so that tile is not called illegal."""
        moved = -1
        for event in reversed(self.history):
            if event.kind is Kind.HAND_END:
                break
            if event.kind in (Kind.PLAY, Kind.DRAW, Kind.PASS):
                moved = max(moved, event.frame)
        return moved < self._lost_at < frame

    # -- stable states -----------------------------------------------------------------------

    def _covered(self, pieces: list[Piece], where: Piece) -> bool:
        """Whether the centre of ``where`` lies within one of ``pieces`` grown by ``covered`` of
        a tile width all round."""
        return any(p.outside(where.centre) <= self.config.covered * p.width for p in pieces)

    def _at(self, p: Piece, where: Piece) -> bool:
        """Whether ``p`` is the tile last seen as ``where``: its centre within half a width of
        where's, or, lying the same way, moved along it by less than ``slide`` of its length and
        hardly across (a run re-boxed part of a tile along)."""
        if math.dist(p.centre, where.centre) < 0.5 * where.width:
            return True
        along, across = where.local(p.centre)
        same_way = p.alignment(where) > 0.95
        return same_way and abs(along) < self.config.slide * where.length and abs(across) < 0.25 * where.width

    def _near(self, pieces: list[Piece], where: Piece) -> Piece | None:
        """The first of ``pieces`` centred within half a width of ``where``, else the first
        that is ``where`` re-boxed along it (:meth:`_at`); None when none is."""
        for p in pieces:
            if math.dist(p.centre, where.centre) < 0.5 * where.width:
                return p
        return next((p for p in pieces if self._at(p, where)), None)

    def _forget(self, p: Piece) -> None:
        """The place ``p`` lay is empty again: a tile laid there later is dated from then, not
        from when ``p`` first showed (a tile laid where an illegal one was taken back)."""
        self._seen = [(c, f) for c, f in self._seen if math.dist(c, p.centre) >= 0.5 * p.width]

    def _note_places(self, pieces: list[Piece], frame: int) -> None:
        """Date from ``frame`` each place of ``pieces`` no earlier state showed a tile at."""
        for p in pieces:
            if not any(math.dist(c, p.centre) < 0.5 * p.width for c, _ in self._seen):
                self._seen.append((p.centre, frame))

    def _age(self, p: Piece) -> int:
        """The first stable state's frame that showed a tile where ``p`` lies."""
        for centre, frame in self._seen:
            if math.dist(centre, p.centre) < 0.5 * p.width:
                return frame
        return self.last_frame

    def _fits(self, p: Piece, placement: Placement) -> bool:
        """Whether the tile now shows the end's number against the end it touches."""
        if placement.end is None or placement.reason is not None:
            return False
        value = self.hand.table.values[END_INDEX[placement.end]]
        return value in p.pips and (placement.touching is None or placement.touching == value)

    def _unfollowed(self, state: StableState, reason: str, tiles: Sequence[str], events: list[Event]) -> None:
        self._unfollowed_at(state.frame, reason, tiles, events)

    def _unfollowed_at(self, frame: int, reason: str, tiles: Sequence[str], events: list[Event],
                       once: str | None = None) -> None:
        """Say ``reason`` once per tiles (or per ``once``, or per frame when neither)."""
        key = (reason, once) if once is not None else (reason, *tiles) if tiles else (reason, str(frame))
        if key not in self.reported:
            self.reported.add(key)
            self._emit(events, Event(frame, Kind.UNFOLLOWED, reason=reason, tiles=tuple(tiles) or None))

    def _after_play(self, state: StableState, events: list[Event]) -> None:
        self._after_play_at(state.frame, events)

    def _after_play_at(self, frame: int, events: list[Event]) -> None:
        outcome = self.hand.outcome()
        if outcome is None:
            return
        if outcome.termination is Termination.BLOCKED:
            self._emit(events, Event(frame, Kind.BLOCKED))
        if outcome.termination is Termination.TARGET:
            self._finish(frame, events, None)
        else:
            self.waiting_reveal = True

    # -- the end of a hand -------------------------------------------------------------------

    def _finish(self, frame: int, events: list[Event], reveal: list[list[str]] | None, inferred: bool = False) -> None:
        if reveal is not None:
            try:
                for seat, tiles in enumerate(reveal):
                    if self.hand.held_count(seat):
                        self.hand.reveal(seat, [Tile.parse(t) for t in tiles])
            except ValueError:
                reveal = None
        outcome = self.match.finish_hand()
        self._finished_line = self.on_table()
        self.waiting_reveal = False
        self.over = True
        self._emit(events, Event(frame, Kind.HAND_END, winner=None if outcome is None else outcome.winner,
                                 points=None if outcome is None else outcome.points,
                                 reveal=None if reveal is None else tuple(tuple(s) for s in reveal),
                                 inferred=True if inferred and reveal is not None else None))
        if self.match.is_over():
            self._emit(events, Event(frame, Kind.MATCH_END, winners=tuple(self.match.winners()),
                                     scores=tuple(self.match.scores)))

    def _replay(self, actions: list[Action], arms: list[int], swap: dict[Tile, Tile]) -> None:
        """Apply ``actions`` again (plays on the ``arms`` they went to), tiles renamed by ``swap``."""
        plays = iter(arms)
        for action in actions:
            if action.kind == "play":
                assert action.tile is not None
                tile = swap.get(action.tile, action.tile)
                i = next(plays)
                end = None if i < 0 else ENDS[i]
                self.hand.play(Play(tile, end), seat=action.player)
            elif action.kind == "draw":
                self.hand.draw(seat=action.player, unseen=True)
            else:
                self.hand.pass_turn(action.player)
