"""Frame sources: folders, videos, webcams (through a stand-in capture object) and the Raspberry
Pi camera (through a stand-in picamera2 module), and the dispatch from a command-line name."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.session.sources import (
    CameraSource,
    FolderSource,
    Frame,
    FrameSource,
    PiCameraSource,
    SourceError,
    VideoSource,
    natural_key,
    open_source,
)


def solid(colour: tuple[int, int, int], height: int = 48, width: int = 64) -> np.ndarray:
    image = np.zeros((height, width, 3), np.uint8)
    image[:] = colour
    return image


def noise(seed: int, height: int = 24, width: int = 32) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)


# --- Frame ---------------------------------------------------------------------------------------


def test_frame_repr_shows_the_shape_not_the_pixels() -> None:
    frame = Frame(3, np.zeros((720, 1280, 3), np.uint8), 3 / 15, "frame-0003.jpg")
    assert repr(frame) == "Frame(index=3, time=0.2, name='frame-0003.jpg', shape=(720, 1280, 3))"


def test_natural_key_puts_2_before_10() -> None:
    names = ["frame-10.png", "Frame-2.png", "frame-1.png", "a.png"]
    assert sorted(names, key=natural_key) == ["a.png", "frame-1.png", "Frame-2.png", "frame-10.png"]


# --- folders -------------------------------------------------------------------------------------


@pytest.fixture
def frames_folder(tmp_path: Path) -> dict[str, np.ndarray]:
    """Three PNGs written out of order, plus a file that is not an image."""
    images = {"frame-0002.png": noise(2), "frame-0010.png": noise(10), "frame-0001.png": noise(1)}
    for name, image in images.items():
        assert cv2.imwrite(str(tmp_path / name), image)
    (tmp_path / "notes.txt").write_text("not a frame")
    return images


def test_folder_yields_frames_in_natural_order_with_the_names_numbers(
        tmp_path: Path, frames_folder: dict[str, np.ndarray]) -> None:
    with FolderSource(tmp_path, fps=10.0) as source:
        assert source.live is False
        assert "3 images" in source.description
        frames = list(source)
    assert [f.name for f in frames] == ["frame-0001.png", "frame-0002.png", "frame-0010.png"]
    assert [f.index for f in frames] == [1, 2, 10]
    assert [f.time for f in frames] == pytest.approx([0.1, 0.2, 1.0])
    for frame in frames:
        assert frame.image.dtype == np.uint8 and frame.image.shape == (24, 32, 3)
        assert np.array_equal(frame.image, frames_folder[frame.name])  # PNG is lossless


def test_folder_without_trailing_numbers_counts_positions(tmp_path: Path) -> None:
    for name, seed in [("b.jpg", 1), ("A.JPG", 2), ("c.Bmp", 3), ("frame-7.png", 4)]:
        assert cv2.imwrite(str(tmp_path / name), noise(seed))
    frames = list(FolderSource(tmp_path))
    assert [f.name for f in frames] == ["A.JPG", "b.jpg", "c.Bmp", "frame-7.png"]
    assert [f.index for f in frames] == [0, 1, 2, 3]
    assert [f.time for f in frames] == pytest.approx([0, 1 / 15, 2 / 15, 3 / 15])


def test_folder_corrupt_image_is_named_when_reached(tmp_path: Path, frames_folder: dict[str, np.ndarray]) -> None:
    (tmp_path / "frame-0003.jpg").write_bytes(b"not an image")
    source = FolderSource(tmp_path)
    frames = iter(source)
    assert [next(frames).index, next(frames).index] == [1, 2]
    with pytest.raises(SourceError, match=r"frame-0003\.jpg") as caught:
        next(frames)
    assert "\n" not in str(caught.value)


def test_folder_missing_or_empty(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="does not exist"):
        FolderSource(tmp_path / "nowhere")
    (tmp_path / "readme.txt").write_text("no images here")
    (tmp_path / "sub.png").mkdir()  # a folder with an image's name is not an image
    with pytest.raises(SourceError, match="no images in folder"):
        FolderSource(tmp_path)


def test_folder_stops_after_close(tmp_path: Path, frames_folder: dict[str, np.ndarray]) -> None:
    source = FolderSource(tmp_path)
    seen = []
    for frame in source:
        seen.append(frame.index)
        source.close()
    assert seen == [1]


# --- videos --------------------------------------------------------------------------------------

COLOURS = [(0, 0, 255), (0, 255, 0), (255, 0, 0), (0, 255, 255), (255, 0, 255),
           (255, 255, 0), (255, 255, 255), (0, 0, 0), (40, 120, 200), (200, 120, 40)]


@pytest.fixture
def video(tmp_path: Path) -> Path:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 15.0, (64, 48))
    assert writer.isOpened(), "this OpenCV cannot write MJPG into .avi"
    for colour in COLOURS:
        writer.write(solid(colour))
    writer.release()
    assert path.is_file() and path.stat().st_size > 0
    return path


def test_video_frames_indices_times_and_colours(video: Path) -> None:
    with VideoSource(video) as source:
        assert source.live is False
        assert source.fps == pytest.approx(15.0)
        frames = list(source)
    assert [f.index for f in frames] == list(range(10))
    assert [f.time for f in frames] == pytest.approx([i / 15 for i in range(10)])
    for frame, colour in zip(frames, COLOURS, strict=True):
        assert frame.image.shape == (48, 64, 3) and frame.image.dtype == np.uint8
        assert frame.name == ""
        mean = frame.image.reshape(-1, 3).mean(axis=0)
        assert np.abs(mean - np.array(colour)).max() < 12, (frame.index, mean, colour)


def test_video_that_is_not_a_video(tmp_path: Path) -> None:
    fake = tmp_path / "x.avi"
    fake.write_text("this is text, not a video")
    with pytest.raises(SourceError, match=r"x\.avi cannot be read"):
        VideoSource(fake)
    with pytest.raises(SourceError, match="does not exist"):
        VideoSource(tmp_path / "missing.avi")


# --- webcams through a stand-in capture ----------------------------------------------------------


class Script:
    """What a stand-in camera does, shared by every capture object the opener makes: each open
    pops the next ``opens`` entry (True: opens); each read pops the next ``reads`` entry (an image,
    or None for a failed read; an empty list fails every read)."""

    def __init__(self, opens: list[bool], reads: list[np.ndarray | None]) -> None:
        self.opens = opens
        self.reads = reads
        self.opened: list[int] = []
        self.released = 0
        self.settings: list[tuple[int, float]] = []

    def opener(self, index: int) -> FakeCapture:
        self.opened.append(index)
        return FakeCapture(self, self.opens.pop(0) if self.opens else False)


class FakeCapture:
    def __init__(self, script: Script, opened: bool) -> None:
        self.script = script
        self.opened = opened

    def isOpened(self) -> bool:
        return self.opened

    def read(self) -> tuple[bool, Any]:
        image = self.script.reads.pop(0) if self.opened and self.script.reads else None
        return image is not None, image

    def release(self) -> None:
        self.script.released += 1
        self.opened = False

    def set(self, prop: int, value: float, /) -> bool:
        self.script.settings.append((prop, value))
        return True


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_camera_that_never_opens_names_the_camera() -> None:
    script = Script(opens=[False], reads=[])
    with pytest.raises(SourceError, match=r"camera 3 cannot be opened.*--camera 0") as caught:
        CameraSource(3, opener=script.opener)
    assert "\n" not in str(caught.value)
    assert script.opened == [3] and script.released == 1


def test_camera_drops_out_and_comes_back() -> None:
    images = [solid((i * 20, 0, 0)) for i in range(5)]
    script = Script(opens=[True, False, False, True], reads=[*images[:3], None, *images[3:]])
    clock = FakeClock()
    status: list[str] = []
    source = CameraSource(0, size=(640, 480), fps=30.0, opener=script.opener, sleep=clock.sleep, clock=clock,
                          on_status=status.append)
    assert source.live is True and source.description == "camera 0"
    frames = []
    for frame in source:
        frames.append(frame)
        clock.now += 0.1
        if len(frames) == 5:
            break
    source.close()
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert all(np.array_equal(f.image, image) for f, image in zip(frames, images, strict=True))
    assert clock.slept == [0.5, 1.0, 2.0]
    assert [f.time for f in frames] == pytest.approx([0, 0.1, 0.2, 3.8, 3.9])  # 0.3 + 3.5 s of back-off
    assert status == ["camera 0 dropped out; reopening in 0.5 s",
                      "camera 0 still not back after 1 tries; retrying in 1 s",
                      "camera 0 still not back after 2 tries; retrying in 2 s",
                      "camera 0 is back"]
    assert script.opened == [0, 0, 0, 0]
    assert script.released == 4  # the dropped capture, two failed reopens, and close()
    assert (cv2.CAP_PROP_FRAME_WIDTH, 640.0) in script.settings and (cv2.CAP_PROP_FPS, 30.0) in script.settings
    assert len(script.settings) == 6  # width, height and fps, at the first open and at the reopen


def test_camera_gives_up_after_max_failures() -> None:
    script = Script(opens=[True], reads=[solid((1, 2, 3))])
    clock = FakeClock()
    source = CameraSource(1, opener=script.opener, reopen_delays=(0.25, 1), max_failures=3, sleep=clock.sleep,
                          clock=clock)
    frames = iter(source)
    assert next(frames).index == 0
    with pytest.raises(SourceError, match="camera 1 dropped out and did not come back after 3 tries"):
        next(frames)
    assert clock.slept == [0.25, 1.0, 1.0]  # the last delay repeats


def test_camera_that_opens_but_gives_no_frame_counts_as_a_failure() -> None:
    script = Script(opens=[True, True, True], reads=[])
    clock = FakeClock()
    source = CameraSource(0, opener=script.opener, max_failures=2, sleep=clock.sleep, clock=clock)
    with pytest.raises(SourceError, match="after 2 tries"):
        next(iter(source))
    assert clock.slept == [0.5, 1.0]


def test_camera_close_during_back_off_ends_iteration() -> None:
    script = Script(opens=[True], reads=[solid((9, 9, 9))])
    source = CameraSource(0, opener=script.opener, sleep=lambda _: source.close(), clock=FakeClock())
    assert [f.index for f in source] == [0]


# --- Raspberry Pi camera through a stand-in picamera2 --------------------------------------------


def fake_picamera2(arrays: list[np.ndarray], fmt: str | None = None) -> tuple[types.ModuleType, list[str]]:
    """A module with a Picamera2 class that records calls and hands out ``arrays`` in turn; ``fmt``
    overrides the format picamera2 reports in the configuration (as if it had chosen another)."""
    calls: list[str] = []
    module = types.ModuleType("picamera2")

    class Picamera2:
        def __init__(self) -> None:
            calls.append("init")

        def create_video_configuration(self, main: dict[str, Any]) -> dict[str, Any]:
            calls.append(f"video_configuration {main['size']} {main['format']}")
            return {"main": {**main, "format": fmt or main["format"]}}

        def create_preview_configuration(self, main: dict[str, Any]) -> dict[str, Any]:
            calls.append("preview_configuration")
            return {"main": main}

        def configure(self, config: dict[str, Any]) -> None:
            calls.append("configure")

        def start(self) -> None:
            calls.append("start")

        def capture_array(self) -> np.ndarray:
            calls.append("capture_array")
            return arrays.pop(0)

        def stop(self) -> None:
            calls.append("stop")

        def close(self) -> None:
            calls.append("close")

    module.Picamera2 = Picamera2  # type: ignore[attr-defined]
    return module, calls


def test_pi_camera_frames_through_a_loader() -> None:
    bgr = noise(5)
    bgrx = np.dstack([noise(6), np.full((24, 32), 255, np.uint8)])
    module, calls = fake_picamera2([bgr, bgrx])
    source = PiCameraSource(size=(32, 24), module_loader=lambda: module)
    assert source.live is True
    frames = []
    for frame in source:
        frames.append(frame)
        if len(frames) == 2:
            break
    source.close()
    assert [f.index for f in frames] == [0, 1]
    for frame in frames:
        assert frame.image.shape == (24, 32, 3) and frame.image.dtype == np.uint8
        assert frame.image.flags.c_contiguous
    assert np.array_equal(frames[0].image, bgr)
    assert np.array_equal(frames[1].image, bgrx[:, :, :3])
    assert calls == ["init", "video_configuration (32, 24) RGB888", "configure", "start", "capture_array",
                     "capture_array", "stop", "close"]
    source.close()
    assert calls.count("stop") == 1


@pytest.mark.parametrize("fmt", ["XBGR8888", "BGR888"])
def test_pi_camera_rgb_ordered_formats_are_reordered_to_bgr(fmt: str) -> None:
    rgb = noise(7)
    array = np.dstack([rgb, np.full((24, 32), 255, np.uint8)]) if fmt == "XBGR8888" else rgb
    module, _ = fake_picamera2([array], fmt=fmt)
    with PiCameraSource(module_loader=lambda: module) as source:
        frame = next(iter(source))
    assert frame.image.shape == (24, 32, 3)
    assert np.array_equal(frame.image, rgb[:, :, ::-1])


def test_pi_camera_imported_from_sys_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    module, calls = fake_picamera2([noise(8)])
    monkeypatch.setitem(sys.modules, "picamera2", module)
    with PiCameraSource() as source:
        frame = next(iter(source))
    assert frame.image.shape == (24, 32, 3)
    assert calls[1] == "video_configuration (1280, 720) RGB888"
    assert calls[-2:] == ["stop", "close"]


def test_pi_camera_without_picamera2() -> None:
    def missing() -> types.ModuleType:
        raise ImportError("No module named 'picamera2'")

    with pytest.raises(SourceError, match="python3-picamera2") as caught:
        PiCameraSource(module_loader=missing)
    assert "--system-site-packages" in str(caught.value)


def test_pi_camera_that_fails_to_start_is_closed() -> None:
    module, calls = fake_picamera2([])

    def start() -> None:
        raise RuntimeError("Camera __init__ sequence did not complete.")

    camera_class = module.Picamera2

    class Broken(camera_class):  # type: ignore[misc, valid-type]
        def start(self) -> None:
            start()

    module.Picamera2 = Broken  # type: ignore[attr-defined]
    with pytest.raises(SourceError, match=r"Raspberry Pi camera cannot be started.*did not complete"):
        PiCameraSource(module_loader=lambda: module)
    assert calls[-2:] == ["stop", "close"]


# --- open_source ---------------------------------------------------------------------------------


def test_open_source_dispatch(tmp_path: Path, video: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    assert cv2.imwrite(str(folder / "frame-0004.png"), noise(4))
    with open_source(str(folder), fps=8.0) as source:
        assert isinstance(source, FolderSource)
        assert [f.time for f in source] == [0.5]
    with open_source(str(video)) as source:
        assert isinstance(source, VideoSource)
    module, _ = fake_picamera2([])
    monkeypatch.setitem(sys.modules, "picamera2", module)
    with open_source("pi", size=(640, 480)) as source:
        assert isinstance(source, PiCameraSource) and source.size == (640, 480)


def test_open_source_camera_number_uses_a_camera(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[int, Any]] = []

    class Recorder:
        live = True
        description = "recorder"

        def __init__(self, index: int, size: Any = None, on_status: Any = None) -> None:
            made.append((index, size))

    monkeypatch.setattr("referee.session.sources.CameraSource", Recorder)
    source: FrameSource = open_source("2", size=(320, 240))
    assert isinstance(source, Recorder)
    assert made == [(2, (320, 240))]


def test_open_source_unknown_name(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"no camera, folder or video named '.*nothing-here'"):
        open_source(str(tmp_path / "nothing-here"))
