#!/usr/bin/env bash
# Removes what deploy/laptop/install.sh added: the program, the launcher and the systemd user
# service. The settings (~/.config/domino-referee) and the records (~/.local/share/domino-referee)
# stay unless --purge. Debian packages stay (other programs may use them).
#
#   deploy/laptop/uninstall.sh [--dry-run] [--purge] [--root DIR]
set -euo pipefail
PROG="laptop/uninstall.sh"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib.sh
. "$here/../lib.sh"

USAGE="usage: $0 [--dry-run] [--purge] [--root DIR]

  --dry-run   print every action instead of doing it
  --purge     also remove the settings, the records and the calibration
  --root DIR  undo an install made with --root DIR (no systemctl)"
parse_options "$USAGE" "--dry-run --purge --root" "$@"

# shellcheck source=SCRIPTDIR/paths.sh
. "$here/paths.sh"
[ "$DRY_RUN" -eq 1 ] && say "dry run: nothing is changed"

say "== the systemd user service"
if [ -e "$UNIT" ]; then
    system systemctl --user disable --now domino-referee.service
    remove "$UNIT"
    system systemctl --user daemon-reload
else
    say "not there: $UNIT"
fi

say "== the program"
remove "$DATA/venv" "$HOME_DIR/.local/bin/domino-referee"

if [ "$PURGE" -eq 1 ]; then
    say "== settings and records (--purge)"
    remove "$CONFIG_HOME/domino-referee" "$DATA"
else
    say "kept: $CONFIG_HOME/domino-referee (the settings and the dashboard token)"
    say "kept: $DATA (the records, the event log and the calibration)"
    say "--purge removes these too"
fi
say "kept: the Debian packages (espeak-ng, ...): other programs may use them"
