#!/usr/bin/env bash
# Installs the domino referee for yourself on a Debian or Ubuntu laptop with a USB webcam. Run it
# from the checkout as your own user (it asks sudo only for missing Debian packages):
#
#   deploy/laptop/install.sh [--dry-run] [--systemd-user] [--no-start] [--root DIR] [--no-pip]
#
# Then `domino-referee` starts refereeing (`domino-referee doctor` checks the set-up first).
# Running it again is harmless and is how an update is installed (git pull first): the program
# is refreshed, the settings and the records are kept.
set -euo pipefail
PROG="laptop/install.sh"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib.sh
. "$here/../lib.sh"

USAGE="usage: $0 [--dry-run] [--systemd-user] [--no-start] [--root DIR] [--no-pip]

  --dry-run       print every action instead of doing it
  --systemd-user  also a systemd user service (starts when you log in; journalctl --user -u domino-referee)
  --no-start      with --systemd-user: enable the service but do not start it now
  --root DIR      install into DIR as if it were your home folder (for testing): no apt, no systemctl
  --no-pip        make the virtual environment but do not install the package into it

Installs: the Debian packages below (with sudo, only if missing), the program in
~/.local/share/domino-referee/venv, the settings ~/.config/domino-referee/config.toml (only if
absent), the launcher ~/.local/bin/domino-referee. Remove it with deploy/laptop/uninstall.sh."
parse_options "$USAGE" "--dry-run --systemd-user --no-start --root --no-pip" "$@"

DEBS=(python3-venv espeak-ng alsa-utils pulseaudio-utils v4l-utils)
# shellcheck source=SCRIPTDIR/paths.sh
. "$here/paths.sh"
PYTHON="${PYTHON:-python3}"

if [ -z "$ROOT" ] && [ "$(id -u)" -eq 0 ]; then
    die "run as yourself, not root (the referee installs into your home folder; a Raspberry Pi service: deploy/raspberry-pi/install.sh)"
fi
[ "$DRY_RUN" -eq 1 ] && say "dry run: nothing is changed"
[ -n "$ROOT" ] && say "staging into $ROOT (as the home folder)"

say "== Debian packages"
mapfile -t missing < <(missing_debs "${DEBS[@]}")
if [ "${#missing[@]}" -eq 0 ]; then
    say "installed already: ${DEBS[*]}"
elif [ -n "$ROOT" ]; then
    system sudo apt-get install -y --no-install-recommends "${missing[@]}"
elif command -v sudo >/dev/null; then
    run sudo apt-get update -qq
    run sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    die "please install these Debian packages first (as root): ${missing[*]}"
fi
if [ "$DRY_RUN" -eq 0 ] || command -v "$PYTHON" >/dev/null; then
    check_python "$PYTHON"
fi

say "== the program"
make_dir 0700 "$DATA"
make_venv "$PYTHON" "$VENV"
install_package "$VENV"

say "== settings"
# A desktop session plays sound through PulseAudio or PipeWire: paplay.
settings_text 0 127.0.0.1 paplay "$DATA/records.sqlite" "$DATA/events.sqlite" |
    write_new 0600 "$CONFIG" "the settings, with a new dashboard token"

say "== the launcher"
launcher="$(mktemp)"
trap 'rm -f "$launcher"' EXIT
cat >"$launcher" <<LAUNCH
#!/bin/sh
# domino-referee: written by deploy/laptop/install.sh (a re-run rewrites it).
#   domino-referee [OPTIONS]         referee the table (referee watch with your settings)
#   domino-referee doctor [OPTIONS]  check the set-up with your settings
#   domino-referee COMMAND ...       any other referee command (calibrate, replay, ...)
venv='$VENV'
settings='$CONFIG'
case "\${1:-}" in
    "" | -*) exec "\$venv/bin/referee" watch --settings "\$settings" "\$@" ;;
    watch | doctor)
        command=\$1
        shift
        exec "\$venv/bin/referee" "\$command" --settings "\$settings" "\$@"
        ;;
    *) exec "\$venv/bin/referee" "\$@" ;;
esac
LAUNCH
put_file 0755 "$launcher" "$LAUNCHER"
case ":$PATH:" in
    *":$HOME_DIR/.local/bin:"*) ;;
    *) say "note: $HOME_DIR/.local/bin is not on your PATH; log out and in again (Debian and Ubuntu add it when it exists)" ;;
esac

if [ "$SYSTEMD_USER" -eq 1 ]; then
    say "== the systemd user service"
    put_file 0644 "$here/domino-referee.service" "$UNIT"
    system systemctl --user daemon-reload
    system systemctl --user enable domino-referee.service
    if [ "$NO_START" -eq 1 ]; then
        say "not started (--no-start): systemctl --user start domino-referee"
    else
        system systemctl --user restart domino-referee.service
    fi
fi

cat <<EOF
== done
Next (see deploy/README.md):
  check:      domino-referee doctor          (lay a few tiles face up under the camera first)
  calibrate:  domino-referee doctor --save-frame table.png
              domino-referee calibrate table.png --out $DATA/table.json
              then set calibration = "$DATA/table.json" in $CONFIG
  run:        domino-referee                 (keys: p pass, u undo, c OLD NEW correct, n next hand, q quit)
  settings:   $CONFIG
EOF
