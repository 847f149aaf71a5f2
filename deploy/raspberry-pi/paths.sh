# Where the Raspberry Pi install puts things (sourced by install.sh and uninstall.sh, after
# parse_options has set ROOT: "" for the real system, DIR with --root DIR).
# shellcheck shell=bash disable=SC2034
USER_NAME=domino
OPT="$ROOT/opt/domino-referee"
VENV="$OPT/venv"
ETC="$ROOT/etc/domino-referee"
CONFIG="$ETC/config.toml"
STATE="$ROOT/var/lib/domino-referee"
UNIT="$ROOT/etc/systemd/system/domino-referee.service"
CREATED_USER_MARK="$STATE/.user-created-by-install"
