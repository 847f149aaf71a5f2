"""Detection in worker processes, so a live referee keeps up: while one worker reads a frame, the
next reads the frame after it, and the two frames a table state needs are read side by side
rather than one after the other. Results come back in the order the frames were taken, so the
stabiliser sees exactly what it would see from one process, only sooner and more often.

Each worker holds at most one frame. A frame is taken from the source only when a worker is free,
so from a live camera (:class:`referee.session.live.LatestFrames`) each worker always starts on
the newest frame. Workers are started with ``spawn`` (no copy of the parent's threads), ignore
Ctrl-C (the parent stops them), and leave when the parent goes, even when it is killed: each
waits on its own end of a pipe, which closes when the parent dies."""

from __future__ import annotations

import collections
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Any

from referee.session.faces import read_with
from referee.vision.types import Detection, FaceModel

Detector = Callable[..., Detection]
#: What the frames read so far agree the faces look like, for the frame of this index, asked for
#: as the frame is sent.
Prior = Callable[[int], FaceModel | None]

__all__ = ["DetectPool", "WorkerError", "auto_workers"]

#: How long a worker may take to start (import OpenCV and the detector) before it counts as broken.
START_TIMEOUT = 120.0


class WorkerError(RuntimeError):
    """A detection worker could not start or died (killed, out of memory): the message says which."""


def auto_workers(live: bool, cpus: int | None = None) -> int:
    """The workers a session uses when none are asked for: from a live camera, one per core up
    to three (one frame read per worker in flight; the referee's own thread is mostly waiting);
    from a recording, one (a replay's order of work is then exactly that of one process)."""
    if not live:
        return 1
    return max(1, min(3, cpus if cpus is not None else os.cpu_count() or 1))


def _serve(conn: multiprocessing.connection.Connection, detect: Detector, threads: int) -> None:
    """A worker: read (frame, prior) pairs from ``conn`` and send back (True, detection) or
    (False, error)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    import cv2
    cv2.setNumThreads(threads)
    conn.send((True, None))  # started: the detector and OpenCV are imported
    while True:
        try:
            image, prior = conn.recv()
        except (EOFError, OSError):
            return  # the parent closed the pipe, or died
        try:
            reply: tuple[bool, Any] = (True, read_with(detect, image, prior))
        except Exception as error:  # handed to the parent, which raises it where it detects
            reply = (False, error)
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return
        except Exception as error:  # an error that does not pickle: its text does
            conn.send((False, RuntimeError(f"{type(error).__name__}: {error}")))


class _Worker:
    def __init__(self, number: int, detect: Detector, threads: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.number = number
        self.conn, child = context.Pipe(duplex=True)
        self.process = context.Process(target=_serve, args=(child, detect, threads),
                                       name=f"referee-detect-{number}", daemon=True)
        self.process.start()
        child.close()  # only the worker holds its end: the pipe closes when either side goes

    def receive(self, timeout: float | None = None) -> tuple[bool, Any]:
        if timeout is not None and not self.conn.poll(timeout):
            raise WorkerError(f"detection worker {self.number} did not start within {timeout:.0f} s")
        try:
            reply: tuple[bool, Any] = self.conn.recv()
        except (EOFError, OSError):
            raise self._died() from None
        return reply

    def send(self, image: Any, prior: FaceModel | None) -> None:
        try:
            self.conn.send((image, prior))
        except (BrokenPipeError, OSError):
            raise self._died() from None

    def _died(self) -> WorkerError:
        self.process.join(timeout=5.0)  # its pipe closes a moment before it has exited
        code = self.process.exitcode
        how = f" (exit code {code})" if code is not None else ""
        return WorkerError(f"detection worker {self.number} died{how}; try fewer workers (--workers 1)")

    def stop(self) -> None:
        self.conn.close()
        self.process.join(timeout=5.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=5.0)


class DetectPool:
    """Detect frames with ``workers`` processes (1: in this process, as a plain loop). ``detect``
    must pickle (a module-level function, or ``functools.partial`` of one) when ``workers`` > 1;
    ``threads`` is the OpenCV threads of each worker."""

    def __init__(self, detect: Detector, workers: int = 1, threads: int = 1) -> None:
        if workers < 1:
            raise ValueError(f"workers must be 1 or more, got {workers}")
        if workers > 1:
            try:
                pickle.dumps(detect)
            except (pickle.PicklingError, AttributeError, TypeError) as refused:
                raise ValueError(f"detection must pickle to run in worker processes (a module-level function, "
                                 f"or functools.partial of one), got {detect!r}: {refused}") from None
        self.detect = detect
        self.workers = workers
        self._pool: list[_Worker] = []
        try:
            if workers > 1:
                self._pool = [_Worker(n, detect, threads) for n in range(workers)]
                for worker in self._pool:
                    ok, why = worker.receive(START_TIMEOUT)
                    if not ok:
                        raise WorkerError(f"detection worker {worker.number} could not start: {why}")
        except BaseException:
            self.close()
            raise

    def map(self, frames: Iterable[tuple[int, Any]], prior: Prior | None = None,
            settle: int | None = None) -> Iterator[tuple[int, Any, Detection]]:
        """(index, image, detection) for each (index, image) of ``frames``, in their order. A frame is
        taken only when a worker is free for it; an error in detection is raised here, at its frame.
        ``prior`` says, as each frame is sent, what the frames before it agree the faces look like
        (:meth:`referee.session.loop.Session.prior`): the frame is read with it. With ``settle``,
        every frame at least ``settle`` before a frame is given back before that frame is sent, so
        the prior it is sent with (which uses only those frames: the consensus's ``lag``) is the
        one it has in a single process, however many workers there are."""
        if not self._pool:
            for index, image in frames:
                yield index, image, read_with(self.detect, image, prior(index) if prior else None)
            return
        source = iter(frames)
        free = collections.deque(self._pool)
        pending: collections.deque[tuple[int, Any, _Worker]] = collections.deque()

        def give_back() -> tuple[int, Any, Detection]:
            index, image, worker = pending.popleft()
            ok, value = worker.receive()
            free.append(worker)
            if not ok:
                raise value
            return index, image, value

        ended = False
        while True:
            while free and not ended:
                try:
                    index, image = next(source)
                except StopIteration:
                    ended = True
                    break
                # Frames far enough back to shape this frame's prior are given back first (a
                # replay sampled sparsely, or frames a live camera skipped).
                while settle is not None and pending and pending[0][0] <= index - settle:
                    yield give_back()
                worker = free.popleft()
                worker.send(image, prior(index) if prior else None)
                pending.append((index, image, worker))
            if not pending:
                return
            yield give_back()

    def close(self) -> None:
        for worker in self._pool:
            worker.stop()
        self._pool = []

    def __enter__(self) -> DetectPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()
