"""``referee replay``, ``referee watch`` and ``referee demo``: the live referee's commands, hooked
into ``referee.cli.build_parser`` by ``add_parsers``."""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.cli_table import People
    from referee.rules import Rules
    from referee.session.eventlog import EventLog
    from referee.session.events import Event
    from referee.session.loop import Input, Session
    from referee.session.parallel import DetectPool
    from referee.vision.types import Detection
    from referee.web.dashboard import Dashboard
    from referee.web.stats import StatsSource

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "sample_images" / "sequences" / "sequence-11-000"
#: Frames per second a recorded source is fed at while the dashboard shows it (--pace).
DEFAULT_PACE = 3.0


def _user_error(message: str) -> Exception:
    from referee.cli import UserError
    return UserError(message)


def default_log() -> Path:
    """The event log in the user's data folder ($XDG_DATA_HOME or ~/.local/share)."""
    from referee.settings import data_folder
    return data_folder() / "events.sqlite"


def _printer(as_json: bool, names: list[str] | None) -> Callable[[Event, str | None], None]:
    def show(event: Event, text: str | None) -> None:
        if as_json:
            print(json.dumps(event.to_json(), ensure_ascii=False), flush=True)
            return
        data = event.to_json()
        details = " ".join(f"{k}={v}" for k, v in data.items() if k not in ("frame", "event"))
        print(f"frame {event.frame:>5}  {event.kind.value:<10} {details}", flush=True)
        if text:
            print(f"             » {text}", flush=True)
    return show


def _inputs(path: str | None) -> dict[int, list[Input]]:
    from referee.session.loop import Input
    out: dict[int, list[Input]] = {}
    if path is None:
        return out
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise _user_error(f"cannot read inputs {path}: {getattr(error, 'strerror', None) or error}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = Input.from_json(json.loads(line))
        except (json.JSONDecodeError, ValueError, AttributeError) as error:
            raise _user_error(f"{path} line {number}: {error}") from None
        out.setdefault(item.frame, []).append(item)
    return out


_EDGE_ANGLES = {"right": 0.0, "bottom": 90.0, "left": 180.0, "top": 270.0}


def _json_file(path: str, what: str) -> Any:
    """A JSON file's contents; a missing or unreadable file or bad JSON is a user error naming it."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise _user_error(f"cannot read {what} {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise _user_error(f"{path}: not valid JSON ({error})") from None


def _seats(text: str | None) -> tuple[float, ...] | None:
    """``--seats bottom,top`` or degrees (0 right, 90 down) for each seat in turn."""
    if text is None:
        return None
    out = []
    for word in text.split(","):
        word = word.strip().lower()
        try:
            out.append(_EDGE_ANGLES[word] if word in _EDGE_ANGLES else float(word) % 360.0)
        except ValueError:
            raise _user_error(f"--seats: {word!r} is not an edge (bottom, left, top, right) or degrees") from None
    return tuple(out)


def _detector(args: argparse.Namespace, max_pips: int) -> Callable[[Any], Detection]:
    """The detector with the vision settings given, reading halves as numbers of the set in
    play (up to ``max_pips``)."""
    from referee.cli_vision import _detector as make
    from referee.cli_vision import _settings
    from referee.session.faces import session_vision
    config, profile = _settings(args)
    return make(session_vision(dataclasses.replace(config, max_pips=max_pips)), profile)


def _session(args: argparse.Namespace, live: bool, people: People) -> Session:
    from referee.cli import rules_from_args
    from referee.session.eventlog import EventLog, EventLogError
    from referee.session.loop import Session
    from referee.session.phrases import Phrases
    from referee.session.referee import RefereeConfig
    from referee.session.stabilise import StabiliserConfig

    rules = rules_from_args(args)
    try:
        phrases = Phrases.load(args.lang)
        seats = _seats(args.seats)
        if args.referee_config:  # the table's own tolerances
            tolerances = _json_file(args.referee_config, "referee config")
            referee_config = RefereeConfig.from_json(tolerances, args.referee_config, opener=args.opener, seats=seats)
        else:
            referee_config = RefereeConfig(opener=args.opener, seats=seats)
        stabiliser = StabiliserConfig(stable_frames=args.stable_frames)
    except ValueError as error:
        raise _user_error(str(error)) from None
    if args.opener >= rules.players:
        raise _user_error(f"--opener must be a seat from 0 to {rules.players - 1}, got {args.opener}")
    names = [n.strip() for n in args.names.split(",")] if args.names else None
    log = None
    if args.log or live:
        path = Path(args.log) if args.log else default_log()
        if not args.log:
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            log = EventLog(path)
        except EventLogError as error:
            raise _user_error(str(error)) from None
    elif args.resume:
        raise _user_error("--resume needs the event log to resume from (--log PATH)")
    resume = args.resume or (log is not None and getattr(args, "resume_unfinished", False)
                             and _unfinished(log, rules))
    detect = (lambda image: image) if getattr(args, "from_json", False) else _detector(args, rules.max_pips)
    settings = {"source": args.source_spec, "language": args.lang, "opener": args.opener, "names": names}
    try:
        session = Session(rules, detect, log=log, settings=settings, resume=resume,
                          referee_config=referee_config, stabiliser=stabiliser, phrases=phrases, names=names,
                          announce=people.announce(_printer(args.json, names)))
    except EventLogError as error:
        raise _user_error(str(error)) from None
    except ValueError as error:
        raise _user_error(f"cannot resume from {args.log}: {error}") from None
    people.attach(session, rules=rules, names=names, source=args.source_spec, log=log)
    return session


def _unfinished(log: EventLog, rules: Rules) -> bool:
    """Whether the log's latest session is a match not over yet, played under ``rules`` (what
    ``--resume-unfinished`` goes on with after a restart)."""
    from referee.session.events import Kind
    from referee.session.loop import settings_rules
    latest = log.latest_session()
    if latest is None:
        return False
    try:
        same = settings_rules(latest[1]) == rules
    except (ValueError, TypeError):
        return False
    return same and not any(e.kind is Kind.MATCH_END for _, e, _ in log.events(latest[0]))


def json_frames(folder: Path) -> Iterator[tuple[int, Detection]]:
    """The detection saved beside each frame (``--from-json``: the renderer's truth, or saved
    ``referee detect --json`` output)."""
    from referee.session.sources import FolderSource, SourceError
    from referee.vision.types import Detection
    try:
        source = FolderSource(folder)
    except SourceError as error:
        raise _user_error(str(error)) from None
    for index, path in zip(source.indices, source.files, strict=True):
        truth = path.with_suffix(".json")
        try:
            data = json.loads(truth.read_text(encoding="utf-8"))
            yield index, Detection.from_json(data)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise _user_error(f"detection {truth}: {error}") from None


def _frames(args: argparse.Namespace) -> Iterator[tuple[int, Any]]:
    from referee.cli_table import frame_size
    from referee.session.sources import SourceError, open_source
    if getattr(args, "from_json", False):
        yield from json_frames(Path(args.source_spec))
        return
    from referee.session.live import LatestFrames
    try:
        source = open_source(args.source_spec, size=frame_size(args),
                             on_status=lambda message: print(f"referee: {message}", file=sys.stderr, flush=True))
        if args.command == "watch":
            print(f"watching {source.description}; keys (then Enter): {_KEY_HELP}", file=sys.stderr, flush=True)
        with source:
            if source.live:  # a camera: always the newest frame, however long detection takes
                with LatestFrames(source) as latest:
                    for frame in latest:
                        yield frame.index, frame.image
            else:
                for frame in source:
                    yield frame.index, frame.image
    except SourceError as error:
        raise _user_error(str(error)) from None


def run(args: argparse.Namespace, live: bool = False, on_end: Callable[[Session], None] | None = None,
        store: StatsSource | None = None) -> Session:
    """Referee the frames ``args`` name. With ``--serve`` the dashboard (statistics from
    ``store``) follows along, and once a recorded source ends it keeps serving (controls still
    reach the referee) until Ctrl-C. ``on_end`` is called when the source has ended."""
    from referee.cli_table import People
    people = People(args, args.command)
    try:
        session = _run(args, live, people, on_end, store)
    except BaseException:
        people.close(wait=0.0)  # Ctrl-C or an error: stop at once, what is still queued is not said
        raise
    # the words still queued are said before the command ends (a replay runs ahead of its voice)
    people.close(wait=15.0 if live else 600.0)
    return session


def _run(args: argparse.Namespace, live: bool, people: People, on_end: Callable[[Session], None] | None,
         store: StatsSource | None) -> Session:
    from referee.session.parallel import WorkerError
    from referee.session.sources import SourceError
    session = _session(args, live, people)
    store = store if store is not None else people.view()
    inputs = _inputs(getattr(args, "inputs", None))
    keys: queue.Queue[str] = queue.Queue()
    if live and sys.stdin is not None and not sys.stdin.closed:
        threading.Thread(target=_read_keys, args=(keys,), daemon=True).start()
    start = session.resumed_from
    from_json = getattr(args, "from_json", False)
    frames = _frames(args)
    try:  # the source opened first: a camera that will not open is one line, before any dashboard
        first = [next(frames)]
    except StopIteration:
        first = []
    except SourceError as error:
        raise _user_error(str(error)) from None
    board, picture = _dashboard(args, session, store) if getattr(args, "serve", False) else (None, None)
    quit_by_key = False
    # resuming: from the frame of the last logged event on
    wanted = ((index, image) for index, image in itertools.chain(first, frames) if index >= start)
    try:
        pool = _pool(args, session, from_json)
        try:
            for index, image, detection in pool.map(wanted, session.prior, session.faces.config.lag):
                session.frame(index, detection=detection)
                for item in inputs.get(index, []):
                    _apply(session, item)
                if board is not None and picture is not None:
                    board.frame(index, detection, picture(index, image))
                    board.pace()
                if _keys(session, keys, index):
                    quit_by_key = True
                    break
        except SourceError as error:
            raise _user_error(str(error)) from None
        except WorkerError as error:
            raise _user_error(str(error)) from None
        finally:
            pool.close()
        session.finish()
        if on_end is not None:
            on_end(session)
        if board is not None and not quit_by_key:
            try:
                board.ended()
                print("referee: the source has ended; the dashboard stays up (controls still work) until Ctrl-C",
                      file=sys.stderr, flush=True)
                board.serve()
            except KeyboardInterrupt:
                pass  # the way to stop serving: a clean exit
    finally:
        if board is not None:
            board.stop()
    return session


def _pool(args: argparse.Namespace, session: Session, from_json: bool) -> DetectPool:
    """The processes that detect the frames: ``--workers``, else one per core up to three from
    a camera (two frames read side by side: a play is announced sooner) and one from a recording."""
    from referee.session.parallel import DetectPool, WorkerError, auto_workers
    workers = 1 if from_json else args.workers or auto_workers(live=getattr(args, "camera", None) is not None)
    try:
        return DetectPool(session.detect, workers)
    except WorkerError as error:
        raise _user_error(str(error)) from None


def _dashboard(args: argparse.Namespace, session: Session, store: StatsSource | None = None
               ) -> tuple[Dashboard, Callable[[int, Any], Callable[[], Any]]]:
    """``--serve``: the dashboard, started (its URL printed on stderr), and how to get each
    frame's picture for it (from ``--from-json``, the image beside the detection)."""
    from referee.session.phrases import Phrases
    from referee.web.dashboard import Dashboard, DashboardConfig
    from referee.web.server import PortInUse
    recorded = getattr(args, "camera", None) is None  # a camera sets its own pace
    pace = args.pace if args.pace is not None else (DEFAULT_PACE if recorded else 0.0)
    try:
        config = DashboardConfig(host=args.host, port=args.port, pace=pace if recorded else 0.0)
    except ValueError as error:
        raise _user_error(str(error)) from None
    names = [n.strip() for n in args.names.split(",")] if args.names else None
    board = Dashboard(session, Phrases.load(args.lang), names, config, store=store, token=getattr(args, "token", None))
    try:
        url = board.start()
    except PortInUse as error:
        raise _user_error(str(error)) from None
    if board.token is None:
        print(f"referee: the dashboard is at {url} (Ctrl-C stops)", file=sys.stderr, flush=True)
    else:
        print(f"referee: the dashboard is at {url} (port {board.server.port}; anyone on the network may watch, "
              "controls need the token in this address; Ctrl-C stops)", file=sys.stderr, flush=True)
    files: dict[int, Path] = {}
    if getattr(args, "from_json", False):
        from referee.session.sources import FolderSource, SourceError
        try:
            source = FolderSource(args.source_spec)
            files = dict(zip(source.indices, source.files, strict=True))
        except SourceError:
            pass  # json_frames says what is wrong with the folder

    def picture(index: int, image: Any) -> Callable[[], Any]:
        if not getattr(args, "from_json", False):
            return lambda: image
        return lambda: _read_picture(files.get(index))
    return board, picture


def _read_picture(path: Path | None) -> Any:
    """A frame's image for the dashboard (None when there is none to read)."""
    from referee.vision.images import ImageError, read_image
    if path is None:
        return None
    try:
        return read_image(path)
    except (ImageError, OSError):
        return None


def _apply(session: Session, item: Input) -> None:
    before = session.referee.passes_waiting
    try:
        events = session.manual(item)
    except ValueError as error:
        print(f"referee: {error}", file=sys.stderr)
        return
    if not events and (note := session.waiting(item.action, before)) is not None:
        print(f"referee: {note}", file=sys.stderr, flush=True)


def _read_keys(keys: queue.Queue[str]) -> None:
    for line in sys.stdin:
        keys.put(line.strip())


_KEYS = {"p": "pass", "u": "undo", "n": "next_hand"}
_KEY_HELP = ("p = pass, u = undo the last event, c OLD NEW = correct a misread tile, t TILE [END] = a tile the "
             "camera cannot read was played (at END: left, right, up, down), r [PLAYER] TILE... = the tiles a "
             "player shows at the hand's end (PLAYER 1, 2, ... where several hold tiles), n = next hand, q = quit")


def _keys(session: Session, keys: queue.Queue[str], frame: int) -> bool:
    """Apply keys typed in ``watch``: p (pass), u (undo), c OLD NEW (correct), t TILE [END]
    (a play the camera cannot read), r [PLAYER] TILE... (a reveal the camera cannot read; the
    player numbered from 1, as announced), n (next hand), q (quit)."""
    from referee.session.loop import Input
    while not keys.empty():
        words = keys.get().split()
        if not words:
            continue
        if words[0] == "q":
            return True
        if words[0] in _KEYS and len(words) == 1:
            _apply(session, Input(frame, _KEYS[words[0]]))
        elif words[0] == "c" and len(words) == 3:
            _apply(session, Input(frame, "correct", words[1], words[2]))
        elif words[0] == "t" and len(words) in (2, 3):
            try:
                item = Input(frame, "play", tile=words[1], end=words[2] if len(words) == 3 else None)
            except ValueError as error:
                print(f"referee: {error}", file=sys.stderr)
                continue
            _apply(session, item)
        elif words[0] == "r" and len(words) >= 2:
            seat = int(words[1]) - 1 if words[1].isdigit() else None
            try:
                item = Input(frame, "reveal", tiles=tuple(words[2:] if seat is not None else words[1:]), seat=seat)
            except ValueError as error:
                print(f"referee: {error}", file=sys.stderr)
                continue
            _apply(session, item)
        else:
            print(f"keys: {_KEY_HELP}", file=sys.stderr)
    return False


def cmd_replay(args: argparse.Namespace) -> int:
    args.source_spec = args.source
    if not Path(args.source).exists():
        raise _user_error(f"{args.source} does not exist (give a folder of frames or a video file)")
    run(args)
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    if (args.camera is None) == (args.source is None):
        raise _user_error("give one of --camera 0|1|...|pi or --source PATH")
    args.source_spec = args.camera if args.camera is not None else args.source
    run(args, live=True)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    sequence = DEMO / "sequence.json"
    try:
        data = json.loads(sequence.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise _user_error(f"the sample hand {sequence} cannot be read: {error}") from None
    hand = data["hands"][0]
    args.source = args.source_spec = str(DEMO)
    args.variant, args.players = data["variant"], data["players"]
    args.opener = hand["actions"][0]["player"]  # who opened: told to the referee, as at a table
    for name in ("hand_size", "target", "max_pips", "keep_in_boneyard", "draw_count", "first_player",
                 "blocked_scoring", "spinner"):
        setattr(args, name, None)
    args.draw_when_able = False
    from referee.session.phrases import Phrases
    try:
        Phrases.load(args.lang)  # a wrong language is said before anything runs
    except ValueError as error:
        raise _user_error(str(error)) from None
    if not args.json:
        print(f"Replaying the sample hand in {DEMO.relative_to(REPO)} ({data['variant']}, {data['players']} players, "
              f"{len(data['frames'])} frames) through vision, layout, the referee and the rules.", flush=True)

    def how_it_went(session: Session) -> None:  # against what the hand really was (the sample has its truth)
        if args.json:
            return
        from referee.session.score import score_hand
        first = hand["actions"][0]["play"].split("-")
        score = score_hand(data["events"], session.events, first[0] == first[1])
        print(f"\nThe hand had {score.plays} plays; the referee followed {score.plays_right} with the right tile "
              f"and end ({score.fives_right} of {score.fives} fives scores right), flagged {score.illegal_flagged} of "
              f"{score.illegal} illegal placements, and made {score.false_illegal} false calls. Plays it did not "
              "announce are tiles vision could not read with confidence: the referee waits rather than guess.",
              flush=True)
        if any(e.kind.value == "hand_end" and e.points is None for e in session.events):
            print("The tiles left in hand at the end were not all read, so the hand's points are left unscored, "
                  "not guessed (at a table, type them in: r TILE... in referee watch).", flush=True)
    run(args, on_end=how_it_went)
    return 0


def _common(p: argparse.ArgumentParser, command: str, house: bool = True) -> None:
    from referee.cli_table import add_options
    from referee.rules import Variant
    from referee.rules.variants import BlockedScoring
    p.add_argument("--json", action="store_true", help="one JSON event per line")
    p.add_argument("--lang", default="pl", help="language of the announcements: pl, en, da, sv (default pl)")
    p.add_argument("--names", help="players' names by seat, comma-separated")
    p.add_argument("--calibration", metavar="PROFILE", help="calibration profile (referee calibrate)")
    p.add_argument("--config", metavar="FILE", help="vision config file (JSON)")
    p.add_argument("--stable-frames", type=int, default=2, help="agreeing frames a table state needs (default 2)")
    p.add_argument("--referee-config", metavar="FILE", help="the referee's tolerances (JSON: the fields of "
                   "referee.session.base.RefereeConfig but opener and seats, e.g. {\"illegal_votes\": 3})")
    p.add_argument("--workers", type=_workers, help="processes detecting frames side by side (default: one per "
                   "core up to 3 from a camera, so a play is announced sooner; 1 from a recording)")
    _serve_options(p)
    add_options(p, command)
    if not house:
        return
    p.add_argument("--variant", choices=[v.value for v in Variant], default="fives")
    p.add_argument("--players", type=int)
    p.add_argument("--opener", type=int, default=0, help="seat that lays the first tile (default 0)")
    p.add_argument("--seats", help="where each seat sits in the frame: edges (bottom,left,top,right) or degrees "
                   "(0 right, 90 down), one per seat; default clockwise from the bottom")
    p.add_argument("--log", metavar="PATH", help="SQLite event log (watch: in the user's data folder by default)")
    p.add_argument("--resume", action="store_true", help="continue the last session of the event log")
    p.add_argument("--resume-unfinished", action="store_true", help="continue the last session of the event log "
                   "if its match is not over and its rules are these (a service restarting); else start anew")
    g = p.add_argument_group("house rules")
    g.add_argument("--hand-size", type=int)
    g.add_argument("--target", type=int)
    g.add_argument("--max-pips", type=int, choices=[6, 9, 12])
    g.add_argument("--draw-when-able", action=argparse.BooleanOptionalAction, default=False)
    g.add_argument("--keep-in-boneyard", type=int)
    g.add_argument("--blocked-scoring", choices=[b.value for b in BlockedScoring])
    g.add_argument("--draw-count", type=int)
    g.add_argument("--first-player", type=int)
    g.add_argument("--spinner", action=argparse.BooleanOptionalAction, default=None)


def _workers(text: str) -> int:
    """``--workers``: a whole number from 1 to 16."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= 16:
        raise argparse.ArgumentTypeError(f"a whole number from 1 to 16, got {text!r}")
    return n


def _port(text: str) -> int:
    """``--port``: a TCP port, or 0 for any free one."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port from 1 to 65535 (0: any free port), got {text!r}")
    return port


def _serve_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("dashboard")
    g.add_argument("--serve", action=argparse.BooleanOptionalAction, default=False,
                   help="show the game on a web page (the annotated camera frame, "
                   "the line of play, scores, events) with controls for pass, undo, corrections and the next hand")
    g.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine "
                   "only; 0.0.0.0: anyone on the network may watch, controls need the token printed at start-up)")
    from referee.settings.model import DEFAULT_PORT
    g.add_argument("--port", type=_port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free port)")
    g.add_argument("--pace", type=float, metavar="FPS", help="with --serve, feed recorded frames at this many a "
                   f"second so the hand unfolds on the page (default {DEFAULT_PACE:g}; 0: as fast as they come)")


def add_parsers(sub: Any) -> None:
    rep = sub.add_parser("replay", help="referee recorded frames (a folder or a video) through the whole pipeline")
    rep.add_argument("source", metavar="FRAMES_DIR|VIDEO")
    rep.add_argument("--inputs", metavar="FILE", help="what was entered by hand: JSON lines "
                     '{"frame": N, "input": "pass"|"undo"|"correct"|"next_hand"|"play"|"reveal", "old": "6-4", '
                     '"new": "6-5"} (a correction), "tile": "6-4", "end": "left" (a play the camera could not '
                     'read) or "tiles": ["0-0", "3-1"], "seat": 1 (a reveal it could not read; the seat from 0, '
                     'needed only when several players hold tiles)')
    rep.add_argument("--from-json", action="store_true", help="read each frame's detection from the JSON file "
                     "beside it (the renderer's truth, or saved referee detect --json output) instead of vision")
    _common(rep, "replay")
    rep.set_defaults(func=cmd_replay)
    # no abbreviations: --settings is read before the options are parsed, by its full name
    watch = sub.add_parser("watch", help="referee a live table from a camera", allow_abbrev=False)
    watch.add_argument("--camera", help="webcam number (0, 1, ...) or pi for the Raspberry Pi camera")
    watch.add_argument("--source", help="a folder of frames or a video instead of a camera")
    _common(watch, "watch")
    watch.set_defaults(func=cmd_watch)
    demo = sub.add_parser("demo", help="replay the bundled sample hand through the whole pipeline (no camera)")
    demo.add_argument("--log", metavar="PATH", help="also write the events to this SQLite log")
    _common(demo, "demo", house=False)
    demo.set_defaults(func=cmd_demo, resume=False, from_json=False, inputs=None, seats=None)
