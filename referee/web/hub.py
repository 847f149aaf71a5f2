"""Where the frame loop (a plain thread) and the dashboard's server (asyncio) meet.

The frame loop publishes the referee's state (a JSON-able dict) and the latest annotated frame
(JPEG bytes) and takes the controls the page posted (:meth:`Hub.take`, :meth:`Hub.wait_control`),
answering each (:meth:`Hub.answer`). The server's handlers read the latest of each and wait for
the next change (:meth:`Hub.wait`) without polling: every waiter registers an asyncio event
that a publish sets through its loop's ``call_soon_threadsafe``. :meth:`Hub.close` wakes every
waiter for good, so open streams end when the server shuts down."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import itertools
import threading
from collections.abc import Callable, Iterator
from typing import Any

from referee.rules.tiles import parse_halves
from referee.session.loop import ACTIONS, END_NAMES, reveal_fields


class ControlError(ValueError):
    """A control request that is not one: the message names what is wrong."""


class HubClosed(RuntimeError):
    """The dashboard is shutting down: no more controls are taken."""


@dataclasses.dataclass(frozen=True)
class Control:
    """A control posted from the page: ``action`` is one of pass, undo, correct (``old`` read
    as, ``new`` really), next_hand, play (``tile`` the camera could not read, at ``end`` where
    it fits several), reveal (the ``tiles`` a player shows at the hand's end, ``seat`` from 0
    where several hold tiles); ``id`` numbers it so its answer can be found."""

    action: str
    old: str | None = None
    new: str | None = None
    id: int = 0
    tile: str | None = None
    end: str | None = None
    tiles: tuple[str, ...] = ()
    seat: int | None = None

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ControlError(f"unknown action {self.action!r}: one of {', '.join(ACTIONS)}")
        if self.action == "correct":
            for name in ("old", "new"):
                value = getattr(self, name)
                if value is None:
                    raise ControlError(f"a correction needs {name!r}: the tile as read and as it is, e.g. 6-4 6-5")
                parse_halves(value)  # ValueError naming the tile
        elif self.old is not None or self.new is not None:
            raise ControlError(f"{self.action} takes no 'old' or 'new' tiles (only correct does)")
        if self.action == "play":
            if self.tile is None:
                raise ControlError("a play needs 'tile': the tile laid, e.g. 6-4")
            parse_halves(self.tile)
            if self.end is not None and self.end not in END_NAMES:
                raise ControlError(f"'end' must be one of {', '.join(END_NAMES)}, got {self.end!r}")
        elif self.tile is not None or self.end is not None:
            raise ControlError(f"{self.action} takes no 'tile' or 'end' (only play does)")
        if self.action == "reveal":
            if not self.tiles:
                raise ControlError("a reveal needs 'tiles': the tiles shown, e.g. [\"0-0\", \"3-1\"]")
            for shown in self.tiles:
                parse_halves(shown)
        elif self.tiles or self.seat is not None:
            raise ControlError(f"{self.action} takes no 'tiles' or 'seat' (only reveal does)")

    @classmethod
    def from_json(cls, data: object) -> Control:
        """The control a posted JSON body asks for; :class:`ControlError` naming what is wrong."""
        if not isinstance(data, dict):
            raise ControlError(f"the body must be a JSON object like {{\"action\": \"pass\"}}, got {data!r}")
        unknown = sorted(set(data) - {"action", "old", "new", "tile", "end", "tiles", "seat"})
        if unknown:
            raise ControlError(f"unknown field {unknown[0]!r} (action, old, new, tile, end, tiles, seat)")
        action = data.get("action")
        if not isinstance(action, str):
            raise ControlError(f"'action' must be one of {', '.join(ACTIONS)}, got {action!r}")
        for name in ("old", "new", "tile"):
            if data.get(name) is not None and not isinstance(data[name], str):
                raise ControlError(f"{name!r} must be a tile like \"6-4\", got {data[name]!r}")
        end = data.get("end")
        if end == "":
            end = None  # the page's "any end"
        try:
            tiles, seat = reveal_fields(data)
            return cls(action, data.get("old"), data.get("new"), tile=data.get("tile"), end=end, tiles=tiles,
                       seat=seat)
        except ControlError:
            raise
        except ValueError as error:
            raise ControlError(str(error)) from None


@dataclasses.dataclass(frozen=True)
class Answer:
    """What became of a control: the events it produced (JSON, with their words) or the
    referee's refusal."""

    id: int
    action: str
    ok: bool
    message: str
    events: tuple[dict[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "action": self.action, "ok": self.ok, "message": self.message,
                "events": list(self.events)}


class _Waiter:
    """One waiting handler: an asyncio event on that handler's own loop."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.event = asyncio.Event()

    def wake(self) -> None:
        with contextlib.suppress(RuntimeError):  # that loop is closed: its handler is gone
            self.loop.call_soon_threadsafe(self.event.set)


class Hub:
    """The shared state; every method may be called from any thread (the ``async`` ones from
    a running event loop)."""

    def __init__(self, *, max_controls: int = 64, max_answers: int = 64) -> None:
        self._lock = threading.Lock()
        self._state: dict[str, Any] = {}
        self._version = 0
        self._jpeg: bytes | None = None
        self._frame_version = 0
        self._answers: collections.OrderedDict[int, Answer] = collections.OrderedDict()
        self._max_answers = max_answers
        self._controls: collections.deque[Control] = collections.deque()
        self._max_controls = max_controls
        self._control_came = threading.Condition(threading.Lock())
        self._ids = itertools.count(1)
        self._waiters: set[_Waiter] = set()
        self._closed = False
        self._streams = 0
        self._streams_changed = threading.Condition(self._lock)

    # -- the frame loop's side -------------------------------------------------------------

    def publish(self, state: dict[str, Any]) -> None:
        """A new snapshot of the referee's state (not copied: do not change it afterwards)."""
        with self._lock:
            self._state = state
            self._version += 1
        self._wake()

    def publish_frame(self, jpeg: bytes) -> None:
        """The latest annotated frame, as JPEG."""
        with self._lock:
            self._jpeg = jpeg
            self._frame_version += 1
        self._wake()

    def take(self) -> list[Control]:
        """Every control waiting, oldest first (none: an empty list; never blocks)."""
        with self._control_came:
            out = list(self._controls)
            self._controls.clear()
            return out

    def wait_control(self, timeout: float) -> Control | None:
        """The next control, waiting up to ``timeout`` seconds for one (None if none came, or
        at once when the hub is closed and none is left)."""
        with self._control_came:
            self._control_came.wait_for(lambda: self._controls or self._closed, timeout)
            return self._controls.popleft() if self._controls else None

    def answer(self, answer: Answer) -> None:
        """Publish what became of a control."""
        with self._lock:
            self._answers[answer.id] = answer
            while len(self._answers) > self._max_answers:
                self._answers.popitem(last=False)
        self._wake()

    # -- the server's side -----------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def state(self) -> tuple[int, dict[str, Any]]:
        with self._lock:
            return self._version, self._state

    def frame(self) -> tuple[int, bytes | None]:
        with self._lock:
            return self._frame_version, self._jpeg

    def answer_for(self, control_id: int) -> Answer | None:
        with self._lock:
            return self._answers.get(control_id)

    def submit(self, control: Control) -> Control:
        """Queue a control for the frame loop; returns it numbered. :class:`HubClosed` when
        shutting down, :class:`ControlError` when too many are waiting already."""
        if self._closed:
            raise HubClosed("the referee is shutting down")
        with self._control_came:
            if len(self._controls) >= self._max_controls:
                raise ControlError("too many controls waiting: the referee is busy, try again")
            numbered = dataclasses.replace(control, id=next(self._ids))
            self._controls.append(numbered)
            self._control_came.notify_all()
        return numbered

    async def wait(self, changed: Callable[[], bool], timeout: float) -> None:
        """Return once ``changed()`` is true (checked now and at every publish or answer), on
        :meth:`close`, or after ``timeout`` seconds, whichever comes first."""
        waiter = _Waiter()
        with self._lock:
            self._waiters.add(waiter)
        try:
            deadline = waiter.loop.time() + timeout
            while not (self._closed or changed()):
                left = deadline - waiter.loop.time()
                if left <= 0:
                    return
                waiter.event.clear()
                await asyncio.wait_for(waiter.event.wait(), left)
        except TimeoutError:
            pass
        finally:
            with self._lock:
                self._waiters.discard(waiter)

    @contextlib.contextmanager
    def stream(self) -> Iterator[None]:
        """Count an open stream (an event stream or the frames) while it lasts."""
        with self._lock:
            self._streams += 1
            self._streams_changed.notify_all()
        try:
            yield
        finally:
            with self._lock:
                self._streams -= 1
                self._streams_changed.notify_all()

    @property
    def streams(self) -> int:
        """How many streams are open (browsers watching)."""
        return self._streams

    def wait_streams(self, count: int, timeout: float) -> bool:
        """Wait until exactly ``count`` streams are open; False if that did not happen in time."""
        with self._lock:
            return self._streams_changed.wait_for(lambda: self._streams == count, timeout)

    def close(self) -> None:
        """Shutting down: wake every waiter, refuse new controls."""
        with self._control_came:
            self._closed = True
            self._control_came.notify_all()
        self._wake()

    def _wake(self) -> None:
        with self._lock:
            waiters = list(self._waiters)
        for waiter in waiters:
            waiter.wake()
