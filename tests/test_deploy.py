"""Installing over a real table: the settings file (every bad value one line naming the file and
the key), the ``referee watch`` options it means, the install and uninstall scripts (shellcheck,
dry runs, a real staged install run twice, then undone) and the systemd units."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli import build_parser
from referee.settings import (
    Settings,
    SettingsError,
    expand_settings,
    load_settings,
    parse_settings,
    settings_to_args,
)
from tests.helpers import REPO

DEPLOY = REPO / "deploy"
EXAMPLE = DEPLOY / "config.example.toml"
PI_INSTALL = DEPLOY / "raspberry-pi" / "install.sh"
PI_UNINSTALL = DEPLOY / "raspberry-pi" / "uninstall.sh"
LAPTOP_INSTALL = DEPLOY / "laptop" / "install.sh"
LAPTOP_UNINSTALL = DEPLOY / "laptop" / "uninstall.sh"
PI_UNIT = DEPLOY / "raspberry-pi" / "domino-referee.service"
LAPTOP_UNIT = DEPLOY / "laptop" / "domino-referee.service"


# --- the settings file ---------------------------------------------------------------------------


def test_the_example_file_loads_as_documented() -> None:
    settings = load_settings(EXAMPLE)
    assert settings.path == str(EXAMPLE)
    assert settings.camera.source == "0" and settings.camera.size == (1920, 1080)
    assert settings.camera.calibration is None and settings.camera.is_camera
    assert settings.table.variant == "fives" and settings.table.players == 2
    assert settings.table.names == ("Ala", "Olek") and settings.table.seats == ("bottom", "top")
    assert settings.table.house_rules.target == 100 and settings.table.house_rules.hand_size is None
    assert settings.server.host == "127.0.0.1" and settings.server.port == 8765
    assert settings.sound.player == "auto" and not settings.sound.mute
    assert settings.doctor.pip_mm == 3.5 and settings.doctor.min_pip_px == 4.0


def test_every_key_of_the_example_is_a_default_but_the_examples_own() -> None:
    """The example documents the defaults: all it sets differently are the sample names, seats
    and target."""
    settings = load_settings(EXAMPLE)
    defaults = parse_settings({}, str(EXAMPLE))
    assert settings.replace(table=defaults.table) == defaults
    assert repr(Settings().camera) == repr(defaults.camera)


def test_a_repr_pastes_back_and_hides_the_token() -> None:
    from referee.settings import CameraSettings, HouseRules, ServerSettings, TableSettings  # noqa: F401
    settings = load_settings(EXAMPLE)
    assert eval(repr(settings.table)) == settings.table
    assert eval(repr(settings.camera)) == settings.camera
    secret = ServerSettings(host="0.0.0.0", token="s3cret-token-0123456789")
    assert "s3cret" not in repr(secret) and "<hidden>" in repr(secret)


def write(tmp_path: Path, text: str, name: str = "config.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


BAD = [
    ("[camera]\nwidth = 'wide'\n", "camera.width must be a whole number from 320 to 8192, got 'wide'"),
    ("[camera]\nwidth = 100\n", "camera.width must be a whole number from 320 to 8192, got 100"),
    ("[camera]\nheight = 1080.5\n", "camera.height must be a whole number from 240 to 8192, got 1080.5"),
    ("[camera]\nwidth = true\n", "camera.width must be a whole number"),
    ("[camera]\nsource = -1\n", 'camera.source must be "pi", a webcam number'),
    ("[camera]\nsource = ''\n", 'camera.source must be "pi", a webcam number'),
    ("[camera]\ncalibration = 3\n", "camera.calibration must be a file path"),
    ("[camera]\nworkers = 0\n", 'camera.workers must be a whole number from 1 to 16, or "auto"'),
    ("[camera]\nworkers = 'many'\n", 'camera.workers must be a whole number from 1 to 16, or "auto"'),
    ("[table]\nvariant = 'poker'\n", 'table.variant must be one of "draw", "block", "fives", "partners", got '
                                     "'poker'"),
    ("[table]\nplayers = 1\n", "table.players must be a whole number from 2 to 10, got 1"),
    ("[table]\nlanguage = 'de'\n", 'table.language must be one of "pl", "en", "da", "sv", got \'de\''),
    ("[table]\nnames = 'Ala, Olek'\n", "table.names must be a list of names"),
    ("[table]\nnames = ['Ala, Jr', 'Olek']\n", "table.names must be a list of names in quotes, one per player, "
                                               "without commas"),
    ("[table]\nseats = ['under', 'top']\n", "table.seats must be a list with one place per player"),
    ("[table]\nwidth_mm = 50\n", "table.width_mm must be a number from 200 to 5000, got 50"),
    ("[table.house_rules]\nmax_pips = 7\n", "table.house_rules.max_pips must be 6, 9 or 12"),
    ("[table.house_rules]\nblocked_scoring = 'most'\n", "table.house_rules.blocked_scoring must be one of"),
    ("[table.house_rules]\nspinner = 'yes'\n", "table.house_rules.spinner must be true or false, got 'yes'"),
    ("[table.house_rules]\ntarget = 0\n", "table.house_rules.target must be a whole number from 1 to 10000"),
    ("[server]\nport = 70000\n", "server.port must be a whole number from 1 to 65535, got 70000"),
    ("[server]\nhost = 'my host'\n", "server.host must be an address of this machine"),
    ("[server]\ntoken = 'short'\n", "server.token must be 16 to 256 letters"),
    ("[server]\nserve = 1\n", "server.serve must be true or false, got 1"),
    ("[sound]\nplayer = 'aplay -q'\n", "sound.player must be the program that plays sound"),
    ("[sound]\nplayer = '/usr/bin/aplay'\n", 'sound.player must be the program that plays sound: "aplay"'),
    ("[sound]\nmute = 'no'\n", "sound.mute must be true or false, got 'no'"),
    ("[records]\ndb = ['a']\n", "records.db must be a file path"),
    ("[doctor]\nmax_clipped = 2\n", "doctor.max_clipped must be a number from 0 to 1, got 2"),
    ("[doctor]\nmin_pip_px = 'big'\n", "doctor.min_pip_px must be a number from 0.5 to 100, got 'big'"),
    ("[doctor]\nframes = 0\n", "doctor.frames must be a whole number from 1 to 100, got 0"),
    # unknown sections and keys: a misspelling is never silently ignored
    ("[camera]\nwidht = 1920\n", "unknown key camera.widht ([camera] takes: source, width, height"),
    ("[camra]\nwidth = 1920\n", "unknown section [camra] (sections: camera, table, server, sound, records, doctor)"),
    ("[table.house_rules]\ntarget_score = 5\n", "unknown key table.house_rules.target_score"),
    ("camera = 3\n", "camera must be a section ([camera]), got 3"),
    # what one key cannot say alone
    ("[table]\nplayers = 3\nnames = ['Ala', 'Olek']\n", "table.names must have one entry per player (3, "
                                                        "table.players), got 2"),
    ("[table]\nseats = ['bottom']\n", "table.seats must have one entry per player (2"),
    ("[table]\nopener = 2\n", "table.opener must be a seat from 0 to 1 (table.players is 2), got 2"),
    ("[table]\nvariant = 'partners'\nplayers = 3\n", "table.players: the partners game is for 4 players, got 3"),
    ("[table.house_rules]\nhand_size = 20\n", "table.house_rules.hand_size: 2 players with 20 tiles each need"),
    ("[table.house_rules]\nfirst_player = 3\n", "table.house_rules.first_player: first_player must be a seat"),
    ("[server]\nhost = '0.0.0.0'\n", "server.token must be set (16 or more letters and digits) when server.host "
                                     "'0.0.0.0' lets other machines in"),
    ("[doctor]\nmin_brightness = 200\nmax_brightness = 100\n", "doctor.min_brightness must be below "
                                                               "doctor.max_brightness, got 200 and 100"),
    ("[camera\nwidth = 1\n", "not valid TOML"),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[b[1][:40] for b in BAD])
def test_a_bad_value_is_one_line_naming_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(SettingsError) as caught:
        load_settings(path)
    said = str(caught.value)
    assert said.startswith(f"{path}: "), said
    assert message in said, said
    assert "\n" not in said
    assert isinstance(caught.value, ValueError)


def test_unreadable_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"cannot read settings .*missing\.toml: No such file"):
        load_settings(tmp_path / "missing.toml")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SettingsError, match=r"binary\.toml: not a text file"):
        load_settings(binary)


def test_paths_are_taken_from_the_files_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = tmp_path / "etc"
    folder.mkdir()
    path = write(folder, "[camera]\nsource = 'frames'\ncalibration = 'profiles/table.json'\n"
                         "[records]\ndb = '~/records.sqlite'\nlog = '/var/log/x.sqlite'\n")
    settings = load_settings(path)
    assert settings.camera.source == str(folder / "frames") and not settings.camera.is_camera
    assert settings.camera.calibration == str(folder / "profiles" / "table.json")
    assert settings.records.db == str(tmp_path / "home" / "records.sqlite")
    assert settings.records.log == "/var/log/x.sqlite"


def test_cameras_by_number_or_name(tmp_path: Path) -> None:
    assert load_settings(write(tmp_path, "[camera]\nsource = 2\n")).camera.source == "2"
    assert load_settings(write(tmp_path, "[camera]\nsource = '1'\n")).camera.source == "1"
    assert load_settings(write(tmp_path, "[camera]\nsource = 'PI'\n")).camera.source == "pi"


def test_partners_are_four_unless_said(tmp_path: Path) -> None:
    settings = load_settings(write(tmp_path, "[table]\nvariant = 'partners'\n"))
    assert settings.table.players == 4


# --- the watch options they mean -----------------------------------------------------------------


def _parse_watch(args: list[str]) -> tuple[dict[str, object], list[str]]:
    """The options ``referee watch`` takes, and any words it does not know."""
    namespace, unknown = build_parser().parse_known_args(["watch", *args])
    return vars(namespace), unknown


def test_settings_mean_watch_options_the_parser_accepts(tmp_path: Path) -> None:
    path = write(tmp_path, """
[camera]
source = "pi"
width = 1280
height = 720
calibration = "table.json"
workers = 2
[table]
variant = "draw"
players = 3
names = ["Ala", "Olek", "Ewa"]
language = "en"
opener = 2
seats = ["bottom", "left", 90]
referee_config = "referee.json"
[table.house_rules]
hand_size = 5
max_pips = 9
draw_when_able = true
blocked_scoring = "fewest_tiles"
spinner = false
[server]
host = "0.0.0.0"
port = 9000
token = "0123456789abcdef0123"
[sound]
mute = true
[records]
log = "/srv/events.sqlite"
db = "/srv/records.sqlite"
""")
    args = settings_to_args(load_settings(path))
    assert "0123456789abcdef0123" not in args  # a token on a command line is visible to every user
    known, unknown = _parse_watch(args)
    assert known["camera"] == "pi" and known["source"] is None
    assert known["calibration"] == str(tmp_path / "table.json")
    assert (known["variant"], known["players"], known["opener"]) == ("draw", 3, 2)
    assert known["names"] == "Ala,Olek,Ewa" and known["lang"] == "en" and known["seats"] == "bottom,left,90"
    assert known["referee_config"] == str(tmp_path / "referee.json")
    assert (known["hand_size"], known["max_pips"], known["blocked_scoring"]) == (5, 9, "fewest_tiles")
    assert known["draw_when_able"] is True and known["spinner"] is False
    assert known["log"] == "/srv/events.sqlite"
    assert unknown == []  # watch takes every option the settings mean
    assert known["size"] == "1280x720" and known["serve"] is True
    assert known["port"] == 9000 and known["host"] == "0.0.0.0"
    assert known["mute"] is True and known["db"] == "/srv/records.sqlite"
    assert known["workers"] == 2


def test_a_video_source_is_a_source_not_a_camera(tmp_path: Path) -> None:
    settings = load_settings(write(tmp_path, "[camera]\nsource = 'clip.avi'\n[server]\nserve = false\n"))
    args = settings_to_args(settings)
    known, unknown = _parse_watch(args)
    assert known["source"] == str(tmp_path / "clip.avi") and known["camera"] is None
    assert unknown == []  # no size for a file, no dashboard


def test_expand_settings_puts_the_file_first_so_the_command_line_wins(tmp_path: Path) -> None:
    path = write(tmp_path, "[table]\nlanguage = 'sv'\nvariant = 'block'\n[server]\nserve = false\n")
    argv = expand_settings(["watch", "--settings", str(path), "--lang", "da"])
    assert argv[0] == "watch" and "--settings" not in argv
    known, _ = _parse_watch(argv[1:])
    assert known["lang"] == "da" and known["variant"] == "block"
    assert expand_settings(["watch", f"--settings={path}"])[1:] == settings_to_args(load_settings(path))
    assert expand_settings(["replay", "x", "--settings", "y"]) == ["replay", "x", "--settings", "y"]
    assert expand_settings(["watch", "--camera", "0"]) == ["watch", "--camera", "0"]
    with pytest.raises(SettingsError, match=r"nowhere\.toml"):
        expand_settings(["watch", "--settings", str(tmp_path / "nowhere.toml")])


def test_reading_settings_loads_neither_numpy_nor_opencv() -> None:
    """The loader is light: a service reads its settings before the camera is touched."""
    probe = "import sys, referee.settings; print('numpy' in sys.modules, 'cv2' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60,
                          check=True)
    assert done.stdout.split() == ["False", "False"]


# --- the scripts ---------------------------------------------------------------------------------

SCRIPTS = sorted(DEPLOY.rglob("*.sh"))


def test_every_script_is_found() -> None:
    names = {str(p.relative_to(DEPLOY)) for p in SCRIPTS}
    assert {"lib.sh", "raspberry-pi/install.sh", "raspberry-pi/uninstall.sh", "laptop/install.sh",
            "laptop/uninstall.sh"} <= names
    for path in SCRIPTS:
        text = path.read_text(encoding="utf-8")
        if path.name not in ("lib.sh", "paths.sh"):  # sourced by the scripts, not run
            assert text.startswith("#!/usr/bin/env bash\n") and "set -euo pipefail" in text, path
            assert path.stat().st_mode & stat.S_IXUSR, f"{path} is not executable"


def _shellcheck() -> str:
    found = shutil.which("shellcheck")
    if found is None:
        if os.environ.get("REFEREE_REQUIRE_SHELLCHECK"):
            pytest.fail("shellcheck is required (REFEREE_REQUIRE_SHELLCHECK is set): apt install shellcheck")
        pytest.skip("shellcheck is not installed (apt install shellcheck); CI sets REFEREE_REQUIRE_SHELLCHECK")
    return found


@pytest.mark.parametrize("script", SCRIPTS, ids=[str(p.relative_to(DEPLOY)) for p in SCRIPTS])
def test_shellcheck_passes(script: Path) -> None:
    done = subprocess.run([_shellcheck(), "-x", str(script)], capture_output=True, text=True, timeout=60,
                          check=False, cwd=DEPLOY)
    assert done.returncode == 0, done.stdout + done.stderr


def sh(script: Path, *args: str | Path, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run a deploy script as a user would (from another folder), with this Python for the venv."""
    env = {**os.environ, "PYTHON": sys.executable if "laptop" in str(script) else "/usr/bin/python3"}
    if not Path(env["PYTHON"]).exists():
        env["PYTHON"] = sys.executable
    if home is not None:
        env["HOME"] = str(home)
    done = subprocess.run(["bash", str(script), *map(str, args)], capture_output=True, text=True, timeout=120,
                          check=False, env=env, cwd="/")
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    return done


def test_pi_dry_run_says_every_action_and_does_none(tmp_path: Path) -> None:
    before = sorted(Path("/opt").iterdir()) if Path("/opt").is_dir() else []
    out = sh(PI_INSTALL, "--dry-run").stdout
    assert "dry run: nothing is changed" in out
    assert "would run: /usr/bin/python3 -m venv --system-site-packages /opt/domino-referee/venv" in out \
        or "-m venv --system-site-packages /opt/domino-referee/venv" in out
    assert re.search(r"would run: /opt/domino-referee/venv/bin/python -m pip install --quiet --upgrade "
                     rf"{re.escape(str(REPO))} 'numpy", out)
    assert "would run: install -D -m 0644 " + str(PI_UNIT) + " /etc/systemd/system/domino-referee.service" in out
    assert "would run: systemctl enable domino-referee.service" in out
    assert "would run: systemctl restart domino-referee.service" in out
    if not Path("/etc/domino-referee/config.toml").exists():
        assert "would write: /etc/domino-referee/config.toml (the settings, with a new dashboard token" in out
    if subprocess.run(["id", "domino"], capture_output=True, check=False).returncode != 0:
        assert "would run: useradd --system" in out and "domino" in out
    assert "would run: usermod --append --groups video,audio domino" in out
    assert (sorted(Path("/opt").iterdir()) if Path("/opt").is_dir() else []) == before
    no_start = sh(PI_INSTALL, "--dry-run", "--no-start").stdout
    assert "would run: systemctl restart" not in no_start and "not started (--no-start)" in no_start


def test_pi_staged_install_twice_keeps_the_settings_then_uninstall_keeps_the_records(tmp_path: Path) -> None:
    root = tmp_path / "pi"
    first = sh(PI_INSTALL, "--root", root, "--no-pip").stdout
    config = root / "etc" / "domino-referee" / "config.toml"
    assert f"+ write {config} (the settings, with a new dashboard token; mode 0640)" in first
    assert "skipped (--root): systemctl enable domino-referee.service" in first
    assert "skipped (--root): useradd" in first or "exists: user domino" in first
    # the program: a venv that sees the system's picamera2
    venv = root / "opt" / "domino-referee" / "venv"
    assert "include-system-site-packages = true" in (venv / "pyvenv.cfg").read_text()
    # the service file, as in the repository
    unit = root / "etc" / "systemd" / "system" / "domino-referee.service"
    assert unit.read_bytes() == PI_UNIT.read_bytes()
    # the settings: valid, for the Pi camera, reachable from the home network with a token
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    settings = load_settings(config)
    assert settings.camera.source == "pi" and settings.server.host == "0.0.0.0"
    assert re.fullmatch(r"[0-9a-f]{32}", settings.server.token)
    assert settings.records.db == "/var/lib/domino-referee/records.sqlite"
    assert (root / "var" / "lib" / "domino-referee" / "calibration").is_dir()
    # the user edits the settings; a second run (an update) keeps them and the token
    edited = config.read_text().replace("port = 8765", "port = 9000")
    config.write_text(edited)
    dry = sh(PI_INSTALL, "--root", root, "--no-pip", "--dry-run").stdout
    assert f"kept: {config} (already there; your edits stay)" in dry
    assert f"unchanged: {unit}" in dry and "would write" not in dry
    again = sh(PI_INSTALL, "--root", root, "--no-pip").stdout
    assert f"kept: {config}" in again and f"exists: {venv} (virtual environment)" in again
    assert config.read_text() == edited
    assert load_settings(config).server.token == settings.server.token
    # uninstall: the program and the service go, the settings and the records stay, and it says so
    records = root / "var" / "lib" / "domino-referee" / "records.sqlite"
    records.write_bytes(b"the family's records")
    gone = sh(PI_UNINSTALL, "--root", root).stdout
    assert not unit.exists() and not venv.exists()
    assert config.read_text() == edited and records.read_bytes() == b"the family's records"
    assert f"kept: {config.parent} (the settings and the dashboard token)" in gone
    assert "--purge removes these too" in gone
    purged = sh(PI_UNINSTALL, "--root", root, "--purge").stdout
    assert not config.exists() and not records.exists()
    assert "skipped (--root): userdel domino" in purged or "kept: user domino" in purged
    assert sorted(p.name for p in root.rglob("*") if p.is_file()) == []


def test_laptop_staged_install_with_a_user_service_and_uninstall(tmp_path: Path) -> None:
    root = tmp_path / "home"
    out = sh(LAPTOP_INSTALL, "--root", root, "--no-pip", "--systemd-user").stdout
    data = root / ".local" / "share" / "domino-referee"
    config = root / ".config" / "domino-referee" / "config.toml"
    launcher = root / ".local" / "bin" / "domino-referee"
    unit = root / ".config" / "systemd" / "user" / "domino-referee.service"
    assert "include-system-site-packages = false" in (data / "venv" / "pyvenv.cfg").read_text()
    assert "skipped (--root): systemctl --user enable domino-referee.service" in out
    assert unit.read_bytes() == LAPTOP_UNIT.read_bytes()
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    settings = load_settings(config)
    assert settings.camera.source == "0" and settings.server.host == "127.0.0.1"
    assert settings.sound.player == "paplay" and settings.records.log == str(data / "events.sqlite")
    text = launcher.read_text()
    assert stat.S_IMODE(launcher.stat().st_mode) == 0o755
    assert f"venv='{data / 'venv'}'" in text and f"settings='{config}'" in text
    assert 'watch --settings "$settings"' in text
    done = subprocess.run([_shellcheck(), "-s", "sh", str(launcher)], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stdout
    again = sh(LAPTOP_INSTALL, "--root", root, "--no-pip", "--systemd-user", "--dry-run").stdout
    assert f"kept: {config}" in again and f"unchanged: {unit}" in again and "would" not in again.replace(
        "would run: rm", "")
    sh(LAPTOP_UNINSTALL, "--root", root)
    assert not launcher.exists() and not unit.exists() and not (data / "venv").exists()
    assert config.exists() and data.is_dir()
    sh(LAPTOP_UNINSTALL, "--root", root, "--purge")
    assert not config.exists() and not data.exists()


def test_bad_options_are_one_line_and_exit_2() -> None:
    for script in (PI_INSTALL, PI_UNINSTALL, LAPTOP_INSTALL, LAPTOP_UNINSTALL):
        done = subprocess.run(["bash", str(script), "--dry-run", "--frobnicate"], capture_output=True, text=True,
                              timeout=60, check=False)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.strip().splitlines() == [f"{script.parent.name}/{script.name}: unknown option "
                                                    "--frobnicate (see --help)"]
    done = subprocess.run(["bash", str(PI_UNINSTALL), "--systemd-user"], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 2
    shown = subprocess.run(["bash", str(PI_INSTALL), "--help"], capture_output=True, text=True, timeout=60,
                           check=True).stdout
    assert "--dry-run" in shown and "--no-start" in shown and "--root DIR" in shown


# --- the systemd units ---------------------------------------------------------------------------


def test_the_pi_unit_runs_the_referee_unprivileged_and_restarts_it() -> None:
    text = PI_UNIT.read_text()
    lines = set(text.splitlines())
    assert "ExecStart=/opt/domino-referee/venv/bin/referee watch --settings /etc/domino-referee/config.toml" in lines
    assert {"User=domino", "Restart=on-failure", "SupplementaryGroups=video audio", "StandardOutput=journal",
            "StateDirectory=domino-referee", "NoNewPrivileges=true", "ProtectSystem=full", "ProtectHome=true",
            "ReadWritePaths=/var/lib/domino-referee", "WantedBy=multi-user.target"} <= lines
    assert any(line.startswith("RestartSec=") for line in lines)
    # these would close /dev to the camera and the sound card
    for option in ("PrivateDevices=", "DevicePolicy=", "DeviceAllow=", "ProtectClock=", "ProtectKernelLogs="):
        assert not any(line.startswith(option) for line in lines), option


def _verify(unit: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``systemd-analyze verify`` on a copy whose ExecStart is a program that exists here."""
    tool = shutil.which("systemd-analyze")
    if tool is None:
        if os.environ.get("REFEREE_REQUIRE_SYSTEMD"):
            pytest.fail("systemd-analyze is required (REFEREE_REQUIRE_SYSTEMD is set): apt install systemd")
        pytest.skip("systemd-analyze is not installed (apt install systemd) to check the service units; "
                    "CI sets REFEREE_REQUIRE_SYSTEMD so there it fails instead")
    copy = tmp_path / unit.name
    text = re.sub(r"^ExecStart=\S+", "ExecStart=/bin/true", unit.read_text(), flags=re.MULTILINE)
    copy.write_text(text)
    return subprocess.run([tool, "verify", str(copy)], capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("unit", [PI_UNIT, LAPTOP_UNIT], ids=["raspberry-pi", "laptop"])
def test_systemd_analyze_verify_finds_nothing_wrong(unit: Path, tmp_path: Path) -> None:
    done = _verify(unit, tmp_path)
    said = [line for line in (done.stdout + done.stderr).splitlines() if unit.name in line or "Unknown" in line]
    assert done.returncode == 0 and said == [], done.stdout + done.stderr


def test_systemd_analyze_would_catch_a_broken_unit(tmp_path: Path) -> None:
    """The check above is not blind: a bad value is a line naming the unit (systemd only warns)."""
    broken = tmp_path / "broken" / "domino-referee.service"
    broken.parent.mkdir()
    broken.write_text(PI_UNIT.read_text().replace("Restart=on-failure", "Restart=sometimes"))
    done = _verify(broken, tmp_path)
    said = [line for line in (done.stdout + done.stderr).splitlines() if broken.name in line]
    assert len(said) == 1 and "sometimes" in said[0]
