"""``referee doctor`` against real things: a video of a rendered table as the camera, a camera
number that is not there, a stand-in picamera2, dark, blurred and glaring frames, a port held
open, a folder that cannot be written, missing and mismatched profiles, the real espeak-ng and
sound tools; and the command's lines and exit codes through a real subprocess."""

from __future__ import annotations

import dataclasses
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.cli_doctor import CHECK_NAMES
from referee.doctor import (
    CHECKS,
    Finding,
    Status,
    check_audio,
    check_calibration,
    check_camera,
    check_focus,
    check_lighting,
    check_pips,
    check_port,
    check_records,
    diagnose,
)
from referee.settings import Settings, TableSettings, load_settings, parse_settings
from referee.vision.profile import load_profile, save_profile
from tests.helpers import REPO, one_error_line, referee
from tests.test_session_sources import fake_picamera2

STILL = REPO / "sample_images" / "stills" / "line-201-0000.jpg"  # 1920x1080, as the example profile
PROFILE = REPO / "calibration" / "profiles" / "example.json"


@pytest.fixture(scope="module")
def table() -> np.ndarray:
    image = cv2.imread(str(STILL), cv2.IMREAD_COLOR)
    assert image is not None and image.shape == (1080, 1920, 3)
    return image


def write_video(path: Path, frames: list[np.ndarray]) -> Path:
    height, width = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 15.0, (width, height))
    assert writer.isOpened(), "this OpenCV cannot write MJPG into .avi"
    for frame in frames:
        writer.write(frame)
    writer.release()
    return path


@pytest.fixture(scope="module")
def clip(table: np.ndarray, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real video of the rendered table, standing in for the camera."""
    return write_video(tmp_path_factory.mktemp("clip") / "table.avi", [table] * 3)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def settings_file(tmp_path: Path, source: str | int, extra: str = "", **sections: str) -> Path:
    """A settings file that passes every check but what a test changes."""
    parts = {
        "camera": f"source = {source!r}\nwidth = 1920\nheight = 1080\ncalibration = '{PROFILE}'",
        "server": f"host = '127.0.0.1'\nport = {free_port()}",
        "sound": "mute = true",
        "records": f"db = '{tmp_path / 'data' / 'records.sqlite'}'\nlog = '{tmp_path / 'data' / 'events.sqlite'}'",
        "doctor": "frames = 3\ntimeout_s = 10",
        **sections,
    }
    path = tmp_path / "config.toml"
    path.write_text("".join(f"[{name}]\n{body}\n" for name, body in parts.items()) + extra, encoding="utf-8")
    return path


def lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.split(":")[0] in ("ok", "problem", "skipped")]


def problems(output: str) -> list[str]:
    return [line for line in lines(output) if line.startswith("problem: ")]


# --- the whole command, as a user runs it ---------------------------------------------------------


def test_a_good_set_up_passes_every_check(tmp_path: Path, clip: Path) -> None:
    config = settings_file(tmp_path, str(clip))
    result = referee("doctor", "--settings", config)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""
    out = result.stdout.splitlines()
    assert out[0] == f"settings: {config}"
    assert out[-1] == "all checks passed"
    found = lines(result.stdout)
    assert problems(result.stdout) == []
    assert found[0].startswith(f"ok: {clip} gives 1920x1080 frames (3 in ")
    assert found[1].startswith(f"ok: calibration profile {PROFILE} matches the camera's 1920x1080")
    assert found[2].startswith("ok: lighting: brightness ")
    assert found[3].startswith("ok: focus: sharpness ")
    assert found[4].startswith("ok: a 3.5 mm pip is 5.2 px across (at least 4 needed; from the calibration profile)")
    assert found[5] == "skipped: sound is muted (sound.mute = true)"
    assert found[6].startswith(f"ok: records folder {tmp_path / 'data'} is writable (it will be made)")
    assert found[7].startswith("ok: port 127.0.0.1:") and found[7].endswith("is free for the dashboard")
    assert not (tmp_path / "data").exists()  # checking made nothing


def test_a_camera_that_is_not_there_is_one_problem_line(tmp_path: Path, clip: Path) -> None:
    config = settings_file(tmp_path, str(clip))
    result = referee("doctor", "--settings", config, "--camera", "9")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    [problem] = problems(result.stdout)
    assert problem.startswith("problem: camera 9 cannot be opened")
    assert " — do: plug the camera in; `ls /dev/video*` lists the cameras" in problem
    assert "skipped: lighting: not checked without a frame from the camera" in result.stdout
    assert result.stdout.splitlines()[-1] == "1 problem found"


def test_dark_video_port_in_use_and_a_missing_profile_each_say_what_to_do(
        tmp_path: Path, table: np.ndarray) -> None:
    dark = write_video(tmp_path / "dark.avi", [(table * 0.25).astype(np.uint8)] * 3)
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        config = settings_file(tmp_path, str(dark), server=f"host = '127.0.0.1'\nport = {port}",
                               camera=f"source = '{dark}'\nwidth = 1920\nheight = 1080\n"
                                      f"calibration = '{tmp_path / 'gone.json'}'")
        result = referee("doctor", "--settings", config)
    assert result.returncode == 1
    said = problems(result.stdout)
    assert [line.split(" — do: ")[0] for line in said] == [
        f"problem: calibration profile {tmp_path / 'gone.json'} does not exist",
        f"problem: the table is too dark (brightness {said[1].split('brightness ')[1].split(' ')[0]} of 255, at least "
        "40 needed)",
        f"problem: port 127.0.0.1:{port} is in use by another program",
    ]
    assert all(" — do: " in line for line in said)
    assert "referee calibrate" in said[0] and "light the table" in said[1] and "server.port" in said[2]


def test_save_frame_keeps_the_cameras_frame_for_calibration_and_never_overwrites(
        tmp_path: Path, clip: Path, table: np.ndarray) -> None:
    config = settings_file(tmp_path, str(clip))
    out = tmp_path / "table.png"
    result = referee("doctor", "--settings", config, "--save-frame", out, "--skip", "port", "--skip", "records")
    assert result.returncode == 0, result.stdout
    assert f"saved: {out} (1920x1080), for referee calibrate" in result.stdout
    assert "skipped: port (--skip port)" in result.stdout
    saved = cv2.imread(str(out))
    assert saved is not None and saved.shape == table.shape
    assert float(np.abs(saved.astype(int) - table.astype(int)).mean()) < 4  # the video's JPEG, losslessly kept
    again = referee("doctor", "--settings", config, "--save-frame", out)
    assert "already exists; frames are never overwritten" in one_error_line(again)


def test_user_errors_are_one_line_and_exit_2(tmp_path: Path, clip: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[camera]\nwidth = 'wide'\n")
    line = one_error_line(referee("doctor", "--settings", bad))
    assert line == f"referee doctor: {bad}: camera.width must be a whole number from 320 to 8192, got 'wide'"
    config = settings_file(tmp_path, str(clip))
    assert "--size must be WIDTHxHEIGHT like 1920x1080, got 'big'" in one_error_line(
        referee("doctor", "--settings", config, "--size", "big"))
    assert "--port must be a whole number from 1 to 65535, got 'http'" in one_error_line(
        referee("doctor", "--settings", config, "--port", "http"))
    assert "--table-mm must be a number from 200 to 5000, got 10" in one_error_line(
        referee("doctor", "--settings", config, "--table-mm", "10"))
    assert "cannot read settings" in one_error_line(referee("doctor", "--settings", tmp_path / "none.toml"))


def test_without_a_settings_file_the_users_then_the_systems_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    skip = ("--skip", "camera", "--skip", "audio", "--skip", "port", "--skip", "calibration")
    result = referee("doctor", *skip)
    first = result.stdout.splitlines()[0]
    if Path("/etc/domino-referee/config.toml").is_file():  # a machine the referee is installed on
        assert first == "settings: /etc/domino-referee/config.toml"
    else:
        assert first == f"settings: none found ({tmp_path / 'config' / 'domino-referee' / 'config.toml'}, " \
                        "/etc/domino-referee/config.toml); the defaults"
        assert result.returncode == 0, result.stdout
        assert f"ok: records folder {tmp_path / 'data' / 'domino-referee'} is writable" in result.stdout
    mine = tmp_path / "config" / "domino-referee" / "config.toml"
    mine.parent.mkdir(parents=True)
    mine.write_text("[table]\nwidth_mm = 4000\n")
    result = referee("doctor", *skip, "--skip", "records")
    assert result.stdout.splitlines()[0] == f"settings: {mine}"
    assert "problem: a 3.5 mm pip is only 1.7 px across" in result.stdout and result.returncode == 1


# --- one check at a time -------------------------------------------------------------------------


def test_dark_bright_glaring_and_blurred_frames(table: np.ndarray) -> None:
    doctor = Settings().doctor
    assert check_lighting(table, doctor).status == "ok"
    assert check_focus(table, doctor).status == "ok"
    dark = check_lighting((table * 0.15).astype(np.uint8), doctor)
    assert dark.status == "problem" and dark.what.startswith("the table is too dark")
    bright = check_lighting(np.full_like(table, 235), doctor)
    assert bright.status == "problem" and bright.what.startswith("the table is too bright")
    glare = table.copy()
    glare[400:700, 700:1200] = 255  # a lamp's reflection over a quarter of the middle
    found = check_lighting(glare, doctor)
    assert found.status == "problem" and found.what.startswith("glare: ") and "diffuse light" in found.do
    blurred = cv2.GaussianBlur(table, (0, 0), 6)
    found = check_focus(blurred, doctor)
    assert found.status == "problem" and found.what.startswith("the picture is blurred (sharpness ")
    assert "focus the lens" in found.do and found.line().startswith("problem: the picture is blurred")


def test_lighting_is_measured_inside_the_markers_when_the_profile_knows_them(table: np.ndarray) -> None:
    profile = load_profile(PROFILE)
    framed = table.copy()
    corners = profile.table_to_image(np.array(profile.markers_mm))
    x0, y0 = corners.min(axis=0).astype(int)
    x1, y1 = corners.max(axis=0).astype(int)
    mask = np.zeros(table.shape[:2], bool)
    mask[max(y0, 0):y1, max(x0, 0):x1] = True
    framed[~mask] = 255  # blown-out floor outside the play area is not the table's glare
    assert check_lighting(framed, Settings().doctor, profile).status == "ok"


def test_pip_size_from_the_profile_or_the_table_width() -> None:
    settings = Settings()
    profile = load_profile(PROFILE)
    assert check_pips(settings, (1920, 1080), profile).what.startswith("a 3.5 mm pip is 5.2 px across")
    wide = settings.replace(table=TableSettings(width_mm=3000))
    found = check_pips(wide, (1920, 1080), None)
    assert found.status == "problem"
    assert found.what == ("a 3.5 mm pip is only 2.2 px across (at least 4 needed; 1920 px across the 3000 mm of "
                          "table.width_mm)")
    assert found.do == ("raise camera.width/height (about 3429 px wide for this view) or bring the camera closer, so "
                        "the frame spans at most 1680 mm of table instead of 3000")
    assert check_pips(settings, (1280, 720), None).status == "ok"  # 1 m at 1280 px: 4.5 px
    assert check_pips(settings, (640, 480), None).status == "problem"


def test_a_profile_for_another_frame_size_is_a_problem(tmp_path: Path) -> None:
    profile = load_profile(PROFILE)
    other = tmp_path / "small.json"
    save_profile(dataclasses.replace(profile, image_size=(1280, 720)), other)
    settings = load_settings(settings_file(tmp_path, 0, camera=f"calibration = '{other}'"))
    found, loaded = check_calibration(settings, (1920, 1080))
    assert found.status == "problem" and loaded is not None
    assert found.what == f"calibration profile {other} was made at 1280x720 but the camera gives 1920x1080"
    assert found.do.startswith("calibrate again at this size: `referee doctor --save-frame table.png`")
    none, _ = check_calibration(Settings(), (1920, 1080))
    assert none.what == "no calibration profile (camera.calibration is not set)"
    broken = tmp_path / "broken.json"
    broken.write_text("{}")
    found, _ = check_calibration(load_settings(settings_file(tmp_path, 0, camera=f"calibration = '{broken}'")),
                                 (1920, 1080))
    assert found.status == "problem" and "image_size: missing" in found.what


def test_the_pi_camera_through_a_stand_in_picamera2() -> None:
    settings = parse_settings({"camera": {"source": "pi", "width": 640, "height": 480}, "doctor": {"frames": 3}})
    frame = np.random.default_rng(1).integers(0, 256, (480, 640, 3), dtype=np.uint8)
    module, calls = fake_picamera2([frame.copy() for _ in range(3)])
    found, last = check_camera(settings, pi_loader=lambda: module)
    assert found.line().startswith("ok: the Raspberry Pi camera gives 640x480 frames (3 in ")
    assert last is not None and np.array_equal(last, frame)
    assert calls[:2] == ["init", "video_configuration (640, 480) RGB888"]
    assert calls[-2:] == ["stop", "close"]  # the camera is let go for the referee
    small = np.zeros((240, 320, 3), np.uint8)
    module, _ = fake_picamera2([small] * 3)
    found, _ = check_camera(settings, pi_loader=lambda: module)
    assert found.status == "problem"
    assert found.what == "the Raspberry Pi camera gives 320x240 frames, not the 640x480 of camera.width and " \
                         "camera.height"

    def missing() -> Any:
        raise ImportError("No module named 'picamera2'")

    found, last = check_camera(settings, pi_loader=missing)
    assert found.status == "problem" and "python3-picamera2" in found.what and last is None
    assert "rpicam-hello --list-cameras" in found.do


def test_a_camera_that_hangs_is_given_up_after_the_timeout() -> None:
    release = threading.Event()
    module, _ = fake_picamera2([])

    class Hanging(module.Picamera2):  # type: ignore[misc, name-defined]
        def capture_array(self) -> np.ndarray:
            release.wait(30)  # a camera whose frames never come
            return np.zeros((480, 640, 3), np.uint8)

    module.Picamera2 = Hanging  # type: ignore[attr-defined]
    settings = parse_settings({"camera": {"source": "pi", "width": 640, "height": 480},
                               "doctor": {"frames": 2, "timeout_s": 1}})
    start = time.monotonic()
    try:
        found, frame = check_camera(settings, pi_loader=lambda: module)
    finally:
        release.set()
    assert 1 <= time.monotonic() - start < 5
    assert found.what == "the Raspberry Pi camera gave no frame within 1 s" and frame is None


def test_a_port_in_use_is_found_and_a_free_one_is_not() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        busy = parse_settings({"server": {"port": port}})
        found = check_port(busy)
        assert found.status == "problem" and found.what == f"port 127.0.0.1:{port} is in use by another program"
        assert f"sport = :{port}" in found.do
    assert check_port(busy).status == "ok"  # let go: free again
    assert check_port(parse_settings({"server": {"serve": False}})).status == "skipped"


def test_records_in_a_folder_that_cannot_be_written(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the records' folder should be")
    settings = parse_settings({"records": {"db": str(blocker / "records.sqlite"), "log": str(tmp_path / "e.sqlite")}})
    found = check_records(settings)
    assert [f.status for f in found] == ["problem", "ok"]
    assert found[0].what == f"records folder {blocker} cannot be made: {blocker} is not a folder"
    assert found[0].do.startswith("set records.db and records.log")


def test_an_existing_database_is_never_touched(tmp_path: Path) -> None:
    db = tmp_path / "records.sqlite"
    db.write_bytes(b"SQLite format 3\x00 the family's wins")
    before = (db.read_bytes(), db.stat().st_mtime_ns, sorted(p.name for p in tmp_path.iterdir()))
    settings = parse_settings({"records": {"db": str(db), "log": str(tmp_path / "events.sqlite")}})
    [found] = check_records(settings)
    assert found.status == "ok" and found.what == f"records folder {tmp_path} is writable: records.sqlite, " \
                                                  "events.sqlite"
    assert (db.read_bytes(), db.stat().st_mtime_ns, sorted(p.name for p in tmp_path.iterdir())) == before


def test_audio_names_what_is_missing(tmp_path: Path) -> None:
    assert shutil.which("espeak-ng"), "the machine's espeak-ng (scripts/setup installs it)"
    said = check_audio("aplay", search_path=str(tmp_path))  # a PATH where espeak-ng is not
    assert said == "espeak-ng is not installed — do: sudo apt install espeak-ng"
    said = check_audio("no-such-player")
    assert said is not None and said.startswith("the sound player no-such-player is not installed — do: ")


def test_audio_through_the_real_aplay_agrees_with_the_sound_cards() -> None:
    if shutil.which("aplay") is None:
        pytest.fail("aplay is needed (apt install alsa-utils)")
    listed = subprocess.run(["aplay", "-l"], capture_output=True, text=True, timeout=30, check=False)
    said = check_audio("aplay")
    if "no soundcards" in listed.stderr + listed.stdout or listed.returncode != 0:
        assert said is not None and said.startswith("no sound card found (`aplay -l` lists none) — do: ")
    else:  # a machine with a card plays the phrase, or says why it could not
        assert said is None or said.startswith("aplay cannot play sound")


def test_diagnose_skips_and_orders_the_checks(table: np.ndarray, tmp_path: Path) -> None:
    settings = parse_settings({"camera": {"source": "pi", "width": 1920, "height": 1080, "calibration": str(PROFILE)},
                               "doctor": {"frames": 2}, "sound": {"mute": True},
                               "records": {"db": str(tmp_path / "r.sqlite"), "log": str(tmp_path / "e.sqlite")},
                               "server": {"port": free_port()}})
    module, _ = fake_picamera2([table.copy(), table.copy()])
    result = diagnose(settings, skip=["port"], pi_loader=lambda: module)
    assert [f.check for f in result.findings] == ["camera", "calibration", "lighting", "focus", "pips", "audio",
                                                  "records", "port"]
    assert [f.status for f in result.findings] == ["ok", "ok", "ok", "ok", "ok", "skipped", "ok", "skipped"]
    assert result.ok and result.frame is not None and "frame_shape=(1080, 1920, 3)" in repr(result)
    with pytest.raises(ValueError, match="unknown check 'speed'"):
        diagnose(settings, skip=["speed"])
    assert CHECK_NAMES == CHECKS  # the command's --skip choices, kept light of OpenCV


def test_the_audio_check_can_be_swapped(tmp_path: Path) -> None:
    heard: list[tuple[str, str]] = []

    def voice(player: str, device: str) -> str | None:
        heard.append((player, device))
        return "the speaker is unplugged — do: plug it in"

    settings = parse_settings({"sound": {"player": "paplay", "device": "hdmi"}})
    result = diagnose(settings, skip=["camera", "calibration", "pips", "records", "port"], audio_check=voice)
    [audio] = [f for f in result.findings if f.check == "audio"]
    assert heard == [("paplay", "hdmi")]
    assert audio == Finding("audio", Status.PROBLEM, "the speaker is unplugged", "plug it in")
    assert eval(repr(audio)) == audio
    assert audio.line() == "problem: the speaker is unplugged — do: plug it in"
    assert not result.ok


@pytest.fixture(autouse=True)
def _cameras_are_let_go() -> Iterator[None]:
    """Every camera thread a check started ends (the camera is closed for the referee)."""
    yield
    for thread in threading.enumerate():
        if thread.name == "doctor-camera":
            thread.join(10)
            assert not thread.is_alive()
