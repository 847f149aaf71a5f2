"""The dashboard around one live session: the hub, the web server and the frame loop's side
(publishing the referee's state and the annotated frame, applying the controls the page sent).

The frame loop (``referee.cli_session.run``) calls, in its own thread:

- :meth:`Dashboard.start` once (returns the URL to print, with the token when one is needed),
- :meth:`Dashboard.frame` after each frame the session took,
- :meth:`Dashboard.pace` between frames of a recorded source (waits for the next frame's time,
  applying controls meanwhile), or :meth:`Dashboard.controls` to apply what is waiting,
- :meth:`Dashboard.ended` when the source ran out, then :meth:`Dashboard.serve` (controls until
  Ctrl-C), and :meth:`Dashboard.stop` in any case.
"""

from __future__ import annotations

import dataclasses
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np

from referee.rules import IllegalAction
from referee.session.loop import Input, Session
from referee.session.phrases import Phrases
from referee.vision.annotate import annotate
from referee.vision.types import Detection
from referee.web.app import create_app
from referee.web.hub import Answer, Control, Hub
from referee.web.server import Server, is_local
from referee.web.snapshot import event_entry, snapshot
from referee.web.stats import StatsSource

Picture = Callable[[], "np.ndarray | None"]


@dataclasses.dataclass(frozen=True)
class DashboardConfig:
    """``host``/``port``: where to listen (port 0: any free port); ``pace``: frames per second
    a recorded source is fed at (0: as fast as they come); ``frame_rate``: annotated frames sent
    per second at most; ``frame_width``: their width at most, in pixels; ``jpeg_quality``;
    ``refresh``: seconds between state updates when nothing else changed (the frame number)."""

    host: str = "127.0.0.1"
    port: int = 8765
    pace: float = 0.0
    frame_rate: float = 10.0
    frame_width: int = 960
    jpeg_quality: int = 80
    refresh: float = 2.0

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be from 0 to 65535, got {self.port}")
        if self.pace < 0:
            raise ValueError(f"pace must be >= 0 frames per second, got {self.pace}")
        if self.frame_rate <= 0 or self.refresh <= 0:
            raise ValueError(f"frame_rate and refresh must be > 0, got {self.frame_rate}, {self.refresh}")
        if self.frame_width < 64 or not 1 <= self.jpeg_quality <= 100:
            raise ValueError(f"frame_width must be >= 64 and jpeg_quality 1-100, got {self.frame_width}, "
                             f"{self.jpeg_quality}")


class Dashboard:
    def __init__(self, session: Session, phrases: Phrases, names: Sequence[str] | None = None,
                 config: DashboardConfig | None = None, *, store: StatsSource | None = None,
                 token: str | None = None) -> None:
        self.session = session
        self.phrases = phrases
        self.names = names
        self.config = config or DashboardConfig()
        self.token = token if token is not None else (
            None if is_local(self.config.host) else secrets.token_urlsafe(16))
        self.hub = Hub()
        self.app = create_app(self.hub, token=self.token, store=store)
        self.server = Server(self.app, self.hub, self.config.host, self.config.port)
        self.index = max(-1, session.referee.last_frame)
        self.occluded = False
        self.source_ended = False
        self._answer: dict[str, Any] | None = None
        self._key: tuple[Any, ...] | None = None
        self._published = 0.0
        self._framed = 0.0
        self._last: tuple[Detection, Picture] | None = None
        self._due = time.monotonic()

    # -- starting and stopping -------------------------------------------------------------

    def start(self) -> str:
        """Listen and serve; the URL to give people (with ``?token=`` when controls need one).
        :class:`referee.web.server.PortInUse` when the port is taken."""
        self.publish(force=True)
        self.hub.publish_frame(_placeholder("waiting for the first frame"))
        url = self.server.start()
        return url if self.token is None else f"{url}?token={self.token}"

    def stop(self) -> None:
        self.server.stop()

    # -- the frame loop's side -------------------------------------------------------------

    def frame(self, index: int, detection: Detection, picture: Picture) -> None:
        """After the session took frame ``index``: publish the state if it changed (or every
        ``refresh`` seconds for the frame number) and the annotated frame (``picture()`` is
        only read when one is due: at most ``frame_rate`` a second)."""
        self.index = index
        self.occluded = detection.occluded
        self._last = (detection, picture)
        now = time.monotonic()
        if now - self._framed >= 1.0 / self.config.frame_rate:
            self._framed = now
            self._send_frame(detection, picture)
        self.publish()

    def controls(self) -> None:
        """Apply every control waiting (each answered on the page)."""
        for control in self.hub.take():
            self.apply(control)

    def pace(self) -> None:
        """Between frames of a recorded source: wait until the next frame is due (``pace`` a
        second), applying controls as they come; without a pace, only apply those waiting."""
        if not self.config.pace:
            self.controls()
            return
        self._due = max(self._due + 1.0 / self.config.pace, time.monotonic() - 1.0)
        while (left := self._due - time.monotonic()) > 0:
            control = self.hub.wait_control(left)
            if control is not None:
                self.apply(control)

    def ended(self) -> None:
        """The source ran out: show the last frame and say so."""
        self.source_ended = True
        if self._last is not None:
            self._send_frame(*self._last)
        self.publish(force=True)

    def serve(self) -> None:
        """After the source ended: apply controls as they come, until Ctrl-C (which returns) or
        :meth:`stop`."""
        try:
            while not self.hub.closed:
                control = self.hub.wait_control(1.0)
                if control is not None:
                    self.apply(control)
        except KeyboardInterrupt:
            return

    def apply(self, control: Control) -> Answer:
        """Hand one control to the referee (as input by hand at the current frame) and publish
        its answer: the events it caused, or why it was refused."""
        frame = max(self.index, 0)
        before = self.session.referee.passes_waiting
        try:
            produced = self.session.manual(Input(frame, control.action, control.old, control.new, control.tile,
                                                 control.end, control.tiles, control.seat))
        except (ValueError, IllegalAction) as error:
            answer = Answer(control.id, control.action, False, str(error))
        else:
            entries = tuple(event_entry(len(self.session.events) - len(produced) + i, e, self.phrases, self.names)
                            for i, e in enumerate(produced))
            waiting = None if entries else self.session.waiting(control.action, before)
            message = " ".join(e["text"] for e in entries) or (
                f"{waiting[0].upper()}{waiting[1:]}." if waiting else _nothing(control.action))
            ok = (bool(entries) or waiting is not None) and not any(e["illegal"] for e in entries)
            if control.action == "next_hand":
                ok = True
                if not self.session.referee.over:
                    message = f"{message} The next hand has begun.".strip()
            answer = Answer(control.id, control.action, ok, message, entries)
        self._answer = answer.to_json()
        self.hub.answer(answer)
        self.publish(force=True)
        return answer

    def publish(self, force: bool = False) -> None:
        """Publish the state when something the page shows changed (or ``force``)."""
        referee = self.session.referee
        key = (len(self.session.events), referee.hand.move_count(), id(referee.hand), referee.over,
               referee.waiting_reveal, tuple(referee.match.scores), self.occluded, self.source_ended,
               tuple(sorted(referee.pending)))
        now = time.monotonic()
        if not force and key == self._key and now - self._published < self.config.refresh:
            return
        self._key, self._published = key, now
        self.hub.publish(snapshot(self.session, self.phrases, self.names, frame=self.index, occluded=self.occluded,
                                  source_ended=self.source_ended, controls_need_token=self.token is not None,
                                  answer=self._answer))

    def _send_frame(self, detection: Detection, picture: Picture) -> None:
        image = picture()
        if image is None:
            image = np.full((detection.height or 360, detection.width or 640, 3), 40, np.uint8)
        drawn = annotate(image, detection)
        h, w = drawn.shape[:2]
        if w > self.config.frame_width:
            drawn = cv2.resize(drawn, (self.config.frame_width, round(h * self.config.frame_width / w)),
                               interpolation=cv2.INTER_AREA)
        ok, jpeg = cv2.imencode(".jpg", drawn, [cv2.IMWRITE_JPEG_QUALITY, self.config.jpeg_quality])
        if ok:
            self.hub.publish_frame(jpeg.tobytes())


def _nothing(action: str) -> str:
    return {"undo": "Nothing to undo.", "pass": "Nothing happened.",
            "correct": "Nothing changed.", "next_hand": "",
            "reveal": "Noted: the hand is scored once every player holding tiles has shown them."}.get(
        action, "Nothing happened.")


def _placeholder(text: str) -> bytes:
    image = np.full((360, 640, 3), 40, np.uint8)
    cv2.putText(image, text, (40, 190), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (220, 220, 220), 2, cv2.LINE_AA)
    ok, jpeg = cv2.imencode(".jpg", image)
    assert ok
    return bytes(jpeg.tobytes())
