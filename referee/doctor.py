"""``referee doctor``'s checks: is this set-up ready to referee a table? Each check gives one
``Finding``: fine, a problem with what to do about it, or skipped. The thresholds come from the
settings' ``[doctor]`` section; nothing here is tuned by a constant of its own."""

from __future__ import annotations

import dataclasses
import enum
import errno
import math
import os
import queue
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.session.sources import CameraSource, FrameSource, PiCameraSource, open_source
from referee.settings import DoctorSettings, Settings, SoundSettings, data_folder
from referee.vision.config import ConfigError, VisionConfig
from referee.vision.profile import Profile, load_profile

CHECKS = ("camera", "calibration", "lighting", "focus", "pips", "audio", "records", "port")
#: Frames wider than this are scaled down before lighting and focus are measured (as the vision's
#: segmentation does), so the focus figure means the same at every resolution.
MEASURE_WIDTH = 1280
STOP_SERVICE = "sudo systemctl stop domino-referee"


class Status(enum.StrEnum):
    """A check's verdict."""

    OK = "ok"
    PROBLEM = "problem"
    SKIPPED = "skipped"

    def __repr__(self) -> str:
        return f"Status.{self.name}"


@dataclasses.dataclass(frozen=True)
class Finding:
    """One check's verdict: ``status`` ok, problem or skipped; ``what`` says what was found;
    ``do`` what to do about a problem."""

    check: str
    status: Status
    what: str
    do: str = ""

    @property
    def ok(self) -> bool:
        return self.status is not Status.PROBLEM

    def line(self) -> str:
        """``ok: ...``, ``skipped: ...`` or ``problem: ... — do: ...`` (one line)."""
        text = f"{self.status}: {self.what}"
        return f"{text} — do: {self.do}" if self.status is Status.PROBLEM and self.do else text


def _ok(check: str, what: str) -> Finding:
    return Finding(check, Status.OK, what)


def _problem(check: str, what: str, do: str) -> Finding:
    return Finding(check, Status.PROBLEM, what, do)


def _skipped(check: str, what: str) -> Finding:
    return Finding(check, Status.SKIPPED, what)


# -- the camera --------------------------------------------------------------------------------
def _open(spec: str, size: tuple[int, int], pi_loader: Callable[[], Any] | None) -> FrameSource:
    if spec == "pi":
        return PiCameraSource(size=size, module_loader=pi_loader)
    if spec.isascii() and spec.isdigit():  # one reopen at most: doctor reports, it does not wait for a camera
        return CameraSource(int(spec), size=size, reopen_delays=(0.5,), max_failures=1)
    return open_source(spec)


def grab_frames(spec: str, size: tuple[int, int], count: int, timeout_s: float,
                pi_loader: Callable[[], Any] | None = None) -> tuple[list[np.ndarray], str | None]:
    """Up to ``count`` frames from the source, read by a worker thread so that a camera that
    hangs cannot hang the doctor; and what went wrong (None when all came in time)."""
    results: queue.Queue[np.ndarray | BaseException | None] = queue.Queue()

    def work() -> None:
        try:
            with _open(spec, size, pi_loader) as source:
                for n, frame in enumerate(source, 1):
                    results.put(frame.image)
                    if n >= count:
                        break
            results.put(None)
        except Exception as error:  # handed to the caller, which says it in one line
            results.put(error)

    threading.Thread(target=work, name="doctor-camera", daemon=True).start()
    deadline = time.monotonic() + timeout_s
    frames: list[np.ndarray] = []
    name = _name(spec)
    while len(frames) < count:
        try:
            item = results.get(timeout=max(deadline - time.monotonic(), 0.0))
        except queue.Empty:
            return frames, f"{name} gave no frame within {timeout_s:g} s" if not frames else \
                f"{name} gave only {len(frames)} of {count} frames within {timeout_s:g} s"
        if item is None:
            return frames, None if frames else f"{name} gave no frame"
        if isinstance(item, BaseException):
            return frames, str(item) or type(item).__name__
        frames.append(item)
    return frames, None


def _name(spec: str) -> str:
    return "the Raspberry Pi camera" if spec == "pi" else f"camera {spec}" if spec.isdigit() else spec


def check_camera(settings: Settings, pi_loader: Callable[[], Any] | None = None) -> tuple[Finding, np.ndarray | None]:
    """The camera opens and delivers frames of the configured size; the last frame (exposure
    settled) for the picture checks."""
    camera, doctor = settings.camera, settings.doctor
    start = time.monotonic()
    frames, error = grab_frames(camera.source, camera.size, doctor.frames, doctor.timeout_s, pi_loader)
    name = _name(camera.source)
    if error is not None:
        if camera.source == "pi":
            do = f"seat the ribbon cable, check `rpicam-hello --list-cameras`; if the referee runs, {STOP_SERVICE}"
        elif camera.is_camera:
            do = (f"plug the camera in; `ls /dev/video*` lists the cameras (set camera.source to one); if the "
                  f"referee runs, {STOP_SERVICE}")
        else:
            do = "set camera.source to a camera (\"pi\", 0, 1 ...) or a video or folder of frames that exists"
        return _problem("camera", error, do), (frames[-1] if frames else None)
    frame = frames[-1]
    height, width = frame.shape[:2]
    if (width, height) != camera.size:
        return _problem("camera", f"{name} gives {width}x{height} frames, not the {camera.width}x{camera.height} "
                        "of camera.width and camera.height",
                        f"set camera.width = {width} and camera.height = {height}, or a size the camera offers "
                        "(`v4l2-ctl --list-formats-ext`; Pi: `rpicam-hello --list-cameras`)"), frame
    took = time.monotonic() - start
    return _ok("camera", f"{name} gives {width}x{height} frames ({len(frames)} in {took:.1f} s)"), frame


# -- the picture -------------------------------------------------------------------------------
def table_area(frame: np.ndarray, profile: Profile | None) -> np.ndarray:
    """The grey levels of the table, scaled to at most MEASURE_WIDTH: inside the calibration
    markers when the profile knows them and they are in the frame, else the middle 60 %."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    height, width = gray.shape[:2]
    scale = min(1.0, MEASURE_WIDTH / width)
    if scale < 1:
        gray = cv2.resize(gray, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA)
    h, w = gray.shape[:2]
    if profile is not None and profile.markers_mm and len(profile.markers_mm) >= 3 \
            and profile.image_size == (width, height):
        corners = profile.table_to_image(np.array(profile.markers_mm)) * scale
        x0, y0 = np.clip(corners.min(axis=0), 0, [w - 1, h - 1]).astype(int)
        x1, y1 = np.clip(corners.max(axis=0), 0, [w - 1, h - 1]).astype(int)
        if x1 - x0 >= 32 and y1 - y0 >= 32:
            return np.ascontiguousarray(gray[y0:y1 + 1, x0:x1 + 1])
    return np.ascontiguousarray(gray[int(h * 0.2):int(h * 0.8), int(w * 0.2):int(w * 0.8)])


def check_lighting(frame: np.ndarray, doctor: DoctorSettings, profile: Profile | None = None) -> Finding:
    """Mean brightness within bounds, and few blown-out (glare) pixels, over the table."""
    area = table_area(frame, profile)
    mean = float(area.mean())
    clipped = float((area >= doctor.clip_level).mean())
    if mean < doctor.min_brightness:
        return _problem("lighting", f"the table is too dark (brightness {mean:.0f} of 255, at least "
                        f"{doctor.min_brightness:g} needed)",
                        "light the table (a lamp above it, diffuse light); on a dark table cloth lower "
                        "doctor.min_brightness")
    if mean > doctor.max_brightness:
        return _problem("lighting", f"the table is too bright (brightness {mean:.0f} of 255, at most "
                        f"{doctor.max_brightness:g})", "dim or move the lamp; keep direct sun off the table")
    if clipped > doctor.max_clipped:
        return _problem("lighting", f"glare: {clipped:.1%} of the table is blown-out white (at most "
                        f"{doctor.max_clipped:.1%})",
                        "use diffuse light (a shade, light bounced off the ceiling), move the lamp away from "
                        "above the camera, or a matte table cloth")
    return _ok("lighting", f"lighting: brightness {mean:.0f} of 255, {clipped:.1%} blown out")


def check_focus(frame: np.ndarray, doctor: DoctorSettings, profile: Profile | None = None) -> Finding:
    """Sharpness: the variance of the Laplacian over the table."""
    area = table_area(frame, profile)
    sharpness = float(cv2.Laplacian(area.astype(np.float64), cv2.CV_64F).var())
    if sharpness < doctor.min_focus:
        return _problem("focus", f"the picture is blurred (sharpness {sharpness:.1f}, at least "
                        f"{doctor.min_focus:g} needed)",
                        "focus the lens on the table top (turn the lens ring; Camera Module 3 focuses itself), "
                        "clean it, and check again with a few tiles face up in view")
    return _ok("focus", f"focus: sharpness {sharpness:.0f} (at least {doctor.min_focus:g})")


# -- calibration and pip size ------------------------------------------------------------------
def check_calibration(settings: Settings, size: tuple[int, int]) -> tuple[Finding, Profile | None]:
    """A profile is configured, reads, and was made at the camera's frame size."""
    path = settings.camera.calibration
    redo = ("lay the four markers (calibration/marker-sheet.svg), `referee doctor --save-frame table.png`, "
            "then `referee calibrate table.png --out PROFILE.json` and set camera.calibration to it")
    if path is None:
        return _problem("calibration", "no calibration profile (camera.calibration is not set)", redo), None
    if not Path(path).is_file():
        return _problem("calibration", f"calibration profile {path} does not exist", redo), None
    try:
        profile = load_profile(path)
    except ConfigError as error:
        return _problem("calibration", str(error), redo), None
    width, height = size
    if profile.image_size != size:
        pw, ph = profile.image_size
        return _problem("calibration", f"calibration profile {path} was made at {pw}x{ph} but the camera gives "
                        f"{width}x{height}", "calibrate again at this size: " + redo.split(", ", 1)[1]), profile
    fit = "" if profile.marker_rms_px is None else f", markers fitted to {profile.marker_rms_px:.2f} px"
    return _ok("calibration", f"calibration profile {path} matches the camera's {width}x{height}{fit}"), profile


def check_pips(settings: Settings, size: tuple[int, int], profile: Profile | None,
               vision: VisionConfig | None = None) -> Finding:
    """A pip of ``doctor.pip_mm`` is at least ``doctor.min_pip_px`` across (and never below what
    the vision's smallest tile, ``min_tile_px``, allows): from the profile's pixels per mm at
    the middle of the frame, else from the frame's width over ``table.width_mm``."""
    doctor, width_mm = settings.doctor, settings.table.width_mm
    config = vision or (profile.vision if profile is not None else VisionConfig())
    need = max(doctor.min_pip_px, doctor.pip_mm * config.min_tile_px / config.tile_mm[0])
    width, height = size
    if profile is not None:
        w0, h0 = profile.image_size
        per_mm = profile.px_per_mm((w0 - 1) / 2, (h0 - 1) / 2) * math.sqrt(width / w0 * height / h0)
        basis = "from the calibration profile"
    else:
        per_mm = width / width_mm
        basis = f"{width} px across the {width_mm:g} mm of table.width_mm"
    pip = doctor.pip_mm * per_mm
    if pip >= need:
        return _ok("pips", f"a {doctor.pip_mm:g} mm pip is {pip:.1f} px across (at least {need:g} needed; {basis})")
    return _problem("pips", f"a {doctor.pip_mm:g} mm pip is only {pip:.1f} px across (at least {need:g} needed; "
                    f"{basis})",
                    f"raise camera.width/height (about {math.ceil(need / pip * width)} px wide for this view) or "
                    f"bring the camera closer, so the frame spans at most {width * doctor.pip_mm / need:.0f} mm "
                    f"of table instead of {width / per_mm:.0f}")


# -- sound -------------------------------------------------------------------------------------
def _run(command: list[str], timeout: float = 20.0) -> tuple[int, str]:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return 124, f"{command[0]} did not finish within {timeout:g} s"
    except OSError as error:
        return 127, error.strerror or str(error)
    lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    return done.returncode, (lines[-1].strip() if lines else "")


def check_audio(player: str, device: str = "", search_path: str | None = None, language: str = "pl") -> str | None:
    """None when the referee's speech can be heard: espeak-ng runs, ``player`` (aplay, paplay or
    auto) is there, a sound card (ALSA) or sound server (PulseAudio, PipeWire) is, and a phrase
    in ``language`` plays through the same voice and player the referee uses. Otherwise one line
    saying what is wrong and what to do."""
    from referee.announce.players import find_player
    from referee.announce.synth import VoiceError, synthesise
    from referee.announce.voices import VoiceConfigError, voice_for

    espeak = shutil.which("espeak-ng", path=search_path)
    if espeak is None:
        return "espeak-ng is not installed — do: sudo apt install espeak-ng"
    code, said = _run([espeak, "--version"])
    if code != 0:
        return f"espeak-ng does not run ({said}) — do: reinstall it: sudo apt install --reinstall espeak-ng"
    if player == "auto":
        try:
            player = find_player("auto").name
        except VoiceError as error:
            return f"{error} — do: install one, or set sound.mute = true"
    program = shutil.which(player, path=search_path)
    if program is None:
        return (f"the sound player {player} is not installed — do: sudo apt install alsa-utils (aplay) or "
                "pulseaudio-utils (paplay), or set sound.player")
    if player == "aplay":
        code, said = _run([program, "-l"])
        if code != 0 or "no soundcards" in said:
            return ("no sound card found (`aplay -l` lists none) — do: connect a speaker (USB, HDMI or the "
                    "headphone socket) and check `aplay -l`, or set sound.mute = true")
    elif player == "paplay":
        pactl = shutil.which("pactl", path=search_path)
        code, said = _run([pactl, "info"]) if pactl else (127, "pactl is not installed")
        if code != 0:
            return (f"no PulseAudio or PipeWire sound server answers ({said}) — do: run in the desktop session "
                    "that plays sound, or set sound.player = \"aplay\"")
    try:
        wav = synthesise("sound check", voice_for(language), espeak=espeak)
    except (VoiceError, VoiceConfigError) as error:
        return f"espeak-ng cannot speak ({error}) — do: reinstall it: sudo apt install --reinstall espeak-ng"
    try:
        find_player(player, device=device).play(wav)
    except VoiceError as error:
        where = f" on sound.device {device!r}" if device else ""
        return (f"{player} cannot play sound{where} ({error}) — do: check the speaker and volume (`alsamixer`), "
                "sound.device, or set sound.mute = true")
    return None


def audio_finding(sound: SoundSettings, check: Callable[[str, str], str | None]) -> Finding:
    if sound.mute:
        return _skipped("audio", "sound is muted (sound.mute = true)")
    problem = check(sound.player, sound.device)
    if problem is None:
        return _ok("audio", f"speech plays through {sound.player}" + (f" on {sound.device}" if sound.device else ""))
    what, _, do = problem.partition(" — do: ")
    return _problem("audio", what, do or "fix the sound output, or set sound.mute = true")


# -- files and the port ------------------------------------------------------------------------
def check_folder(folder: Path, files: Iterable[str]) -> Finding:
    """The records can be written in ``folder`` (or it can be made): a temporary file is created
    and removed; the databases themselves are never opened."""
    names = ", ".join(files)
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return _problem("records", f"records folder {folder} cannot be made: {existing} is not a folder",
                        "set records.db and records.log to files in a folder")
    try:
        fd, temp = tempfile.mkstemp(prefix=".referee-doctor-", dir=existing)
        os.close(fd)
        os.unlink(temp)
    except OSError as error:
        return _problem("records", f"cannot write in {existing} for the records ({names}): "
                        f"{error.strerror or error}",
                        "run the referee as a user who may write there (Pi: the domino user), or set records.db "
                        "and records.log to a writable folder")
    blocked = [name for name in files if (folder / name).exists() and not os.access(folder / name, os.W_OK)]
    if blocked:
        return _problem("records", f"{folder / blocked[0]} is read-only", "give the referee's user write access "
                        "to it (sudo chown domino: FILE on the Pi)")
    made = "" if folder.exists() else " (it will be made)"
    return _ok("records", f"records folder {folder} is writable{made}: {names}")


def check_records(settings: Settings) -> list[Finding]:
    """One finding per folder holding the records database or the event log."""
    folders: dict[Path, list[str]] = {}
    default = data_folder()
    for path, name in ((settings.records.db, "records.sqlite"), (settings.records.log, "events.sqlite")):
        target = Path(path) if path else default / name
        folders.setdefault(target.parent, []).append(target.name)
    return [check_folder(folder, names) for folder, names in folders.items()]


def check_port(settings: Settings) -> Finding:
    """The dashboard's port is free on its host (a socket is bound to it and closed)."""
    server = settings.server
    if not server.serve:
        return _skipped("port", "the dashboard is off (server.serve = false)")
    where = f"{server.host}:{server.port}"
    try:
        infos = socket.getaddrinfo(server.host, server.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        return _problem("port", f"server.host {server.host!r} is not a known address ({error.strerror})",
                        'set server.host = "0.0.0.0" (every network) or "127.0.0.1" (this machine only)')
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will: TIME_WAIT is no clash
        try:
            probe.bind(address)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return _problem("port", f"port {where} is in use by another program",
                                f"stop it (`sudo ss -ltnp 'sport = :{server.port}'` names it; the referee service: "
                                f"{STOP_SERVICE}) or set server.port to a free one")
            if error.errno == errno.EACCES:
                return _problem("port", f"port {where} needs root (ports below 1024)", "set server.port = 8765")
            return _problem("port", f"cannot listen on {where}: {error.strerror or error}",
                            'set server.host to an address of this machine ("0.0.0.0" for all)')
    return _ok("port", f"port {where} is free for the dashboard")


# -- all of them -------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, eq=False)
class Diagnosis:
    """Every finding in order, and the last camera frame (None when none came)."""

    findings: tuple[Finding, ...]
    frame: np.ndarray | None

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.findings)

    def __repr__(self) -> str:
        shape = None if self.frame is None else tuple(self.frame.shape)
        return f"Diagnosis(findings={self.findings!r}, frame_shape={shape!r})"


def diagnose(settings: Settings, skip: Iterable[str] = (), pi_loader: Callable[[], Any] | None = None,
             audio_check: Callable[[str, str], str | None] | None = None) -> Diagnosis:
    """Run every check not in ``skip`` (names from CHECKS), in the order of CHECKS."""
    skipped = set(skip)
    unknown = skipped - set(CHECKS)
    if unknown:
        raise ValueError(f"unknown check {sorted(unknown)[0]!r}; checks: {', '.join(CHECKS)}")
    findings: list[Finding] = []
    frame: np.ndarray | None = None
    if "camera" in skipped:
        findings.append(_skipped("camera", "camera (--skip camera)"))
    else:
        found, frame = check_camera(settings, pi_loader)
        findings.append(found)
    size = settings.camera.size if frame is None else (int(frame.shape[1]), int(frame.shape[0]))
    profile: Profile | None = None
    if "calibration" in skipped:
        findings.append(_skipped("calibration", "calibration (--skip calibration)"))
    else:
        found, profile = check_calibration(settings, size)
        findings.append(found)
        if found.status is Status.PROBLEM and profile is not None and profile.image_size != size:
            profile = None  # a profile for another size says nothing about this view
    for name, check in (("lighting", check_lighting), ("focus", check_focus)):
        if name in skipped:
            findings.append(_skipped(name, f"{name} (--skip {name})"))
        elif frame is None:
            findings.append(_skipped(name, f"{name}: not checked without a frame from the camera"))
        else:
            findings.append(check(frame, settings.doctor, profile))
    if "pips" in skipped:
        findings.append(_skipped("pips", "pip size (--skip pips)"))
    else:
        findings.append(check_pips(settings, size, profile))
    if "audio" in skipped:
        findings.append(_skipped("audio", "audio (--skip audio)"))
    else:
        language = settings.table.language
        findings.append(audio_finding(settings.sound, audio_check or (
            lambda player, device: check_audio(player, device, language=language))))
    if "records" in skipped:
        findings.append(_skipped("records", "records (--skip records)"))
    else:
        findings.extend(check_records(settings))
    findings.append(_skipped("port", "port (--skip port)") if "port" in skipped else check_port(settings))
    return Diagnosis(tuple(findings), frame)
