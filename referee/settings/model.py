"""The deployment settings as values: one frozen dataclass per section of ``config.toml``.

Every field has the default a fresh install would choose; paths are strings (absolute once
loaded), ``None`` where the referee's own default applies. The reprs paste back as code."""

from __future__ import annotations

import dataclasses


class SettingsError(ValueError):
    """A bad settings file or value; the message names the file, the key and what is allowed."""


@dataclasses.dataclass(frozen=True)
class CameraSettings:
    """``source``: "pi", a webcam number ("0", "1" ...) or the path of a video or a folder of
    frames; the frame size asked of the camera; the calibration profile and vision config files;
    the processes that detect frames side by side (``None``: as ``referee watch`` chooses)."""

    source: str = "0"
    width: int = 1920
    height: int = 1080
    calibration: str | None = None
    vision_config: str | None = None
    workers: int | None = None

    @property
    def size(self) -> tuple[int, int]:
        return (self.width, self.height)

    @property
    def is_camera(self) -> bool:
        """Whether the source is a camera (the Pi camera or a webcam), not a file or folder."""
        return self.source == "pi" or (self.source.isascii() and self.source.isdigit())


@dataclasses.dataclass(frozen=True)
class HouseRules:
    """The house rules of ``referee watch`` (``None``: the variant's default)."""

    hand_size: int | None = None
    target: int | None = None
    max_pips: int | None = None
    draw_when_able: bool = False
    keep_in_boneyard: int | None = None
    blocked_scoring: str | None = None
    draw_count: int | None = None
    first_player: int | None = None
    spinner: bool | None = None


@dataclasses.dataclass(frozen=True)
class TableSettings:
    """The game at the table. ``names`` and ``seats`` have one entry per player when given;
    ``width_mm`` is the width of the play area the camera must cover (for ``referee doctor``);
    ``referee_config``: a JSON file of the referee's tolerances (``--referee-config``)."""

    variant: str = "fives"
    players: int = 2
    names: tuple[str, ...] = ()
    language: str = "pl"
    opener: int = 0
    seats: tuple[str, ...] = ()
    width_mm: float = 1000.0
    referee_config: str | None = None
    house_rules: HouseRules = dataclasses.field(default_factory=HouseRules)


#: The dashboard's port, on the command line and in the settings alike.
DEFAULT_PORT = 8765


@dataclasses.dataclass(frozen=True)
class ServerSettings:
    """The dashboard: served on ``host``:``port`` when ``serve``; ``token`` guards it (required
    when the host is reachable from other machines)."""

    serve: bool = True
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    token: str = ""

    def __repr__(self) -> str:  # the token is a secret: never in a log line or a traceback
        token = "'<hidden>'" if self.token else "''"
        return f"ServerSettings(serve={self.serve!r}, host={self.host!r}, port={self.port!r}, token={token})"


@dataclasses.dataclass(frozen=True)
class SoundSettings:
    """Speech: ``player`` plays espeak-ng's sound (aplay for ALSA, paplay for PulseAudio or
    PipeWire, auto: paplay when a sound server answers, else aplay), on ``device`` when given
    (e.g. "plughw:1,0" for aplay)."""

    mute: bool = False
    player: str = "auto"
    device: str = ""


@dataclasses.dataclass(frozen=True)
class RecordsSettings:
    """Where the records database and the event log live (``None``: the user's data folder);
    ``resume``: after a restart (a crash, a power cut, the service restarted), go on with the
    match the event log left unfinished rather than start a new one."""

    db: str | None = None
    log: str | None = None
    resume: bool = True


@dataclasses.dataclass(frozen=True)
class DoctorSettings:
    """What ``referee doctor`` accepts. Brightness is the mean grey level (0-255) over the table;
    a pixel at ``clip_level`` or above is blown out, at most ``max_clipped`` of them; ``min_focus``
    is the variance of the Laplacian over the table; a pip of ``pip_mm`` must be at least
    ``min_pip_px`` pixels across."""

    frames: int = 10
    timeout_s: float = 10.0
    min_brightness: float = 40.0
    max_brightness: float = 220.0
    clip_level: int = 250
    max_clipped: float = 0.01
    min_focus: float = 10.0
    pip_mm: float = 3.5
    min_pip_px: float = 4.0


@dataclasses.dataclass(frozen=True)
class Settings:
    """A whole ``config.toml``; ``path`` is the file it came from ("" for the defaults)."""

    camera: CameraSettings = dataclasses.field(default_factory=CameraSettings)
    table: TableSettings = dataclasses.field(default_factory=TableSettings)
    server: ServerSettings = dataclasses.field(default_factory=ServerSettings)
    sound: SoundSettings = dataclasses.field(default_factory=SoundSettings)
    records: RecordsSettings = dataclasses.field(default_factory=RecordsSettings)
    doctor: DoctorSettings = dataclasses.field(default_factory=DoctorSettings)
    path: str = ""

    def replace(self, **changes: object) -> Settings:
        """A copy with whole sections replaced (``settings.replace(camera=...)``)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]
