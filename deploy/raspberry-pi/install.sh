#!/usr/bin/env bash
# Installs the domino referee on Raspberry Pi OS (64-bit, Bookworm or newer) as a service that
# watches the Pi camera, speaks and serves the dashboard. Run it from the checkout, as root:
#
#   sudo deploy/raspberry-pi/install.sh [--dry-run] [--no-start] [--root DIR] [--no-pip]
#
# Running it again is harmless and is how an update is installed (git pull first): the package
# and the service file are refreshed, the settings and the records are kept.
set -euo pipefail
PROG="raspberry-pi/install.sh"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib.sh
. "$here/../lib.sh"

USAGE="usage: sudo $0 [--dry-run] [--no-start] [--root DIR] [--no-pip]

  --dry-run   print every action instead of doing it
  --no-start  install and enable the service, but do not start it now (calibrate first)
  --root DIR  stage everything under DIR (for testing): no apt, no user, no chown, no systemctl
  --no-pip    make the virtual environment but do not install the package into it

Installs: the Debian packages below, the user 'domino' (groups video and audio),
/opt/domino-referee/venv (with the system's picamera2), /etc/domino-referee/config.toml
(only if absent), /var/lib/domino-referee (records, calibration) and the systemd service
domino-referee. Remove it with deploy/raspberry-pi/uninstall.sh."
parse_options "$USAGE" "--dry-run --no-start --root --no-pip" "$@"

DEBS=(python3-venv python3-picamera2 espeak-ng alsa-utils)
# shellcheck source=SCRIPTDIR/paths.sh
. "$here/paths.sh"
PYTHON="${PYTHON:-/usr/bin/python3}"

if [ "$DRY_RUN" -eq 0 ] && [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
    die "run as root: sudo $0 (or --dry-run to see what it would do)"
fi
[ "$DRY_RUN" -eq 1 ] && say "dry run: nothing is changed"
[ -n "$ROOT" ] && say "staging into $ROOT"
if [ "$(uname -m)" != "aarch64" ]; then
    say "note: this is $(uname -m), not a 64-bit Raspberry Pi; carrying on"
fi

say "== Debian packages"
mapfile -t missing < <(missing_debs "${DEBS[@]}")
if [ "${#missing[@]}" -eq 0 ]; then
    say "installed already: ${DEBS[*]}"
else
    system apt-get update -qq
    # No recommends: picamera2's recommends pull in a desktop's worth of Qt and OpenGL.
    system env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ "$DRY_RUN" -eq 0 ] || [ -x "$PYTHON" ]; then
    check_python "$PYTHON"
fi

say "== the user $USER_NAME"
if id "$USER_NAME" >/dev/null 2>&1 || { [ -n "$ROOT" ] && [ -e "$CREATED_USER_MARK" ]; }; then
    say "exists: user $USER_NAME"
    new_user=0
else
    system useradd --system --user-group --home-dir /var/lib/domino-referee --no-create-home \
        --shell /usr/sbin/nologin --comment "domino referee" "$USER_NAME"
    new_user=1
fi
system usermod --append --groups video,audio "$USER_NAME"

say "== folders"
make_dir 0755 "$OPT"
make_dir 0755 "$ETC"
make_dir 0750 "$STATE"
make_dir 0750 "$STATE/calibration"
system chown "$USER_NAME:$USER_NAME" /var/lib/domino-referee /var/lib/domino-referee/calibration
if [ "$new_user" -eq 1 ]; then
    if [ "$DRY_RUN" -eq 1 ]; then
        say "would write: $CREATED_USER_MARK (so that uninstall --purge removes the user)"
    else
        say "+ write $CREATED_USER_MARK"
        : >"$CREATED_USER_MARK"
    fi
fi

say "== the program"
# picamera2 comes from Debian (python3-picamera2) and is seen through --system-site-packages. Its
# C modules are built against Debian's numpy: keep numpy 1.x on Bookworm (numpy 1.24 there; the
# referee needs 1.26) and Debian's own numpy 2 on newer releases.
numpy="numpy>=1.26,<2"
system_numpy="$("$PYTHON" -c 'import numpy; print(numpy.__version__)' 2>/dev/null || true)"
case "$system_numpy" in
    2.*) numpy="numpy==$system_numpy" ;;
esac
make_venv "$PYTHON" "$VENV" --system-site-packages
install_package "$VENV" "$numpy"

say "== settings"
config_was_there=0
[ -e "$CONFIG" ] && config_was_there=1
settings_text pi 0.0.0.0 aplay /var/lib/domino-referee/records.sqlite /var/lib/domino-referee/events.sqlite |
    write_new 0640 "$CONFIG" "the settings, with a new dashboard token"
if [ "$config_was_there" -eq 0 ]; then
    system chown "root:$USER_NAME" /etc/domino-referee/config.toml
fi

say "== the service"
put_file 0644 "$here/domino-referee.service" "$UNIT"
system systemctl daemon-reload
system systemctl enable domino-referee.service
if [ "$NO_START" -eq 1 ]; then
    say "not started (--no-start): start it with: sudo systemctl start domino-referee"
else
    system systemctl restart domino-referee.service
fi

cat <<EOF
== done
Next (see deploy/README.md):
  calibrate:  sudo systemctl stop domino-referee
              sudo -u $USER_NAME /opt/domino-referee/venv/bin/referee doctor --settings /etc/domino-referee/config.toml --save-frame /var/lib/domino-referee/calibration/table.png
              sudo -u $USER_NAME /opt/domino-referee/venv/bin/referee calibrate /var/lib/domino-referee/calibration/table.png --out /var/lib/domino-referee/calibration/table.json
              then set calibration = "/var/lib/domino-referee/calibration/table.json" in /etc/domino-referee/config.toml
  check:      sudo -u $USER_NAME /opt/domino-referee/venv/bin/referee doctor --settings /etc/domino-referee/config.toml
  run:        sudo systemctl restart domino-referee;  journalctl -u domino-referee -f
  dashboard:  http://$(hostname).local:8765/ (the token is in /etc/domino-referee/config.toml)
EOF
