"""From frames to stable table states: a state counts only when several consecutive frames
without an arm over the table show the same face-up tiles in the same places; each tile's value
is voted over those frames, so a flickering pip count cannot produce a move, and face-down tiles
count where at least half of them show one. A tile vision misses in a frame or two, among
many it reads, is a lapse, not a change of the table."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter, deque

from referee.vision.types import Detection, TileReading


@dataclasses.dataclass(frozen=True)
class StableTile:
    """One tile of a stable state: its reading (the latest frame's geometry, oriented like the
    voted value), whether the vote decided its value, and the votes it got. For a tile the vote
    left undecided, ``sure_halves[i]`` is the number half ``i`` of ``reading`` showed surely
    in at least half the run's frames, and never another (None: no such number). A decided
    tile's ``first_seen`` is the first frame that read it surely where it lies, stable or not
    (between two stable states late in coming, it tells which of several tiles came first)."""

    reading: TileReading
    decided: bool
    votes: int
    sure_halves: tuple[int | None, int | None] = (None, None)
    first_seen: int | None = None  # the first frame, stable or not, that read this tile surely here
    #: The highest confidence of the run's sure readings of the voted value (None: the reading's own).
    peak: float | None = None

    @property
    def best(self) -> float:
        """How surely the voted value was read at best (:attr:`peak`, else the reading's confidence)."""
        return self.reading.confidence if self.peak is None else self.peak

    @property
    def name(self) -> str:
        return _name(self.reading.pips)


@dataclasses.dataclass(frozen=True)
class StableState:
    """What the table shows, agreed by ``frames`` consecutive frames from ``frame`` (the first
    frame that showed it) to ``last``."""

    frame: int
    last: int
    frames: int
    width: int
    height: int
    tiles: tuple[StableTile, ...]
    face_down: int
    face_down_at: tuple[tuple[float, float], ...] = ()
    #: The last frame before this state that no stable state took in: an arm over the table, or
    #: frames that never settled (an arm vision missed). A tile leaves the table only by a hand:
    #: one gone while every frame since it was seen settled into a state is lost by vision, not
    #: taken. None: not told (one frame makes a state, and no arm has shown: stills taken
    #: between moves, where nothing tells when a hand came).
    unsettled: int | None = None
    #: The first frame, settled or not, since which no frame without an arm showed more
    #: face-down tiles than this state: backs gone by this state went by then, at the latest
    #: (a draw made in frames that never settled is dated by it; rendered hand 9309-000).
    #: None: not told (this state's first frame).
    down_since: int | None = None

    def names(self) -> set[str]:
        return {t.name for t in self.tiles if t.decided}

    def detection(self) -> Detection:
        """The state as one detection (undecided tiles marked uncertain), for the layout."""
        tiles = tuple(dataclasses.replace(t.reading, uncertain=not t.decided) for t in self.tiles)
        return Detection(self.width, self.height, False, tiles)


@dataclasses.dataclass(frozen=True)
class StabiliserConfig:
    """``stable_frames``: consecutive agreeing frames a state needs; ``min_votes``: confident
    readings a tile's value needs (and a strict majority); ``match``: how far (in tile widths)
    a tile may move between frames and still be the same tile; ``miss_share``: the share of the
    surely read tiles a frame may miss (for fewer than ``stable_frames`` frames in a row) and
    still agree: vision loses a tile in a crowded frame now and then; ``half_sure``: the
    confidence a half of an unsure tile needs for its number to count (``sure_halves``), above
    a whole tile's bar: nothing else checks a half standing alone (on tiny, blurred tiles a
    half read at 0.5 was often another number); ``unsure_match``: how far (in tile widths) a
    tile read surely may lie from a box the run only ever read doubtfully and still be that tile
    (vision boxed it a little off, along a run of touching tiles), not a new tile;
    ``confirm_votes``: a state is given again, unchanged but for its votes, when more frames of
    it bring a tile to this many confident readings (the referee calls a placement illegal only
    once a tile is read surely that often: a tile read surely once and doubtfully since would
    otherwise never be judged while it lay there), its best reading (:attr:`StableTile.best`)
    having at least ``confirm_confidence`` (the referee's bar for an illegal call: until the
    best reading reaches it, more votes give the state again no more than fewer did)."""

    stable_frames: int = 2
    min_votes: int = 1
    match: float = 0.5
    miss_share: float = 1 / 3
    half_sure: float = 0.8
    lapse_share: float = 0.5
    unsure_match: float = 0.75
    confirm_votes: int = 2
    confirm_confidence: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.stable_frames, int) or self.stable_frames < 1:
            raise ValueError(f"stable_frames must be a whole number of frames >= 1, got {self.stable_frames!r}")
        if not isinstance(self.min_votes, int) or self.min_votes < 1:
            raise ValueError(f"min_votes must be a whole number >= 1, got {self.min_votes!r}")
        if not isinstance(self.confirm_votes, int) or self.confirm_votes < 1:
            raise ValueError(f"confirm_votes must be a whole number >= 1, got {self.confirm_votes!r}")
        if isinstance(self.confirm_confidence, bool) or not (
                isinstance(self.confirm_confidence, (int, float)) and 0 <= self.confirm_confidence <= 1):
            raise ValueError(f"confirm_confidence must be a confidence from 0 to 1, got {self.confirm_confidence!r}")
        if not (isinstance(self.miss_share, (int, float)) and 0 <= self.miss_share < 1):
            raise ValueError(f"miss_share must be a share of the tiles from 0 to below 1, got {self.miss_share!r}")
        if not (isinstance(self.half_sure, (int, float)) and 0 < self.half_sure <= 1):
            raise ValueError(f"half_sure must be a confidence above 0 and at most 1, got {self.half_sure!r}")
        if not (isinstance(self.lapse_share, (int, float)) and self.miss_share <= self.lapse_share < 1):
            raise ValueError(f"lapse_share must be a share of the tiles from miss_share to below 1, "
                             f"got {self.lapse_share!r}")
        if not (isinstance(self.match, (int, float)) and 0 < self.match < 2):
            raise ValueError(f"match must be a number of tile widths between 0 and 2, got {self.match!r}")
        if not (isinstance(self.unsure_match, (int, float)) and self.match <= self.unsure_match < 2):
            raise ValueError(f"unsure_match must be a number of tile widths from match to below 2, "
                             f"got {self.unsure_match!r}")


@dataclasses.dataclass
class _Track:
    readings: list[TileReading]
    frames: list[int]

    @property
    def firm(self) -> bool:
        """Read with confidence at least once: it must be in every frame of the run."""
        return any(not r.uncertain for r in self.readings)


#: How many frames' face-down counts the stabiliser keeps (see StableState.down_since).
_DOWNS = 100


def _width(t: TileReading) -> float:
    (x0, y0), (x1, y1) = t.halves
    return max(math.hypot(x1 - x0, y1 - y0), 1.0)


def _key(pips: tuple[int, int]) -> tuple[int, int]:
    return (max(pips), min(pips))


def _name(pips: tuple[int, int]) -> str:
    return "{}-{}".format(*_key(pips))


class Stabiliser:
    """Feed it every frame's detection; it returns a state when one becomes stable (and again
    when more frames of the same state change a tile's voted value, or bring a tile to
    ``confirm_votes`` confident readings)."""

    def __init__(self, config: StabiliserConfig | None = None) -> None:
        self.config = config or StabiliserConfig()
        self._run: list[tuple[int, Detection]] = []
        self._tracks: list[_Track] = []
        self._emitted: tuple[tuple[str | bool | int, ...], ...] | None = None
        self._held: list[tuple[int, Detection]] = []  # the lapse going on (see ``feed``)
        self._unsettled = -1  # see StableState.unsettled
        self._arm_seen = False  # an occluded frame came: the source shows arms
        # Every tile read surely in any unoccluded frame: name -> (frame, centre, width) of the
        # first such reading at each place; kept across runs (a state may miss a tile vision
        # lost for a while), pruned as states show other tiles there.
        self._sightings: dict[str, list[tuple[int, tuple[float, float], float]]] = {}
        # The last frames' face-down counts (see StableState.down_since).
        self._downs: deque[tuple[int, int]] = deque(maxlen=_DOWNS)

    def settled(self) -> bool:
        """Whether the frames since the last state still show it: no arm, lapse or other table
        came after it."""
        return self._emitted is not None and not self._held

    def reset(self) -> None:
        """Start a new run (an arm over the table); the sightings stay."""
        self._run, self._tracks, self._emitted, self._held = [], [], None, []

    def feed(self, frame: int, detection: Detection) -> StableState | None:
        if detection.occluded:
            self._arm_seen = True
            self._unsettle(frame)
            self.reset()
            return None
        # A frame in which vision found nothing at all, or none of most of the tiles the run
        # read surely, is a lapse (the table's tiles do not all go between two frames; an arm
        # vision did not see hides them): held aside, not a new run, unless such frames last
        # ``stable_frames`` frames (the table was cleared, or moved): then they start one.
        if self._lapse(detection):
            self._held.append((frame, detection))
            if len(self._held) < self.config.stable_frames:
                return None
            held, self._held = self._held, []
            if len(self._run) < self.config.stable_frames:
                self._unsettle(self._run[-1][0])  # a run too short to be a state
            self._run, self._tracks = [], []
            states = [self._take(f, d) for f, d in held]
            return next((s for s in reversed(states) if s is not None), None)
        if self._held:  # a lapse shorter than a state: frames that never settled
            self._unsettle(self._held[-1][0])
            self._held = []
        return self._take(frame, detection)

    def _unsettle(self, frame: int) -> None:
        self._unsettled = max(self._unsettled, frame)

    def _take(self, frame: int, detection: Detection) -> StableState | None:
        """``detection`` into the run (or a new run when it shows other tiles): the state, when
        the run is long enough and its state is new."""
        self._sight(frame, detection)
        pairs = self._pairs(detection) if self._run else None
        if pairs is None:
            if 0 < len(self._run) < self.config.stable_frames:
                self._unsettle(self._run[-1][0])  # a run too short to be a state
            self._run = []
            self._tracks = [_Track([t], [frame]) for t in detection.tiles]
            self._emitted = None
        else:
            for i, k in pairs:
                if k < 0:
                    self._tracks.append(_Track([detection.tiles[i]], [frame]))
                else:
                    self._tracks[k].readings.append(detection.tiles[i])
                    self._tracks[k].frames.append(frame)
        self._run.append((frame, detection))
        if len(self._run) < self.config.stable_frames:
            return None
        state = self._state()
        confirm = self.config.confirm_votes
        sure = self.config.confirm_confidence
        signature = (*sorted((t.name, t.decided, t.votes >= confirm and t.best >= sure) for t in state.tiles),
                     ("face_down", state.face_down))
        if signature == self._emitted:
            return None
        self._emitted = signature
        return self._dated(state)

    def _lapse(self, detection: Detection) -> bool:
        """Whether ``detection`` shows nothing while the run shows something, or none of more
        than ``lapse_share`` of the run's surely read tiles."""
        if not self._run:
            return False
        latest = self._run[-1][1]
        if not (detection.tiles or detection.face_down):
            return bool(latest.tiles or latest.face_down)
        firm = [t.readings[-1] for t in self._tracks if t.firm]
        lost = [r for r in firm if not any(math.dist(r.center, t.center) <= self.config.match * _width(r)
                                           for t in detection.tiles)]
        return bool(firm) and len(lost) > self.config.lapse_share * len(firm)

    # -- when each tile came ---------------------------------------------------------------
    def _sight(self, frame: int, detection: Detection) -> None:
        self._downs.append((frame, len(detection.face_down)))
        for t in detection.tiles:
            if t.uncertain:
                continue
            seen = self._sightings.setdefault(_name(t.pips), [])
            if not any(math.dist(c, t.center) <= self.config.match * w for _, c, w in seen):
                seen.append((frame, t.center, _width(t)))

    def _dated(self, state: StableState) -> StableState:
        """The state with each decided tile's first sighting where it lies. A sighting under
        a decided tile of another name is dropped (that tile was taken back, or misread), and a
        state showing no tile face up clears them all (a new hand)."""
        tiles = []
        for t in state.tiles:
            near = [f for f, c, w in self._sightings.get(t.name, []) if math.dist(c, t.reading.center) <= w]
            tiles.append(dataclasses.replace(t, first_seen=min(near)) if t.decided and near else t)
        if not tiles:
            self._sightings.clear()
        held = [(t.name, t.reading.center, _width(t.reading)) for t in tiles if t.decided]
        for name in list(self._sightings):
            kept = [(f, c, w) for f, c, w in self._sightings[name]
                    if not any(n != name and math.dist(c, at) <= 0.5 * aw for n, at, aw in held)]
            if kept:
                self._sightings[name] = kept
            else:
                del self._sightings[name]
        since = state.last + 1
        for frame, count in reversed(self._downs):
            if count > state.face_down:
                break
            since = frame
        return dataclasses.replace(state, tiles=tuple(tiles), down_since=min(since, state.frame))

    # -- agreeing --------------------------------------------------------------------------
    def _pairs(self, detection: Detection) -> list[tuple[int, int]] | None:
        """Each tile's track (-1: a new track for a tile read uncertain), or None when the frame
        shows other tiles than the run: a tile read with confidence where the run has none, or
        tiles the run read with confidence missing (more than ``miss_share`` of them, or one for
        ``stable_frames`` frames in a row). Tiles only ever read uncertain may come and go
        (vision's doubtful finds flicker); they do not break the agreement."""
        pairs: list[tuple[int, int]] = []
        free = set(range(len(self._tracks)))
        for i, t in enumerate(detection.tiles):
            best, best_d = -1, self.config.match * _width(t)
            for k in free:
                d = math.dist(self._tracks[k].readings[-1].center, t.center)
                if d <= best_d:
                    best, best_d = k, d
            if best < 0 and not t.uncertain:
                # A doubtful box of the run, boxed a little off the tile (along a run of touching
                # tiles): the tile read surely now, not a new one.
                reach = self.config.unsure_match * _width(t)
                near = [k for k in free if not self._tracks[k].firm
                        and math.dist(self._tracks[k].readings[-1].center, t.center) <= reach]
                best = min(near, key=lambda k: math.dist(self._tracks[k].readings[-1].center, t.center), default=-1)
                if best < 0 and not self._missed_at_start(t):
                    return None
            free.discard(best)
            pairs.append((i, best))
        # A tile read surely that this frame misses is a lapse of vision while few are missed
        # (at most ``miss_share`` of them) and only for less than ``stable_frames`` frames in a
        # row; beyond that it is gone, and the table changed.
        missing = [self._tracks[k] for k in free if self._tracks[k].firm]
        if missing:
            recent = {f for f, _ in self._run[max(0, len(self._run) - self.config.stable_frames + 1):]}
            firm = sum(1 for t in self._tracks if t.firm)
            if len(missing) > self.config.miss_share * firm or any(not recent & set(t.frames) for t in missing):
                return None
        return pairs

    def _missed_at_start(self, t: TileReading) -> bool:
        """Whether ``t``, read surely where the run has no tile, is one the run's first frames
        missed: the run is shorter than a state, and a frame before it read the same tile
        there. Vision loses a tile now and then (a plank's seam running through it), and the
        first frame after an arm is as likely to miss it as any: that is no new tile, and the
        state of the table must not wait for the next arm to go."""
        if len(self._run) >= self.config.stable_frames:
            return False
        start = self._run[0][0]
        return any(f < start and math.dist(c, t.center) <= self.config.match * w
                   for f, c, w in self._sightings.get(_name(t.pips), []))

    def _state(self) -> StableState:
        # A tile counts while it is seen in at least half the run's frames (a doubtful find
        # flickers; vision loses a sure one now and then).
        half = len(self._run) / 2
        tiles = tuple(self._vote(track) for track in self._tracks if len(track.frames) >= half)
        first, last = self._run[0][0], self._run[-1][0]
        latest = self._run[-1][1]
        places = self._face_down_places()
        told = self.config.stable_frames > 1 or self._arm_seen
        return StableState(first, last, len(self._run), latest.width, latest.height, tiles, len(places), places,
                           self._unsettled if told else None)

    def _face_down_places(self) -> tuple[tuple[float, float], ...]:
        """Where face-down tiles lie: places where at least half the run's frames show one (a
        tile vision missed in one frame is still there; a phantom in one frame is not)."""
        places: list[tuple[tuple[float, float], float, int]] = []  # centre, reach, frames
        for _, detection in self._run:
            for f in detection.face_down:
                c = f.center
                reach = 0.4 * min(math.dist(f.corners[0], f.corners[1]), math.dist(f.corners[1], f.corners[2]))
                for k, (centre, r, n) in enumerate(places):
                    if math.dist(centre, c) <= max(r, 2.0):
                        places[k] = (centre, r, n + 1)
                        break
                else:
                    places.append((c, reach, 1))
        need = (len(self._run) + 1) // 2
        return tuple(centre for centre, _, n in places if n >= need)

    def _sure_halves(self, track: _Track) -> tuple[int | None, int | None]:
        """The number each half of the track's latest reading showed surely (each frame's
        halves matched to the latest's by place), when it did so in at least half the run's
        frames and no other number was read surely there."""
        latest = track.readings[-1]
        seen: list[Counter[int]] = [Counter(), Counter()]
        for r in track.readings:
            if r.half_confidence is None:
                continue
            for i in (0, 1):
                if r.half_confidence[i] >= self.config.half_sure:
                    j = min((0, 1), key=lambda k: math.dist(r.halves[i], latest.halves[k]))
                    seen[j][r.pips[i]] += 1
        out: list[int | None] = []
        for votes in seen:
            ranked = votes.most_common()
            out.append(ranked[0][0] if len(ranked) == 1 and 2 * ranked[0][1] >= len(self._run) else None)
        return out[0], out[1]

    def _vote(self, track: _Track) -> StableTile:
        votes = Counter(_key(r.pips) for r in track.readings if not r.uncertain)
        latest = track.readings[-1]
        ranked = votes.most_common(2)
        if not ranked or ranked[0][1] < self.config.min_votes or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
            return StableTile(latest, False, ranked[0][1] if ranked else 0, self._sure_halves(track))
        value, count = ranked[0]
        # The latest confident reading of the winning value gives the geometry and orientation.
        best = next(r for r in reversed(track.readings) if not r.uncertain and _key(r.pips) == value)
        peak = max(r.confidence for r in track.readings if not r.uncertain and _key(r.pips) == value)
        return StableTile(best, True, count, peak=peak)
