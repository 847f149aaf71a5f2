"""How soon a play is announced: the whole live loop (newest frame -> detection -> stabiliser ->
referee -> event log -> announcement) fed by a simulated camera at 15 frames per second, in real
time, with the detection processes ``referee watch`` uses from a camera (one per core up to 3, each
on one thread of OpenCV; ``--workers 1`` for one process).

The camera plays a rendered hand: every table state is held for ``--hold`` seconds and every arm
over the table for ``--arm`` seconds, frames delivered at 15 fps whether or not the referee keeps
up (the live loop takes the newest frame and drops the rest, as ``referee watch`` does). A play's
latency is the time from the first frame that shows the tile uncovered to its announcement.
Measured side by side in the same run, the reference: detection alone on one of the hand's frames.
One process must read ``stable_frames`` frames one after the other before a state counts; with
as many workers as that, they are read side by side, and the floor is about one detection.

Run: .venv/bin/python benchmarks/referee_latency.py [--hand DIR] [--hold S] [--arm S] [--workers N]
Last line: ``referee_latency: p50=N ms max=M ms plays=K/T detect=D ms/frame stable_frames=F workers=W``.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import referee  # noqa: F401  # isort: skip  (before numpy loads: one BLAS thread, as in every referee command)
import cv2

from referee.rules.record import parse_record
from referee.session.eventlog import EventLog
from referee.session.events import Event, Kind
from referee.session.faces import session_vision
from referee.session.live import LatestFrames
from referee.session.loop import Session
from referee.session.parallel import DetectPool, auto_workers
from referee.session.referee import RefereeConfig
from referee.session.sources import Frame
from referee.vision.config import VisionConfig
from referee.vision.detect import detect
from referee.vision.images import read_image

REPO = Path(__file__).resolve().parent.parent
FPS = 15.0


class SimulatedCamera:
    """A 15 fps camera showing a rendered hand: each state for ``hold`` s, each arm for ``arm`` s."""

    live = True
    description = "simulated camera"

    def __init__(self, hand: Path, hold: float, arm: float) -> None:
        data = json.loads((hand / "sequence.json").read_text())
        self.shots: list[tuple[int, float]] = []  # (rendered frame, seconds shown)
        for f in data["frames"]:
            self.shots.append((f["frame"], arm if f["occluded"] else hold / 2))
        self.images = {f["frame"]: read_image(hand / f["file"]) for f in data["frames"]}
        self.shown: dict[int, float] = {}  # rendered frame -> wall time first delivered
        self._closed = False

    def __iter__(self) -> Iterator[Frame]:
        start = time.perf_counter()
        index = 0
        for rendered, seconds in self.shots:
            for _ in range(max(1, round(seconds * FPS))):
                due = start + index / FPS
                delay = due - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)  # a camera delivers frames at its own pace
                if self._closed:
                    return
                self.shown.setdefault(rendered, time.perf_counter())
                yield Frame(rendered, self.images[rendered], index / FPS, str(rendered))
                index += 1

    def close(self) -> None:
        self._closed = True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hand", type=Path, default=REPO / "sample_images" / "sequences" / "sequence-11-000")
    parser.add_argument("--hold", type=float, default=2.0, help="seconds each table state is seen")
    parser.add_argument("--arm", type=float, default=0.5, help="seconds an arm is over the table")
    parser.add_argument("--stable-frames", type=int, default=2)
    parser.add_argument("--workers", type=int, help="detection processes (default: as referee watch chooses "
                        "from a camera, one per core up to 3)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    data = json.loads((args.hand / "sequence.json").read_text())
    rules = parse_record(data).rules
    camera = SimulatedCamera(args.hand, args.hold, args.arm)
    truth_plays = {e["tile"]: e["frame"] for e in data["events"] if e["event"] == "play"}
    said: dict[str, float] = {}

    def announce(event: Event, text: str | None) -> None:
        if event.kind is Kind.PLAY and event.tile is not None:
            said.setdefault(event.tile, time.perf_counter())

    from referee.session.stabilise import StabiliserConfig
    vision = session_vision(VisionConfig(max_pips=rules.max_pips))  # as referee watch reads: numbers of the set in play
    workers = args.workers or auto_workers(live=True)
    detected = 0
    with tempfile.TemporaryDirectory() as tmp, EventLog(Path(tmp) / "events.sqlite") as log, \
            DetectPool(functools.partial(detect, config=vision), workers) as pool:
        session = Session(rules, pool.detect, log=log,
                          referee_config=RefereeConfig(opener=data["hands"][0]["actions"][0]["player"]),
                          stabiliser=StabiliserConfig(stable_frames=args.stable_frames), announce=announce)
        with LatestFrames(camera) as latest:
            wanted = ((frame.index, frame.image) for frame in latest)
            for index, _, found in pool.map(wanted, session.prior, session.faces.config.lag):
                session.frame(index, detection=found)
                detected += 1
        session.finish()
    # The reference, side by side: detection alone on the hand's frames, after the run.
    reference = []
    for rendered in list(camera.images)[:: max(1, len(camera.images) // 10)]:
        t0 = time.perf_counter()
        detect(camera.images[rendered], vision)
        reference.append(1000 * (time.perf_counter() - t0))
    latencies = []
    for tile, frame in truth_plays.items():
        if tile in said and frame in camera.shown:
            latencies.append(1000 * (said[tile] - camera.shown[frame]))
            print(f"{tile}: announced {latencies[-1]:.0f} ms after the first frame showing it")
        else:
            print(f"{tile}: not announced")
    print(f"frames detected during the run: {detected} by {workers} worker{'s' if workers > 1 else ''}; "
          f"frames dropped while busy: {latest.dropped}")
    p50 = statistics.median(latencies) if latencies else float("nan")
    worst = max(latencies) if latencies else float("nan")
    print(f"referee_latency: p50={p50:.0f} ms max={worst:.0f} ms plays={len(latencies)}/{len(truth_plays)} "
          f"detect={statistics.median(reference):.0f} ms/frame stable_frames={args.stable_frames} workers={workers}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
