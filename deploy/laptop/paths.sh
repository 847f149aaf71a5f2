# Where the laptop install puts things (sourced by install.sh and uninstall.sh, after
# parse_options has set ROOT): the user's data and settings folders, or DIR with --root DIR.
# shellcheck shell=bash disable=SC2034
if [ -n "$ROOT" ]; then
    HOME_DIR="$ROOT"
    DATA_HOME="$ROOT/.local/share"
    CONFIG_HOME="$ROOT/.config"
else
    HOME_DIR="$HOME"
    DATA_HOME="${XDG_DATA_HOME:-$HOME/.local/share}"
    CONFIG_HOME="${XDG_CONFIG_HOME:-$HOME/.config}"
fi
DATA="$DATA_HOME/domino-referee"
VENV="$DATA/venv"
CONFIG="$CONFIG_HOME/domino-referee/config.toml"
LAUNCHER="$HOME_DIR/.local/bin/domino-referee"
UNIT="$CONFIG_HOME/systemd/user/domino-referee.service"
