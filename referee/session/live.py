"""Keeping up with a live camera: a thread reads frames as fast as the camera gives them and keeps
only the newest, so the referee always looks at the table as it is now, however long one frame's
detection takes (a camera's own buffer would otherwise serve frames seconds old)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from types import TracebackType

from referee.session.sources import Frame, FrameSource


class LatestFrames:
    """Iterate over the newest frame of ``source`` each time the consumer is ready; frames that
    arrive while it is busy are dropped (``dropped`` counts them). An error in the source is
    raised in the consumer; the iteration ends when the source does."""

    def __init__(self, source: FrameSource) -> None:
        self.source = source
        self.dropped = 0
        self._newest: Frame | None = None
        self._done = False
        self._error: BaseException | None = None
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._read, name="camera-reader", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for frame in self.source:
                with self._ready:
                    if self._newest is not None:
                        self.dropped += 1
                    self._newest = frame
                    self._ready.notify()
                if self._done:
                    break
        except BaseException as error:  # handed to the consumer, which reports it
            with self._ready:
                self._error = error
        finally:
            with self._ready:
                self._done = True
                self._ready.notify()

    def __iter__(self) -> Iterator[Frame]:
        while True:
            with self._ready:
                while self._newest is None and not self._done:
                    self._ready.wait()
                frame, self._newest = self._newest, None
                error = self._error
            if frame is not None:
                yield frame
                continue
            if error is not None:
                raise error
            return

    def close(self) -> None:
        with self._ready:
            self._done = True
            self._ready.notify()
        self.source.close()
        self._thread.join(timeout=5.0)

    def __enter__(self) -> LatestFrames:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()
