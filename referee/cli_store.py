"""``referee stats``, ``referee export`` and ``referee import``: the records database's commands,
hooked into ``referee.cli.build_parser`` by ``add_parsers``."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.store import Stats, Store


def _user_error(message: str) -> Exception:
    from referee.cli import UserError
    return UserError(message)


def default_db() -> Path:
    """The records database in the user's data folder ($XDG_DATA_HOME or ~/.local/share)."""
    from referee.settings import data_folder
    return data_folder() / "records.sqlite"


def open_store(db: str | Path | None, *, create: bool) -> Store:
    """The database ``--db`` names (default: :func:`default_db`, its folder created when writing).
    ``create=False``: reading only, ``NoRecords`` when there is none; never creates a file."""
    from referee.store import Store
    path = Path(db) if db is not None else default_db()
    if create and db is None:
        path.parent.mkdir(parents=True, exist_ok=True)
    return Store(path, create=create)


def _day(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date like 2024-05-01, got {text!r}") from None


# -- stats --------------------------------------------------------------------------------------
def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.0f}%"


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """Columns: the first two left-aligned, the rest right-aligned."""
    cells = [[str(c) for c in header], *[[str(c) for c in r] for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return ["  " + "  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                             for i, (c, w) in enumerate(zip(r, widths, strict=True))) for r in cells]


def _count(n: int, word: str) -> str:
    return f"{n} {word if n == 1 else word + ('es' if word.endswith('ch') else 's')}"


def describe(stats: Stats, where: Path) -> str:
    """The readable report of ``referee stats``."""
    chosen = []
    if stats.player is not None:
        chosen.append(f"with {stats.player}")
    if stats.since is not None:
        chosen.append(f"since {stats.since.isoformat()}")
    lines = [f"{where}: {_count(stats.matches, 'match')}{' ' + ' '.join(chosen) if chosen else ''} "
             f"({stats.finished} finished), {_count(stats.hands, 'hand')}"]
    if not stats.matches:
        return "\n".join(lines)
    lines.append("")
    lines.append("Who wins most often")
    rows = [(f"{i}.", p.name, p.matches, p.wins, _percent(p.win_rate), p.hands, p.hand_wins, p.points,
             "-" if p.points_per_hand is None else f"{p.points_per_hand:.1f}", p.fives, p.scoring_plays)
            for i, p in enumerate(stats.players, 1)]
    if rows:
        lines += _table(("", "player", "matches", "won", "win rate", "hands", "won", "points", "per hand", "fives",
                         "scoring plays"), rows)
    else:
        lines.append("  (no seat had a name)")
    lines.append("")
    lines.append("Variants played most")
    lines += _table(("", "variant", "matches", "hands"),
                    [(f"{i}.", v.variant.value, v.matches, v.hands) for i, v in enumerate(stats.variants, 1)])
    lines.append("")
    average = stats.average_points_per_hand
    lines.append("Average points per hand: " + ("- (no hand's points are known)" if average is None else
                                                 f"{average:.1f} (over {_count(stats.scored_hands, 'hand')} whose "
                                                 "points are known)"))
    lines.append(f"Blocked hands: {stats.blocked} of {stats.hands} ({_percent(stats.blocked_share)})")
    return "\n".join(lines)


def cmd_stats(args: argparse.Namespace) -> int:
    from referee.store import NoRecords, Stats, StoreError
    try:
        with open_store(args.db, create=False) as store:
            stats = store.stats(args.player, args.since)
            where = store.path
    except NoRecords as error:
        if args.json:
            print(json.dumps(Stats(player=args.player, since=args.since).to_json(), ensure_ascii=False))
        else:
            print(f"{error}; matches are recorded as they are refereed, or added with referee import")
        return 0
    except StoreError as error:
        raise _user_error(str(error)) from None
    print(json.dumps(stats.to_json(), ensure_ascii=False) if args.json else describe(stats, where))
    return 0


# -- export -------------------------------------------------------------------------------------
def cmd_export(args: argparse.Namespace) -> int:
    from referee.store import StoreError
    if args.match and (args.player is not None or args.since is not None):
        raise _user_error("--match chooses matches by number: give it without --player and --since")
    out = None if args.out in (None, "-") else Path(args.out)
    if out is not None and out.exists():
        raise _user_error(f"{out} already exists: export never overwrites a file; choose another --out")
    try:
        with open_store(args.db, create=False) as store:
            if args.match and len(args.match) == 1:
                data = store.match_record(args.match[0])
            else:
                data = store.export(args.match or None, player=args.player, since=args.since)
    except StoreError as error:
        raise _user_error(str(error)) from None
    text = json.dumps(data, ensure_ascii=False) + "\n"
    if out is None:
        sys.stdout.write(text)
        return 0
    try:
        with out.open("x", encoding="utf-8") as file:
            file.write(text)
    except FileExistsError:
        raise _user_error(f"{out} already exists: export never overwrites a file; choose another --out") from None
    except OSError as error:
        raise _user_error(f"cannot write {out}: {error.strerror or error}") from None
    count = 1 if "matches" not in data else len(data["matches"])
    print(f"exported {_count(count, 'match')} to {out}", file=sys.stderr)
    return 0


# -- import -------------------------------------------------------------------------------------
def _read_json(name: str) -> Any:
    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise _user_error(f"cannot read {name}: {getattr(error, 'strerror', None) or error}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise _user_error(f"{name}: $: not JSON: {error.msg} at line {error.lineno} column {error.colno}") from None
    except (RecursionError, ValueError) as error:
        raise _user_error(f"{name}: $: not a readable JSON document ({type(error).__name__})") from None


def cmd_import(args: argparse.Namespace) -> int:
    from referee.store import StoreError
    documents = [("<stdin>" if name == "-" else name, _read_json(name)) for name in args.files]
    try:
        with open_store(args.db, create=True) as store:
            report = store.import_documents(documents)
            where = store.path
    except StoreError as error:
        raise _user_error(str(error)) from None
    old = len(report.matches) - len(report.new)
    print(f"imported {_count(len(report.new), 'new match')} and {_count(report.hands, 'hand')} into {where}"
          + (f"; {old} {'match was' if old == 1 else 'matches were'} already recorded" if old else ""))
    return 0


def add_parsers(sub: Any) -> None:
    db_help = f"the records database (default {default_db()})"
    stats = sub.add_parser("stats", help="who wins most often, what is played most, points, fives, blocked hands",
                           description="Statistics of the matches recorded. Exit 0 also when there are no records "
                                       "yet (the database does not exist); nothing is created.")
    stats.add_argument("--player", metavar="NAME", help="only the matches NAME played, and NAME's figures")
    stats.add_argument("--since", metavar="YYYY-MM-DD", type=_day, help="only matches started on or after that day")
    stats.add_argument("--json", action="store_true", help="print one JSON document")
    stats.add_argument("--db", metavar="PATH", help=db_help)
    stats.set_defaults(func=cmd_stats)
    export = sub.add_parser("export", help="write recorded matches as JSON (referee check reads them)",
                            description="Write recorded matches as one JSON document: with one --match, that "
                                        "match's game record (referee check reads it as it is); otherwise an "
                                        "export of every match chosen. Never overwrites a file.")
    export.add_argument("--match", metavar="ID", type=int, action="append", help="a match's number (repeatable)")
    export.add_argument("--player", metavar="NAME", help="the matches NAME played")
    export.add_argument("--since", metavar="YYYY-MM-DD", type=_day, help="matches started on or after that day")
    export.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    export.add_argument("--db", metavar="PATH", help=db_help)
    export.set_defaults(func=cmd_export)
    imp = sub.add_parser("import", help="add exported matches or game records to the records",
                         description="Add matches from referee export files or game records (referee simulate "
                                     "--records). Every file is checked first: a malformed one imports nothing. "
                                     "A match already recorded is not duplicated.")
    imp.add_argument("files", metavar="FILE", nargs="+", help="JSON file, or - for standard input")
    imp.add_argument("--db", metavar="PATH", help=db_help)
    imp.set_defaults(func=cmd_import)
