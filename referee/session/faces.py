"""The face colour and tile length a session's frames agree on. A camera that stays put over one
set sees the same faces at the same size in every frame, but vision estimates both afresh in each,
and now and then one estimate goes astray (the grain parts the colours differently, backs lying
close merge into one tile-shaped blob): that frame is then read badly, or not at all. Each frame's
own estimate (:attr:`Detection.face`) is kept, with the number of tiles it read surely; once
recent ones agreeing on the length read most of those tiles, the one of them nearest their median
colour is handed to the detection of the frames after them (``detect(image, prior=...)``, which
uses it where the frame's own estimate strays from it). A change of camera or set shows as the
frames' own estimates moving: the consensus follows them, or lapses while they disagree.

The consensus a frame is read with comes from frames at least ``lag`` before it, never from the
frames just before: worker processes read several frames at once, and which of the frames before
are read by the time a frame is sent depends on how many workers there are. Trailing by at least
the most workers there can be, every frame is read with the same prior whatever their number, and
a replay reads the same with one process or several."""

from __future__ import annotations

import collections
import dataclasses
import math
import statistics
from collections.abc import Callable
from typing import Any

from referee.vision.config import VisionConfig
from referee.vision.types import Detection, FaceModel

__all__ = ["ConsensusConfig", "FaceConsensus", "read_with", "session_vision"]


@dataclasses.dataclass(frozen=True)
class ConsensusConfig:
    """``keep``: the latest frames' own estimates used (frames without an arm that read a tile
    surely); ``least``: estimates needed before there is a consensus; ``agree``: lengths within
    this share of one another agree; ``share``: the share of the kept frames' surely read tiles
    that the frames agreeing must have read (else no consensus: each frame is read on its own);
    ``lag``: how many frames before the one it is given to the consensus ends (at least the most
    detection workers, 16); ``table``: tables within this of one another in colour (Lab, 8-bit,
    at the frame's middle) agree. ``keep`` 0 turns the consensus off."""

    keep: int = 9
    least: int = 3
    agree: float = 0.15
    share: float = 2 / 3
    lag: int = 16
    table: float = 12.0

    def __post_init__(self) -> None:
        if not isinstance(self.keep, int) or self.keep < 0:
            raise ValueError(f"keep must be a whole number of frames >= 0, got {self.keep!r}")
        if not isinstance(self.least, int) or self.least < 1:
            raise ValueError(f"least must be a whole number of frames >= 1, got {self.least!r}")
        if not (isinstance(self.agree, (int, float)) and 0 < self.agree < 1):
            raise ValueError(f"agree must be a share of the length between 0 and 1, got {self.agree!r}")
        if not (isinstance(self.share, (int, float)) and 0.5 < self.share <= 1):
            raise ValueError(f"share must be a share of the frames above 0.5 and at most 1, got {self.share!r}")
        if not isinstance(self.lag, int) or self.lag < 0:
            raise ValueError(f"lag must be a whole number of frames >= 0, got {self.lag!r}")
        if not (isinstance(self.table, (int, float)) and self.table > 0):
            raise ValueError(f"table must be a colour distance > 0, got {self.table!r}")


class FaceConsensus:
    """What the frames before a frame agree on (:meth:`prior`), from each frame's own estimate
    (:meth:`feed`, frames in order)."""

    def __init__(self, config: ConsensusConfig | None = None) -> None:
        self.config = config or ConsensusConfig()
        # The estimates not yet ``lag`` frames old, and the ``keep`` latest of those that are.
        # Each with the number of tiles its frame read surely.
        self._recent: collections.deque[tuple[int, FaceModel, int]] = collections.deque()
        self._kept: collections.deque[tuple[FaceModel, int]] = collections.deque(maxlen=max(1, self.config.keep))
        self._last: int | None = None  # the frame fed last

    def feed(self, index: int, detection: Detection) -> None:
        """Keep frame ``index``'s own estimate: not from a frame with an arm over the table (the
        arm's colour may have been taken for the faces), nor from one that read no tile surely
        (an estimate that read nothing is not borne out: the backs' colour taken for the faces
        finds plain tiles, or none). A frame fed again (a still view seen several times) counts once."""
        if index == self._last:
            return
        self._last = index
        sure = sum(1 for t in detection.tiles if not t.uncertain)
        if self.config.keep and not detection.occluded and detection.face is not None and sure:
            self._recent.append((index, detection.face, sure))

    def prior(self, index: int) -> FaceModel | None:
        """For frame ``index`` (frames come in order): of the latest ``keep`` estimates from
        frames at least ``lag`` before it, the group agreeing on the length whose frames read the
        most tiles surely, when it holds at least ``least`` estimates and ``share`` of the tiles
        all of them read surely; of that group, the estimate nearest its median colour. Else None.
        An estimate is borne out by what it reads: when a frame's estimates flip between the
        faces and the backs, those that found the faces read their pips. So is a table colour:
        the prior's is the one the group's frames that read the most tiles surely agree on (a
        frame that took the floor round the table for the table reads few tiles, or none)."""
        while self._recent and self._recent[0][0] <= index - self.config.lag:
            _, face, sure = self._recent.popleft()
            self._kept.append((face, sure))
        seen = list(self._kept)
        if not self.config.keep or len(seen) < self.config.least:
            return None
        group: list[tuple[FaceModel, int]] = []
        weight = 0
        for centre, _ in seen:
            agreeing = [(f, n) for f, n in seen if abs(f.length - centre.length) <= self.config.agree * centre.length]
            tiles = sum(n for _, n in agreeing)
            if tiles > weight:
                group, weight = agreeing, tiles
        best = [f for f, _ in group]
        if len(best) < self.config.least or weight < self.config.share * sum(n for _, n in seen):
            return None
        # Of those, the one nearest their median colour (a colour class parted differently holds
        # the faces' rims, or the backs): the newest of equals, as the light may have drifted.
        colour = [statistics.median(f.mean[i] for f in best) for i in range(3)]
        chosen = min(reversed(best), key=lambda f: math.dist(f.mean, colour))
        tables = [(f.table, n) for f, n in reversed(group) if f.table is not None]
        if not tables:
            return chosen

        def support(table: tuple[float, float, float]) -> int:
            return sum(n for other, n in tables if math.dist(other, table) <= self.config.table)

        return dataclasses.replace(chosen, table=max((t for t, _ in tables), key=support))


def read_with(detect: Callable[..., Detection], image: Any, prior: FaceModel | None) -> Detection:
    """``detect(image)``, handed the prior when there is one: a detector that reports no face
    model (a stand-in) never builds a consensus, so it is never handed one."""
    return detect(image) if prior is None else detect(image, prior=prior)


def session_vision(config: VisionConfig) -> VisionConfig:
    """The vision settings a session reads its frames with: ``config`` with one guess at the
    face colour a frame (``face_tries`` 1). The frames around a frame make up for its misreadings
    and the consensus settles the faces; a runner-up guess, read on one frame alone before any
    consensus, took a boneyard's back for a sure tile (rendered hand 9301-005, at repeat 3 its
    plays right fell 25 -> 18)."""
    return dataclasses.replace(config, face_tries=1)
