"""Where frames come from: a folder of images, a video file, a webcam or the Raspberry Pi camera,
all behind one small interface (:class:`FrameSource`) that yields :class:`Frame` values.

Every failure a user can cause (a wrong name, an unplugged camera, a corrupt file) is a
:class:`SourceError` whose message is one line saying which source and what to try.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import itertools
import math
import re
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
DEFAULT_FPS = 15.0

PICAMERA2_HINT = ("the Raspberry Pi camera needs picamera2: sudo apt install python3-picamera2 "
                  "and create the venv with --system-site-packages")


class SourceError(Exception):
    """A source cannot be opened or read; the message says which one and what to try."""


@dataclasses.dataclass(frozen=True, eq=False)
class Frame:
    """One frame: its number within the source, the BGR uint8 image (HxWx3), the seconds since the
    source started, and the file name (folders only, else ""). Equality is identity: comparing
    images is left to the caller."""

    index: int
    image: Image
    time: float
    name: str = ""

    def __repr__(self) -> str:
        return (f"Frame(index={self.index}, time={round(self.time, 3)!r}, name={self.name!r}, "
                f"shape={tuple(self.image.shape)!r})")


class FrameSource(Protocol):
    """What the referee loop reads from. Iterating yields frames until the source ends (never, for
    a live camera) or is closed; ``with source:`` closes it on the way out."""

    description: str
    live: bool

    def __iter__(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None: ...


class _Closing:
    """Context-manager plumbing shared by the sources; ``close`` is idempotent."""

    description: str = ""
    _closed: bool = False

    def close(self) -> None:
        self._closed = True

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.description}{' (closed)' if self._closed else ''}>"


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders digit runs by value, so ``frame-2`` comes before ``frame-10``."""
    parts = re.split(r"(\d+)", name.lower())
    return tuple((1, int(part)) if i % 2 else (0, part) for i, part in enumerate(parts))


def _trailing_number(stem: str) -> int | None:
    match = re.search(r"(\d+)$", stem)
    return int(match.group(1)) if match else None


class FolderSource(_Closing):
    """The images in a folder (.jpg .jpeg .png .bmp, any case; hidden files skipped) in natural
    name order. When every name ends in a number and the numbers increase (``frame-0012.jpg``),
    that number is the frame index, so rendered frames keep their numbers; otherwise the index is
    the position. ``time`` is ``index / fps``."""

    live = False

    def __init__(self, path: str | Path, fps: float = DEFAULT_FPS) -> None:
        if not fps > 0:
            raise ValueError(f"fps must be positive, not {fps}")
        self.path = Path(path)
        self.fps = float(fps)
        if not self.path.exists():
            raise SourceError(f"folder {self.path} does not exist")
        if not self.path.is_dir():
            raise SourceError(f"{self.path} is not a folder")
        files = [p for p in self.path.iterdir()
                 if p.suffix.lower() in IMAGE_SUFFIXES and not p.name.startswith(".") and p.is_file()]
        if not files:
            raise SourceError(f"no images in folder {self.path} (looked for {' '.join(IMAGE_SUFFIXES)})")
        self.files: list[Path] = sorted(files, key=lambda p: (natural_key(p.name), p.name))
        numbers = [n for n in (_trailing_number(p.stem) for p in self.files) if n is not None]
        if len(numbers) == len(self.files) and all(a < b for a, b in itertools.pairwise(numbers)):
            self.indices = numbers
        else:
            self.indices = list(range(len(self.files)))
        self.description = f"folder {self.path} ({len(self.files)} images)"

    def __iter__(self) -> Iterator[Frame]:
        for index, path in zip(self.indices, self.files, strict=True):
            if self._closed:
                return
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None or image.size == 0:
                raise SourceError(f"image {path} cannot be read (missing, corrupt, or not an image OpenCV can decode)")
            yield Frame(index, np.asarray(image, dtype=np.uint8), index / self.fps, path.name)


def _fps_or_default(value: float) -> float:
    return value if math.isfinite(value) and value > 0 else DEFAULT_FPS


class VideoSource(_Closing):
    """The frames of a video file, read with OpenCV; ``time`` is ``index / fps`` with the file's
    frame rate (15 when the file does not say). The first frame is read when opening, so a file
    OpenCV cannot decode fails here rather than in the loop."""

    live = False

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise SourceError(f"video {self.path} does not exist")
        if not self.path.is_file():
            raise SourceError(f"{self.path} is not a video file")
        self._capture = cv2.VideoCapture(str(self.path))
        first: Any = None
        if self._capture.isOpened():
            ok, first = self._capture.read()
            if not ok:
                first = None
        if first is None:
            self._capture.release()
            raise SourceError(f"video {self.path} cannot be read (not a video file, or a codec OpenCV lacks)")
        self._pending: Image | None = np.asarray(first, dtype=np.uint8)
        self.fps = _fps_or_default(float(self._capture.get(cv2.CAP_PROP_FPS)))
        self._index = 0
        self.description = f"video {self.path} ({self.fps:g} fps)"

    def __iter__(self) -> Iterator[Frame]:
        while not self._closed:
            if self._pending is not None:
                image, self._pending = self._pending, None
            else:
                ok, read = self._capture.read()
                if not ok or read is None:
                    return
                image = np.asarray(read, dtype=np.uint8)
            frame = Frame(self._index, image, self._index / self.fps)
            self._index += 1
            yield frame

    def close(self) -> None:
        if not self._closed:
            self._capture.release()
        super().close()


class Capture(Protocol):
    """The part of ``cv2.VideoCapture`` a camera source uses (so tests can pass a stand-in)."""

    def isOpened(self) -> bool: ...

    def read(self) -> tuple[bool, Any]: ...

    def release(self) -> None: ...

    def set(self, prop: int, value: float, /) -> bool: ...


class CameraSource(_Closing):
    """A webcam, opened with ``opener(index)`` (``cv2.VideoCapture``). When a read fails (the camera
    dropped out) it is released and reopened after ``reopen_delays`` seconds (the last delay
    repeats) until a frame comes again; indices keep increasing. ``max_failures`` (None: forever)
    is how many reopen attempts in a row may fail before SourceError. ``time`` is seconds since
    opening by ``clock``; ``on_status`` hears about drop-outs and returns."""

    live = True

    def __init__(self, index: int, size: tuple[int, int] | None = None, fps: float | None = None,
                 opener: Callable[[int], Capture] = cv2.VideoCapture,
                 reopen_delays: Sequence[float] = (0.5, 1, 2, 4, 8), max_failures: int | None = None,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
                 on_status: Callable[[str], None] | None = None) -> None:
        if not reopen_delays or any(d < 0 for d in reopen_delays):
            raise ValueError(f"reopen_delays must be non-negative and not empty, not {reopen_delays!r}")
        if max_failures is not None and max_failures < 0:
            raise ValueError(f"max_failures must be None or at least 0, not {max_failures}")
        self.index = index
        self.size = size
        self.fps = fps
        self.reopen_delays = tuple(float(d) for d in reopen_delays)
        self.max_failures = max_failures
        self._opener = opener
        self._sleep = sleep
        self._clock = clock
        self._on_status = on_status
        self._frame_index = 0
        self.description = f"camera {index}"
        self._capture = self._open()
        if self._capture is None:
            raise SourceError(f"camera {index} cannot be opened: is it plugged in and not used by another program? "
                              f"try --camera {1 if index == 0 else 0}, or see which cameras there are with "
                              "`ls /dev/video*`")
        self._start = clock()

    def _open(self) -> Capture | None:
        # OpenCV's own warnings about a camera it cannot open would come before our one line.
        logging = getattr(getattr(cv2, "utils", None), "logging", None)
        level = logging.getLogLevel() if logging is not None else None
        if logging is not None:
            logging.setLogLevel(logging.LOG_LEVEL_SILENT)
        try:
            capture = self._opener(self.index)
        finally:
            if logging is not None:
                logging.setLogLevel(level)
        if not capture.isOpened():
            capture.release()
            return None
        if self.size is not None:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, float(self.size[0]))
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, float(self.size[1]))
        if self.fps is not None:
            capture.set(cv2.CAP_PROP_FPS, float(self.fps))
        return capture

    def _read(self) -> Image | None:
        if self._capture is None:
            return None
        ok, image = self._capture.read()
        if not ok or image is None or image.size == 0:
            return None
        return np.asarray(image, dtype=np.uint8)

    def _status(self, message: str) -> None:
        if self._on_status is not None:
            self._on_status(message)

    def __iter__(self) -> Iterator[Frame]:
        failures = 0  # reopen attempts in a row that brought no frame
        dropped = False
        while not self._closed:
            image = self._read()
            if image is not None:
                if dropped:
                    self._status(f"camera {self.index} is back")
                    dropped, failures = False, 0
                frame = Frame(self._frame_index, image, self._clock() - self._start)
                self._frame_index += 1
                yield frame
                continue
            if dropped:
                failures += 1
            dropped = True
            if self._capture is not None:
                self._capture.release()
                self._capture = None
            if self.max_failures is not None and failures >= self.max_failures:
                raise SourceError(f"camera {self.index} dropped out and did not come back after {failures} tries")
            delay = self.reopen_delays[min(failures, len(self.reopen_delays) - 1)]
            if failures == 0:
                self._status(f"camera {self.index} dropped out; reopening in {delay:g} s")
            else:
                self._status(f"camera {self.index} still not back after {failures} tries; retrying in {delay:g} s")
            self._sleep(delay)
            if self._closed:
                return
            self._capture = self._open()

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None
        super().close()


def _load_picamera2() -> Any:
    return importlib.import_module("picamera2")


class PiCameraSource(_Closing):
    """The Raspberry Pi camera through picamera2 (imported here, not at module load). Frames are
    requested as "RGB888", which picamera2 delivers in OpenCV's BGR order; a 4-channel array loses
    its padding byte (and is reordered for "XBGR8888", which picamera2 delivers as RGBX)."""

    live = True

    def __init__(self, size: tuple[int, int] = (1280, 720), module_loader: Callable[[], Any] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        try:
            module = (module_loader or _load_picamera2)()
        except ImportError:
            raise SourceError(PICAMERA2_HINT) from None
        self.size = size
        self._clock = clock
        self._index = 0
        self.description = f"Raspberry Pi camera ({size[0]}x{size[1]})"
        self._camera: Any = None
        try:
            self._camera = module.Picamera2()
            config = self._camera.create_video_configuration(main={"size": tuple(size), "format": "RGB888"})
            self._camera.configure(config)
            self._camera.start()
        except Exception as error:  # picamera2 raises RuntimeError, IndexError, OSError ... for a missing camera
            self._shut()
            raise SourceError(f"the Raspberry Pi camera cannot be started ({error or type(error).__name__}): "
                              "is the ribbon cable seated? check `rpicam-hello --list-cameras`") from None
        main = config.get("main", {}) if isinstance(config, dict) else {}
        self._format = str(main.get("format", "RGB888"))
        self._start = clock()

    def __iter__(self) -> Iterator[Frame]:
        while not self._closed:
            image = np.asarray(self._camera.capture_array(), dtype=np.uint8)
            if image.ndim == 3 and image.shape[2] == 4:
                image = image[:, :, 2::-1] if self._format == "XBGR8888" else image[:, :, :3]
            elif self._format == "BGR888":
                image = image[:, :, ::-1]
            frame = Frame(self._index, np.ascontiguousarray(image), self._clock() - self._start)
            self._index += 1
            yield frame

    def _shut(self) -> None:
        camera, self._camera = self._camera, None
        if camera is None:
            return
        for step in (camera.stop, camera.close):
            with contextlib.suppress(Exception):  # a half-started camera may refuse; nothing more to do
                step()

    def close(self) -> None:
        self._shut()
        super().close()


def open_source(spec: str, fps: float = DEFAULT_FPS, size: tuple[int, int] | None = None,
                on_status: Callable[[str], None] | None = None) -> FrameSource:
    """The source ``spec`` names: a number is a webcam, "pi" the Raspberry Pi camera, a folder a
    folder of images (played at ``fps``), a file a video. ``size`` (width, height) is asked of
    cameras; ``on_status`` hears a webcam drop out and come back. A folder named like a camera is
    reached as ``./0``."""
    if spec.isascii() and spec.isdigit():
        return CameraSource(int(spec), size=size, on_status=on_status)
    if spec.lower() == "pi":
        return PiCameraSource(size=size or (1280, 720))
    path = Path(spec).expanduser()
    if path.is_dir():
        return FolderSource(path, fps=fps)
    if path.is_file():
        return VideoSource(path)
    raise SourceError(f"no camera, folder or video named {spec!r} (cameras are 0, 1 ...; 'pi' is the Raspberry Pi "
                      "camera)")
