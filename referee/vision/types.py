"""What vision hands on: small frozen values with reprs that paste back as code, and their JSON
(the shape ``referee detect --json`` prints and the renderer's truth files use)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]


def _pt(p: Sequence[float]) -> Point:
    return (round(float(p[0]), 2), round(float(p[1]), 2))


def _quad(q: Sequence[Sequence[float]]) -> Quad:
    a, b, c, d = (_pt(p) for p in q)
    return (a, b, c, d)


@dataclasses.dataclass(frozen=True)
class TileReading:
    """One face-up tile. ``halves[i]`` is the pixel centre of the half showing ``pips[i]``;
    ``corners`` go round the top face; ``uncertain`` tiles are reported, never trusted.
    ``half_confidence[i]``, when known, is how sure the reading of half ``i`` alone is (an
    uncertain tile may have one half read surely)."""

    pips: tuple[int, int]
    halves: tuple[Point, Point]
    corners: Quad
    center: Point
    confidence: float
    uncertain: bool = False
    half_confidence: tuple[float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pips": list(self.pips), "halves": [list(h) for h in self.halves],
            "corners": [list(c) for c in self.corners], "center": list(self.center),
            "confidence": round(self.confidence, 3)}
        if self.uncertain:
            out["uncertain"] = True
        if self.half_confidence is not None:
            out["half_confidence"] = [round(c, 3) for c in self.half_confidence]
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> TileReading:
        h0, h1 = (_pt(h) for h in d["halves"])
        corners = _quad(d["corners"]) if "corners" in d else ((0.0, 0.0),) * 4
        halves = d.get("half_confidence")
        sure = None if halves is None else (float(halves[0]), float(halves[1]))
        return cls((int(d["pips"][0]), int(d["pips"][1])), (h0, h1), corners,  # type: ignore[arg-type]
                   _pt(d["center"]), float(d.get("confidence", 1.0)), bool(d.get("uncertain", False)), sure)


@dataclasses.dataclass(frozen=True)
class FaceDown:
    """One tile lying face down (a boneyard tile)."""

    center: Point
    corners: Quad

    def to_json(self) -> dict[str, Any]:
        return {"center": list(self.center), "corners": [list(c) for c in self.corners]}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> FaceDown:
        corners = _quad(d["corners"]) if "corners" in d else ((0.0, 0.0),) * 4
        return cls(_pt(d["center"]), corners)  # type: ignore[arg-type]


Row = tuple[float, float, float]


@dataclasses.dataclass(frozen=True)
class FaceModel:
    """The set's face colour as one frame shows it (Lab with the lighting taken out: the mean,
    and the inverse covariance for Mahalanobis distances) and the tile length, in the frame's
    own pixels. A camera that stays put over one set sees the same in every frame, so a session
    hands the model its recent frames agree on to the detection of the next (see
    :class:`referee.session.faces.FaceConsensus`): a frame whose own estimate goes astray (a
    colour class parted differently by the grain, backs merged into one blob) is read like the
    frames around it."""

    mean: Row
    inverse: tuple[Row, Row, Row]
    length: float
    #: The table's colour (Lab, 8-bit) at the frame's middle, as the frame's table model has it.
    table: Row | None = None

    @classmethod
    def of(cls, mean: Sequence[float], inverse: Sequence[Sequence[float]], length: float,
           table: Sequence[float] | None = None) -> FaceModel:
        """From arrays (or sequences) of floats, rounded so that the repr stays short."""
        m = (round(float(mean[0]), 3), round(float(mean[1]), 3), round(float(mean[2]), 3))
        rows = [(round(float(r[0]), 7), round(float(r[1]), 7), round(float(r[2]), 7)) for r in inverse]
        t = None if table is None else (round(float(table[0]), 2), round(float(table[1]), 2), round(float(table[2]), 2))
        return cls(m, (rows[0], rows[1], rows[2]), round(float(length), 2), t)

    def strays(self, other: FaceModel, length: float, colour: float) -> bool:
        """Whether this estimate strays from ``other`` (a prior): its tile length more than
        ``length`` (a share) from ``other``'s, or its colour more than ``colour`` standard
        deviations (Mahalanobis, under ``other``'s spread) from ``other``'s."""
        if abs(self.length - other.length) > length * other.length:
            return True
        d = [a - b for a, b in zip(self.mean, other.mean, strict=True)]
        squared = sum(d[i] * other.inverse[i][j] * d[j] for i in range(3) for j in range(3))
        return squared > colour * colour


@dataclasses.dataclass(frozen=True)
class Detection:
    """Everything seen in one frame. An occluded frame (a hand or arm over the table) carries
    no tiles: the referee ignores it. ``face`` is the face colour and tile length the frame
    itself showed (None when it showed no tiles): what a session's consensus is made of. It is
    not part of the JSON, nor of equality (two readings of a frame are equal when they found the
    same)."""

    width: int
    height: int
    occluded: bool
    tiles: tuple[TileReading, ...] = ()
    face_down: tuple[FaceDown, ...] = ()
    face: FaceModel | None = dataclasses.field(default=None, compare=False)

    @property
    def uncertain(self) -> tuple[TileReading, ...]:
        return tuple(t for t in self.tiles if t.uncertain)

    def to_json(self) -> dict[str, Any]:
        return {"width": self.width, "height": self.height, "occluded": self.occluded,
                "tiles": [t.to_json() for t in self.tiles], "face_down": [f.to_json() for f in self.face_down]}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Detection:
        return cls(int(d["width"]), int(d["height"]), bool(d.get("occluded", False)),
                   tuple(TileReading.from_json(t) for t in d.get("tiles", ())),
                   tuple(FaceDown.from_json(f) for f in d.get("face_down", ())))


def point(p: Sequence[float]) -> Point:
    """A pixel point rounded to hundredths, as the JSON carries it."""
    return _pt(p)


def quad(q: Sequence[Sequence[float]]) -> Quad:
    return _quad(q)
