"""Detection in worker processes: the same detections as one process, in the frames' order, a
frame taken only when a worker is free, errors raised at their frame, a dead worker named, and no
worker left behind when the referee is killed."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from referee.rules import Rules, Variant
from referee.session.faces import ConsensusConfig
from referee.session.loop import Session
from referee.session.parallel import DetectPool, WorkerError, auto_workers
from referee.vision.detect import detect
from referee.vision.images import read_image
from referee.vision.types import Detection, FaceModel, TileReading
from tests.helpers import REPO

SAMPLE = REPO / "sample_images" / "sequences" / "sequence-11-000"


def shape_of(image: np.ndarray) -> Detection:
    """A stand-in detector (it pickles: module level): the frame's size; a frame whose first
    pixel is 7 is "unreadable", one whose first pixel is 9 kills its worker."""
    if image.flat[0] == 7:
        raise ValueError(f"cannot read a frame of {image.shape[1]}x{image.shape[0]}")
    if image.flat[0] == 9:
        os._exit(3)
    return Detection(image.shape[1], image.shape[0], bool(image.flat[0] == 1))


def length_of(image: np.ndarray, prior: FaceModel | None = None) -> Detection:
    """A stand-in detector taking a prior: the prior's tile length as the frame's width (0: none)."""
    return Detection(0 if prior is None else round(prior.length), image.shape[0], False)


def faced(image: np.ndarray, prior: FaceModel | None = None) -> Detection:
    """A stand-in detector that estimates the faces: the tile length is the frame's first pixel;
    the width it reports is the prior's length it was read with (0: none); it reads one tile surely."""
    face = FaceModel((200.0, 128.0, 133.0), EYE, float(image.flat[0]))
    sure = TileReading((6, 4), ((4.0, 5.0), (6.0, 5.0)), ((3.0, 4.0), (7.0, 4.0), (7.0, 6.0), (3.0, 6.0)),
                       (5.0, 5.0), 0.9)
    return Detection(0 if prior is None else round(prior.length), image.shape[0], False, (sure,), face=face)


EYE = ((0.02, 0.0, 0.0), (0.0, 0.08, 0.0), (0.0, 0.0, 0.08))


def frames(*firsts: int) -> list[tuple[int, np.ndarray]]:
    out = []
    for index, first in enumerate(firsts):
        image = np.zeros((10 + index, 20, 3), np.uint8)
        image.flat[0] = first
        out.append((index, image))
    return out


def test_workers_read_what_one_process_reads_in_the_frames_order() -> None:
    shots = [(index, read_image(SAMPLE / f"frame-{index:04d}.jpg")) for index in (0, 3, 6, 9)]
    alone = [(i, d) for i, _, d in DetectPool(functools.partial(detect)).map(shots)]
    with DetectPool(functools.partial(detect), workers=2) as pool:
        side_by_side = [(i, d) for i, _, d in pool.map(shots)]
    assert [i for i, _ in side_by_side] == [0, 3, 6, 9]
    assert side_by_side == alone
    assert any(d.tiles for _, d in alone)  # real readings, not empty tables


def test_a_frame_is_taken_only_when_a_worker_is_free() -> None:
    taken: list[int] = []
    given: list[int] = []

    def source() -> Iterator[tuple[int, np.ndarray]]:
        for index, image in frames(*[0] * 8):
            taken.append(index)
            yield index, image

    with DetectPool(shape_of, workers=3) as pool:
        for index, image, found in pool.map(source()):
            given.append(index)
            assert found == Detection(20, image.shape[0], False)
            # a live camera's newest frame is taken when a worker frees up, not queued ahead
            assert len(taken) - len(given) <= 2
    assert given == taken == list(range(8))


def test_an_error_in_detection_is_raised_at_its_frame() -> None:
    given = []
    with DetectPool(shape_of, workers=2) as pool, pytest.raises(ValueError, match="cannot read a frame of 20x12"):
        for index, _, _ in pool.map(frames(0, 1, 7, 0)):
            given.append(index)
    assert given == [0, 1]


def test_a_worker_that_dies_is_named() -> None:
    with DetectPool(shape_of, workers=2) as pool, pytest.raises(WorkerError, match=r"worker \d died \(exit code 3\)"):
        list(pool.map(frames(0, 9, 0)))


def test_one_worker_detects_in_this_process() -> None:
    seen = []

    def local(image: np.ndarray) -> Detection:  # does not pickle: fine for one worker
        seen.append(image.shape)
        return shape_of(image)

    out = [d for _, _, d in DetectPool(local).map(frames(0, 1))]
    assert out == [Detection(20, 10, False), Detection(20, 11, True)] and len(seen) == 2
    with pytest.raises(ValueError, match="workers must be 1 or more, got 0"):
        DetectPool(local, workers=0)
    with pytest.raises(ValueError, match="detection must pickle to run in worker processes"):
        DetectPool(local, workers=2)  # refused before any process starts


def test_how_many_workers_by_default() -> None:
    assert auto_workers(live=False, cpus=8) == 1  # a recording: one process, its order of work exactly
    assert [auto_workers(live=True, cpus=n) for n in (1, 2, 4, 64)] == [1, 2, 3, 3]


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie nobody reaps has ended too)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


KILLED = """
import sys
from referee.rules import Rules, Variant
from referee.session.faces import ConsensusConfig
from referee.session.loop import Session
from referee.session.parallel import DetectPool
from tests.test_session_parallel import shape_of
if __name__ == "__main__":
    pool = DetectPool(shape_of, workers=2)
    print(" ".join(str(w.process.pid) for w in pool._pool), flush=True)
    sys.stdin.readline()  # killed while waiting here
"""


def test_workers_leave_when_the_referee_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "killed.py"
    script.write_text(KILLED)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    parent = subprocess.Popen([sys.executable, str(script)], cwd=REPO, env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) == 2 and not any(_gone(p) for p in pids)
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 30
        while not all(_gone(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)  # polling the workers' state: they leave on their own
        assert all(_gone(p) for p in pids)
    finally:
        parent.kill()
        parent.wait(timeout=30)


@pytest.mark.parametrize("workers", [1, 2])
def test_each_frame_is_read_with_the_prior_at_the_time_it_is_sent(workers: int) -> None:
    first, later = FaceModel((200.0, 128.0, 133.0), EYE, 46.0), FaceModel((200.0, 128.0, 133.0), EYE, 47.0)
    priors = iter([None, first, later, later, later])
    with DetectPool(length_of, workers=workers) as pool:
        widths = [d.width for _, _, d in pool.map(frames(0, 0, 0, 0), lambda index: next(priors))]
    assert widths == [0, 46, 47, 47]
    with DetectPool(shape_of, workers=workers) as pool:  # no prior: called as detect(image)
        assert [d.width for _, _, d in pool.map(frames(0, 0), lambda index: None)] == [20, 20]


def read_with_consensus(workers: int, settle: bool) -> list[int]:
    """The prior length each of a sparsely sampled replay's frames (every 5th) is read with, in a
    session whose consensus uses frames 5 or more before a frame; the tile length changes halfway."""
    session = Session(Rules(Variant.FIVES, players=2), faced, faces=ConsensusConfig(keep=3, least=2, lag=5))
    shots = [(5 * n, image) for n, (_, image) in enumerate(frames(*[40] * 5 + [60] * 5))]
    out = []
    with DetectPool(faced, workers=workers) as pool:
        for index, _, found in pool.map(shots, session.prior, 5 if settle else None):
            session.frame(index, detection=found)
            out.append(found.width)
    return out


def test_a_replay_reads_each_frame_with_the_prior_it_has_in_one_process() -> None:
    alone = read_with_consensus(1, settle=True)
    assert alone == [0, 0, 40, 40, 40, 40, 40, 60, 60, 60]  # the change shows once most agree
    assert read_with_consensus(3, settle=True) == alone
    # unsettled, a frame is sent before the frames just before it are back: it is read with less
    assert read_with_consensus(3, settle=False) != alone
