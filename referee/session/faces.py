"""The face colour and tile length a session's frames agree on. A camera that stays put over one
set sees the same faces at the same size in every frame, but vision estimates both afresh in each,
and now and then one estimate goes astray (the grain parts the colours differently, backs lying
close merge into one tile-shaped blob): that frame is then read badly, or not at all. Each frame's
own estimate (:attr:`Detection.face`) is kept; once most of the recent ones agree on the length,
the one of those nearest their median colour is handed to the detection of the frames after
them (``detect(image, prior=...)``). A change of camera or set shows as the frames' own
estimates moving: the consensus follows them, or lapses while they disagree.

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

from referee.vision.types import Detection, FaceModel

__all__ = ["ConsensusConfig", "FaceConsensus"]


@dataclasses.dataclass(frozen=True)
class ConsensusConfig:
    """``keep``: the latest frames' own estimates used (frames without an arm that showed tiles);
    ``least``: estimates needed before there is a consensus; ``agree``: lengths within this share
    of the median agree; ``share``: the share of the kept estimates that must agree (else no
    consensus: each frame is read on its own); ``lag``: how many frames before the one it is
    given to the consensus ends (at least the most detection workers, 16). ``keep`` 0 turns the
    consensus off."""

    keep: int = 9
    least: int = 3
    agree: float = 0.15
    share: float = 2 / 3
    lag: int = 16

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


class FaceConsensus:
    """What the frames before a frame agree on (:meth:`prior`), from each frame's own estimate
    (:meth:`feed`, frames in order)."""

    def __init__(self, config: ConsensusConfig | None = None) -> None:
        self.config = config or ConsensusConfig()
        # The estimates not yet ``lag`` frames old, and the ``keep`` latest of those that are.
        self._recent: collections.deque[tuple[int, FaceModel]] = collections.deque()
        self._kept: collections.deque[FaceModel] = collections.deque(maxlen=max(1, self.config.keep))
        self._last: int | None = None  # the frame fed last

    def feed(self, index: int, detection: Detection) -> None:
        """Keep frame ``index``'s own estimate: not from a frame with an arm over the table (the
        arm's colour may have been taken for the faces), nor from one that showed no tiles. A
        frame fed again (a still view seen several times) counts once."""
        if index == self._last:
            return
        self._last = index
        if self.config.keep and not detection.occluded and detection.face is not None:
            self._recent.append((index, detection.face))

    def prior(self, index: int) -> FaceModel | None:
        """For frame ``index`` (frames come in order): of the latest ``keep`` estimates from
        frames at least ``lag`` before it, the one nearest the median colour of those agreeing on
        the length, when enough of them agree; else None."""
        while self._recent and self._recent[0][0] <= index - self.config.lag:
            self._kept.append(self._recent.popleft()[1])
        seen = list(self._kept)
        if not self.config.keep or len(seen) < self.config.least:
            return None
        middle = statistics.median(f.length for f in seen)
        agreeing = [f for f in seen if abs(f.length - middle) <= self.config.agree * middle]
        if len(agreeing) < self.config.share * len(seen):
            return None
        # Of those, the one nearest their median colour (a colour class parted differently holds
        # the faces' rims, or the backs): the newest of equals, as the light may have drifted.
        colour = [statistics.median(f.mean[i] for f in agreeing) for i in range(3)]
        return min(reversed(agreeing), key=lambda f: math.dist(f.mean, colour))
