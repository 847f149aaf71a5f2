#!/usr/bin/env bash
# Removes what deploy/raspberry-pi/install.sh added: the service and the program. The settings
# (/etc/domino-referee) and the records (/var/lib/domino-referee) stay unless --purge, which also
# removes the user 'domino' if the install made it. Debian packages stay (other programs may use
# them).
#
#   sudo deploy/raspberry-pi/uninstall.sh [--dry-run] [--purge] [--root DIR]
set -euo pipefail
PROG="raspberry-pi/uninstall.sh"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib.sh
. "$here/../lib.sh"

USAGE="usage: sudo $0 [--dry-run] [--purge] [--root DIR]

  --dry-run   print every action instead of doing it
  --purge     also remove the settings, the records and calibration, and the user domino
  --root DIR  undo a staged install under DIR (no systemctl, no userdel)"
parse_options "$USAGE" "--dry-run --purge --root" "$@"

# shellcheck source=SCRIPTDIR/paths.sh
. "$here/paths.sh"

if [ "$DRY_RUN" -eq 0 ] && [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
    die "run as root: sudo $0 (or --dry-run to see what it would do)"
fi
[ "$DRY_RUN" -eq 1 ] && say "dry run: nothing is changed"

say "== the service"
if [ -e "$UNIT" ]; then
    system systemctl disable --now domino-referee.service
    remove "$UNIT"
    system systemctl daemon-reload
else
    say "not there: $UNIT"
fi

say "== the program"
remove "$OPT"

user_made_here=0
[ -e "$CREATED_USER_MARK" ] && user_made_here=1
if [ "$PURGE" -eq 1 ]; then
    say "== settings and records (--purge)"
    remove "$ETC" "$STATE"
    if [ "$user_made_here" -eq 1 ]; then
        system userdel "$USER_NAME"
    else
        say "kept: user $USER_NAME (the install did not make it)"
    fi
else
    say "kept: $ETC (the settings and the dashboard token)"
    say "kept: $STATE (the records, the event log and the calibration)"
    say "kept: user $USER_NAME (owns the records)"
    say "--purge removes these too"
fi
say "kept: the Debian packages (python3-picamera2, espeak-ng, ...): other programs may use them"
