# shellcheck shell=bash
# What the install and uninstall scripts share: their options, the dry run, the staging root, and
# steps that may run any number of times (a re-run changes nothing the user made).
#
# Sourced by deploy/raspberry-pi/*.sh and deploy/laptop/*.sh, which set PROG first. The option
# variables are read by those scripts, not here:
# shellcheck disable=SC2034

DRY_RUN=0      # --dry-run: print every action instead of doing it
ROOT=""        # --root DIR: stage into DIR; no apt, no users, no chown, no systemctl
NO_START=0     # --no-start: install the service but do not start it now
NO_PIP=0       # --no-pip: make the venv but do not install the package into it
PURGE=0        # --purge (uninstall): remove the settings and the records too
SYSTEMD_USER=0 # --systemd-user (laptop): a systemd user service as well
REPO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EXAMPLE="$REPO_DIR/deploy/config.example.toml"

say() { printf '%s\n' "$*"; }
die() {
    printf '%s: %s\n' "$PROG" "$*" >&2
    exit 2
}

# parse_options USAGE ALLOWED... : the common options; any other word is an error naming it.
parse_options() {
    local usage=$1
    shift
    local allowed=" $1 "
    shift
    while [ $# -gt 0 ]; do
        case "$1" in
            -h | --help)
                say "$usage"
                exit 0
                ;;
            --dry-run | --no-start | --no-pip | --purge | --systemd-user | --root)
                [[ "$allowed" == *" $1 "* ]] || die "unknown option $1 (see --help)"
                case "$1" in
                    --dry-run) DRY_RUN=1 ;;
                    --no-start) NO_START=1 ;;
                    --no-pip) NO_PIP=1 ;;
                    --purge) PURGE=1 ;;
                    --systemd-user) SYSTEMD_USER=1 ;;
                    --root)
                        if [ $# -lt 2 ] || [ -z "$2" ]; then
                            die "--root needs a folder"
                        fi
                        ROOT="$(realpath -m -- "$2")"
                        [ "$ROOT" != "/" ] || die "--root / is the real system: leave --root out instead"
                        shift
                        ;;
                esac
                ;;
            *) die "unknown option $1 (see --help)" ;;
        esac
        shift
    done
}

# quote WORD...: the words as a shell command line (single quotes where a word needs them).
quote() {
    local out="" word
    for word in "$@"; do
        if [[ "$word" =~ ^[A-Za-z0-9_./=:@%+,-]+$ ]]; then
            out+=" $word"
        else
            out+=" '${word//\'/\'\\\'\'}'"
        fi
    done
    printf '%s' "${out# }"
}

# run CMD...: do it, echoed as "+ CMD"; in a dry run only print "would run: CMD".
run() {
    if [ "$DRY_RUN" -eq 1 ]; then
        say "would run: $(quote "$@")"
    else
        say "+ $(quote "$@")"
        "$@"
    fi
}

# system CMD...: run a command that changes the machine itself (apt, users, ownership,
# systemctl); with --root it is only reported, as staging never touches the machine.
system() {
    if [ -n "$ROOT" ]; then
        say "skipped (--root): $(quote "$@")"
    else
        run "$@"
    fi
}

# make_dir MODE DIR: create the folder (and its parents) unless it is there.
make_dir() {
    if [ -d "$2" ]; then
        say "exists: $2"
    else
        run install -d -m "$1" "$2"
    fi
}

# put_file MODE SOURCE TARGET: copy a file of ours into place when it differs (it is replaced:
# these files are the project's, not the user's).
put_file() {
    if [ -f "$3" ] && cmp -s "$2" "$3"; then
        say "unchanged: $3"
    else
        run install -D -m "$1" "$2" "$3"
    fi
}

# write_new MODE TARGET WHAT < TEXT: write TARGET from standard input only when it does not
# exist, so that a re-run keeps the user's edits. WHAT describes it in the messages.
write_new() {
    local mode=$1 target=$2 what=$3
    if [ -e "$target" ]; then
        say "kept: $target (already there; your edits stay)"
        cat >/dev/null
        return 0
    fi
    if [ "$DRY_RUN" -eq 1 ]; then
        say "would write: $target ($what; mode $mode)"
        cat >/dev/null
        return 0
    fi
    say "+ write $target ($what; mode $mode)"
    install -d "$(dirname "$target")"
    (
        umask 077
        cat >"$target.new"
    )
    chmod "$mode" "$target.new"
    mv -n -- "$target.new" "$target"
}

# remove PATH...: remove files or folders that are there; say which were not.
remove() {
    local path
    for path in "$@"; do
        if [ -z "$path" ] || [ "$path" = "/" ]; then
            die "refusing to remove '$path'"
        fi
        if [ -e "$path" ] || [ -L "$path" ]; then
            run rm -rf -- "$path"
        else
            say "not there: $path"
        fi
    done
}

# new_token: 32 random hex digits for the dashboard.
new_token() {
    od -An -N16 -tx1 /dev/urandom | tr -d ' \n'
}

# settings_text SOURCE HOST PLAYER DB LOG: the example settings with this install's values and a
# new dashboard token (printed on standard output).
settings_text() {
    local source=$1 host=$2 player=$3 db=$4 log=$5 token
    token="$(new_token)"
    [[ "$source" =~ ^[0-9]+$ ]] || source="\"$source\""
    sed -e "s|^source = .*|source = $source|" \
        -e "s|^host = .*|host = \"$host\"|" \
        -e "s|^token = .*|token = \"$token\"|" \
        -e "s|^player = .*|player = \"$player\"|" \
        -e "s|^db = .*|db = \"$db\"|" \
        -e "s|^log = .*|log = \"$log\"|" \
        -e "s|^names = |# names = |" \
        "$EXAMPLE"
}

# check_python PYTHON: it runs and is 3.11 or newer.
check_python() {
    "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null ||
        die "need Python 3.11 or newer as '$1' (set PYTHON=/path/to/python3.11)"
}

# missing_debs PACKAGE...: those not installed (one per line).
missing_debs() {
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || say "$package"
    done
}

# make_venv PYTHON VENV [VENV OPTIONS...]: a virtual environment, unless there is one.
make_venv() {
    local python=$1 venv=$2
    shift 2
    if [ -x "$venv/bin/python" ]; then
        say "exists: $venv (virtual environment)"
    else
        run "$python" -m venv "$@" "$venv"
    fi
}

# install_package VENV REQUIREMENT...: the referee from this checkout into the venv (upgraded on
# a re-run, which is how an update is installed).
install_package() {
    local venv=$1
    shift
    if [ "$NO_PIP" -eq 1 ]; then
        say "skipped (--no-pip): $(quote "$venv/bin/python" -m pip install --upgrade "$REPO_DIR" "$@")"
        return 0
    fi
    run "$venv/bin/python" -m pip install --quiet --upgrade "$REPO_DIR" "$@"
}
