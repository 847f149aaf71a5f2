"""The ``referee`` command. Every user error is one line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from referee.rules import RecordError, Rules, RulesError, Variant
from referee.rules.bots import BOTS
from referee.rules.variants import BlockedScoring


class UserError(Exception):
    """A problem with what the user asked for: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


# -- check -------------------------------------------------------------------------------------
def cmd_check(args: argparse.Namespace) -> int:
    from referee.rules.check import check_record
    from referee.rules.describe import describe
    from referee.rules.record import load_record

    source = "<stdin>" if args.record == "-" else args.record
    try:
        text = sys.stdin.read() if args.record == "-" else Path(args.record).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"cannot read record {source}: {getattr(error, 'strerror', None) or error}") from None
    try:
        record = load_record(text)
    except RecordError as error:
        raise UserError(f"{source}: {error}") from None
    report = check_record(record)
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        print(describe(report))
    return 1 if args.strict and not report.all_legal else 0


# -- simulate ----------------------------------------------------------------------------------
def rules_from_args(args: argparse.Namespace) -> Rules:
    options: dict[str, Any] = {"variant": Variant(args.variant)}
    if args.players is not None:
        options["players"] = args.players
    elif args.variant == "partners":
        options["players"] = 4
    for name in ("hand_size", "target", "max_pips", "keep_in_boneyard", "draw_count", "first_player"):
        value = getattr(args, name)
        if value is not None:
            options[name] = value
    if args.blocked_scoring is not None:
        options["blocked_scoring"] = BlockedScoring(args.blocked_scoring)
    if args.draw_when_able:
        options["draw_when_able"] = True
    if args.spinner is not None:
        options["spinner"] = args.spinner
    try:
        rules = Rules(**options)
    except RulesError as error:
        raise UserError(str(error)) from None
    left = rules.set_size - rules.players * rules.hand_size
    if rules.keep_in_boneyard > left:
        raise UserError(f"--keep-in-boneyard {rules.keep_in_boneyard} is more than the {left} tiles left after "
                        "the deal (nobody could ever draw)")
    return rules


class Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, total: int, enabled: bool, unit: str = "matches") -> None:
        self.total, self.enabled, self.unit = total, enabled and sys.stderr.isatty(), unit
        self.start = self.last = time.monotonic()

    def update(self, done: int) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.1 and done < self.total):
            return
        self.last = now
        width = 30
        filled = width * done // max(self.total, 1)
        rate = done / max(now - self.start, 1e-9)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} {self.unit} "
                         f"({rate:.0f}/s)")
        if done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def cmd_simulate(args: argparse.Namespace) -> int:
    from referee.rules.simulate import match_record, simulate

    rules = rules_from_args(args)
    if args.games < 1:
        raise UserError(f"--games must be at least 1, got {args.games}")
    names = args.bot.split(",")
    if len(names) == 1:
        names = names * rules.players
    if len(names) != rules.players or any(n not in BOTS for n in names):
        raise UserError(f"--bot takes {' or '.join(BOTS)}, or one per player separated by commas "
                        f"({rules.players} players), got {args.bot!r}")
    bots = [BOTS[n] for n in names]
    on_match: Callable[[int, Any], None] | None = None
    progress = Progress(args.games, not args.quiet)
    if args.records is not None:
        directory = Path(args.records)
        paths = [directory / f"match-{i + 1:05d}.json" for i in range(args.games)]
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UserError(f"cannot create --records directory {directory}: {error.strerror}") from None
        taken = [p for p in paths if p.exists()]
        if taken:
            raise UserError(f"{taken[0]} already exists: --records will not overwrite records; "
                            "choose an empty directory")

        def write(i: int, match: Any) -> None:
            with open(paths[i], "x", encoding="utf-8") as out:
                json.dump(match_record(match), out)
            progress.update(i + 1)
        on_match = write
    else:
        def tick(i: int, match: Any) -> None:
            progress.update(i + 1)
        on_match = tick
    start = time.perf_counter()
    try:
        summary = simulate(rules, bots, names, args.games, args.seed, on_match)
    except OSError as error:
        raise UserError(f"cannot write records to {args.records}: {error.strerror}") from None
    elapsed = time.perf_counter() - start
    data = summary.to_json()
    if args.json:
        data["seconds"] = round(elapsed, 3)
        print(json.dumps(data))
        return 0
    print(f"{data['matches']} matches of {rules.variant.value}, {rules.players} players, "
          f"to {rules.target} points; bots: {', '.join(names)}; seed {args.seed}; {elapsed:.1f} s")
    print(f"hands played: {data['hands']} ({data['hands'] / max(data['matches'], 1):.1f} per match)")
    pairs = rules.partners
    for seat, rate in enumerate(data["win_rate"]):
        if pairs and seat >= 2:
            break
        who = f"players {seat} and {seat + 2}" if pairs else f"player {seat} ({names[seat]})"
        print(f"  {who:24s} won {rate * 100:5.1f}% of matches")
    print(f"average points per hand: {data['average_points_per_hand']} "
          f"(end-of-hand {data['average_award_per_hand']}, fives {data['average_fives_per_hand']})")
    print(f"blocked hands: {data['blocked_share'] * 100:.1f}%; hands with no winner: "
          f"{data['tied_share'] * 100:.1f}%")
    if data["unfinished"]:
        print(f"matches stopped unfinished after 1000 hands: {data['unfinished']}")
    if args.records is not None:
        print(f"records written to {args.records}")
    return 0


# -- render ------------------------------------------------------------------------------------
def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT like 1920x1080, got {text!r}") from None
    if not (320 <= w <= 8000 and 240 <= h <= 6000):
        raise argparse.ArgumentTypeError(f"size {w}x{h} is outside 320x240 .. 8000x6000")
    return w, h


def cmd_render(args: argparse.Namespace) -> int:
    from referee.render.generate import Options
    from referee.render.output import OutputExists, write_sequences, write_stills
    from referee.render.styles import TableKind, TileStyle

    if args.count < 1:
        raise UserError(f"--count must be at least 1, got {args.count}")
    if args.jpeg_quality is not None and not 30 <= args.jpeg_quality <= 100:
        raise UserError(f"--jpeg-quality must be between 30 and 100, got {args.jpeg_quality}")
    if args.hold is not None and not 1 <= args.hold <= 60:
        raise UserError(f"--hold must be between 1 and 60 frames, got {args.hold}")
    if not 0 <= args.tilt <= 20:
        raise UserError(f"--tilt must be between 0 and 20 degrees, got {args.tilt}")
    players = args.players if args.players is not None else (4 if args.variant == "partners" else 2)
    if args.variant == "partners" and players != 4:
        raise UserError(f"the partners game is for 4 players, got --players {players}")
    if not 2 <= players <= 4:
        raise UserError(f"--players must be 2 to 4, got {players}")
    options = Options(style=None if args.style is None else TileStyle(args.style),
                      table=None if args.table is None else TableKind(args.table),
                      size=args.size, tilt_max=args.tilt, variant=args.variant, players=players,
                      max_pips=args.max_pips, jpeg_quality=args.jpeg_quality)
    progress = Progress(args.count, not args.quiet, "sequences" if args.kind == "sequence" else "frames")
    out = Path(args.out)
    try:
        if args.kind == "sequence":
            written = write_sequences(args.count, args.seed, out, options, args.illegal, progress.update, args.hold)
        else:
            written = write_stills(args.kind, args.count, args.seed, out, options, progress.update)
    except OutputExists as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"cannot write to {out}: {error.strerror or error}") from None
    print(f"wrote {len(written)} {'sequences' if args.kind == 'sequence' else 'frames'} to {out}")
    return 0


# -- the parser --------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="referee", description="A referee for dominoes played on a real table.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    check = sub.add_parser("check", help="judge a game record move by move",
                           description="Judge a game record (JSON) move by move.")
    check.add_argument("record", metavar="RECORD", help="record file, or - for standard input")
    check.add_argument("--json", action="store_true", help="print one JSON document")
    check.add_argument("--strict", action="store_true",
                       help="exit 1 if any action is illegal or a reveal contradicts the game")
    check.set_defaults(func=cmd_check)

    sim = sub.add_parser("simulate", help="play many matches with bots",
                         description="Play complete matches with bots and report what happened.")
    sim.add_argument("--variant", choices=[v.value for v in Variant], default="draw")
    sim.add_argument("--players", type=int)
    sim.add_argument("--games", type=int, default=1000, help="matches to play (default 1000)")
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--bot", default="random", help="random or greedy, or one per seat: greedy,random")
    sim.add_argument("--records", metavar="DIR", help="write every match as a record here")
    sim.add_argument("--json", action="store_true", help="print the summary as JSON")
    sim.add_argument("--quiet", action="store_true", help="no progress bar")
    house = sim.add_argument_group("house rules")
    house.add_argument("--hand-size", type=int)
    house.add_argument("--target", type=int)
    house.add_argument("--max-pips", type=int, choices=[6, 9, 12], help="set: double-6, -9 or -12")
    house.add_argument("--draw-when-able", action="store_true")
    house.add_argument("--keep-in-boneyard", type=int)
    house.add_argument("--blocked-scoring", choices=[b.value for b in BlockedScoring])
    house.add_argument("--draw-count", type=int)
    house.add_argument("--first-player", type=int, help="seat that opens the first hand")
    house.add_argument("--spinner", action=argparse.BooleanOptionalAction, default=None)
    sim.set_defaults(func=cmd_simulate)

    ren = sub.add_parser("render", help="render overhead frames of real games with ground truth",
                         description="Render realistic overhead frames of games the rules engine plays, "
                                     "each with a JSON truth file of the same stem.")
    ren.add_argument("--kind", required=True, choices=["scattered", "line", "reveal", "sequence"])
    ren.add_argument("--count", type=int, default=1)
    ren.add_argument("--seed", type=int, default=1)
    ren.add_argument("--out", required=True, metavar="DIR")
    ren.add_argument("--style", choices=["ivory", "black", "coloured"])
    ren.add_argument("--table", choices=["wood", "felt", "laminate", "cloth"])
    ren.add_argument("--size", type=_size, help="WIDTHxHEIGHT (default: 1280x720, 1920x1080 or 4032x3024)")
    ren.add_argument("--tilt", type=float, default=20.0, help="largest camera tilt in degrees (0-20)")
    ren.add_argument("--variant", choices=[v.value for v in Variant], default="draw")
    ren.add_argument("--players", type=int, help="2 to 4 (default 2; 4 in partners)")
    ren.add_argument("--max-pips", type=int, choices=[6, 9], default=6)
    ren.add_argument("--jpeg-quality", type=int, help="the camera's JPEG quality (default: drawn, 72-95)")
    ren.add_argument("--illegal", action="store_true", help="sequence: one illegal tile put down and taken back")
    ren.add_argument("--hold", type=int, help="sequence: frames of every table state (default 2, 1 after a draw)")
    ren.add_argument("--quiet", action="store_true", help="no progress bar")
    ren.set_defaults(func=cmd_render)
    from referee import cli_vision
    cli_vision.add_parsers(sub)
    from referee import cli_calibrate
    cli_calibrate.add_parser(sub)
    from referee import cli_layout
    cli_layout.add_parser(sub)
    from referee import cli_session
    cli_session.add_parsers(sub)
    from referee import cli_hands
    cli_hands.add_parser(sub)
    from referee import cli_announce
    cli_announce.add_parser(sub)
    from referee import cli_store
    cli_store.add_parsers(sub)
    from referee import cli_doctor
    cli_doctor.add_parser(sub)
    return parser


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        if words[:1] == ["watch"]:  # watch --settings FILE: the file's options first, those typed win
            from referee.cli_table import expand
            words = expand(words)
    except UserError as error:
        print(f"referee watch: {error}", file=sys.stderr)
        return 2
    args = parser.parse_args(words)
    if args.command in ("watch", "replay", "demo"):
        # A service is stopped with SIGTERM: stop as on Ctrl-C (the speaker, the dashboard and the
        # records closed in order) rather than die mid-write.
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        if args.command == "watch":
            from referee.cli_table import apply_settings
            apply_settings(args, list(sys.argv[1:] if argv is None else argv))
        code: int = args.func(args)
    except UserError as error:
        print(f"referee {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"referee {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code


if __name__ == "__main__":
    from referee.cli import main as _main  # as referee.cli: one UserError for the command modules too
    raise SystemExit(_main())
