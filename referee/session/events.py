"""What the referee reports: one frozen value per event, in the JSON shape ``referee replay
--json`` prints (one object per line)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any


class Kind(enum.StrEnum):
    """The kinds of event, as written in JSON."""

    PLAY = "play"
    ILLEGAL = "illegal"
    DRAW = "draw"
    PASS = "pass"
    BLOCKED = "blocked"
    HAND_END = "hand_end"
    MATCH_END = "match_end"
    UNFOLLOWED = "unfollowed"  # the table changed in a way the referee could not follow
    UNDO = "undo"  # the last event was taken back (by hand)
    CORRECTION = "correction"  # a misread tile was corrected (by hand)
    REVEAL = "reveal"  # one player's tiles shown at the hand's end, entered by hand (others still to come)

    def __repr__(self) -> str:
        return f"Kind.{self.name}"

    def __str__(self) -> str:
        return self.value


@dataclasses.dataclass(frozen=True)
class Event:
    """One event. Fields that do not apply to a kind stay None (and are left out of JSON).

    - ``play``: ``tile`` ("6-3"), ``end`` (left, right, up, down; None for the opening tile),
      ``player`` (seat, from 0), ``points`` (the fives points it scored); ``inferred`` when the
      table was re-read after changes the referee could not follow one by one (the tile and end
      are as seen; the order, so the player and points, are the rules' best account);
      ``by_hand`` when it was entered by hand (a tile the camera could not read).
    - ``illegal``: ``tile``, ``reason`` (a rules reason code), ``player``, ``end`` if known.
    - ``draw``, ``pass``: ``player``; a draw seen only after later plays also has ``at``, the
      hand's move number it goes in at (before the drawer's play), so a resumed session puts it
      back where it happened.
    - ``blocked``: nothing more.
    - ``hand_end``: ``winner`` (seat or None for a tie or an unknown winner), ``points`` (the
      award, None when hidden tiles make it unknowable), ``reveal`` (each seat's tiles as read
      from the table, when they were); ``inferred`` when the reveal holds the double blank that
      vision read as a back.
    - ``match_end``: ``winners``, ``scores``.
    - ``unfollowed``: ``reason`` (what changed), ``tiles`` (the tiles involved).
    - ``undo``: ``reason`` (the kind of event taken back); ``correction``: ``tile`` (the tile as
      corrected), ``reason`` (what it was read as).
    - ``reveal``: ``player``, ``tiles``, ``by_hand``: the tiles one player shows at the hand's
      end, entered by hand while other players' are still awaited (logged, so a resumed session
      keeps them; the ``hand_end`` that follows holds the whole reveal).
    """

    frame: int
    kind: Kind
    tile: str | None = None
    end: str | None = None
    player: int | None = None
    points: int | None = None
    reason: str | None = None
    winner: int | None = None
    winners: tuple[int, ...] | None = None
    scores: tuple[int, ...] | None = None
    tiles: tuple[str, ...] | None = None
    reveal: tuple[tuple[str, ...], ...] | None = None
    inferred: bool | None = None
    at: int | None = None
    by_hand: bool | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"frame": self.frame, "event": self.kind.value}
        for field in dataclasses.fields(self):
            if field.name in ("frame", "kind"):
                continue
            value = getattr(self, field.name)
            if value is None and not (self.kind is Kind.HAND_END and field.name in ("winner", "points")) and not (
                    self.kind is Kind.PLAY and field.name == "end"):
                continue
            if field.name == "reveal" and value is not None:
                out[field.name] = [list(v) for v in value]
            else:
                out[field.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        """The event a JSON object describes; ``ValueError`` naming what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"an event must be an object, got {data!r}")
        try:
            kind = Kind(data["event"])
        except KeyError:
            raise ValueError(f"event without an 'event' field: {data!r}") from None
        except ValueError:
            raise ValueError(f"unknown event {data.get('event')!r}") from None
        frame = data.get("frame")
        if not isinstance(frame, int) or isinstance(frame, bool):
            raise ValueError(f"event {kind.value}: 'frame' must be an integer, got {frame!r}")
        kwargs: dict[str, Any] = {}
        types = {"tile": str, "end": str, "reason": str, "player": int, "points": int, "winner": int,
                 "inferred": bool, "at": int, "by_hand": bool}
        for name, typ in types.items():
            value = data.get(name)
            if value is not None:
                if not isinstance(value, typ) or (isinstance(value, bool) and typ is not bool):
                    raise ValueError(f"event {kind.value}: {name!r} must be {typ.__name__}, got {value!r}")
                kwargs[name] = value
        for name, item in (("winners", int), ("scores", int), ("tiles", str)):
            value = data.get(name)
            if value is not None:
                if not isinstance(value, list) or not all(
                        isinstance(v, item) and not isinstance(v, bool) for v in value):
                    raise ValueError(f"event {kind.value}: {name!r} must be a list of {item.__name__}")
                kwargs[name] = tuple(value)
        reveal = data.get("reveal")
        if reveal is not None:
            if not isinstance(reveal, list) or not all(
                    isinstance(seat, list) and all(isinstance(t, str) for t in seat) for seat in reveal):
                raise ValueError(f"event {kind.value}: 'reveal' must be a list of lists of tiles")
            kwargs["reveal"] = tuple(tuple(seat) for seat in reveal)
        unknown = set(data) - {"frame", "event", *types, "winners", "scores", "tiles", "reveal"}
        if unknown:
            raise ValueError(f"event {kind.value}: unknown field {sorted(unknown)[0]!r}")
        return cls(frame, kind, **kwargs)
