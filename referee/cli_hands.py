"""``referee evaluate-hands``: the whole pipeline over rendered hands (folders with a
``sequence.json``), scored against the events each should produce; one CSV row per hand.

What a camera cannot see is given to the referee as a person at the table would: who lays the
first tile, each pass (from the hand's own events, at their frames), and where each seat is in
the frame (from the rendered camera, as the person who mounted it would say with ``--seats``)."""

from __future__ import annotations

import argparse
import csv
import functools
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any


def _user_error(message: str) -> Exception:
    from referee.cli import UserError
    return UserError(message)


def find_hands(root: Path) -> list[Path]:
    if (root / "sequence.json").is_file():
        return [root]
    return sorted(p.parent for p in root.glob("*/sequence.json"))


def referee_hand(folder: str, from_json: bool, stable_frames: int, repeat: int = 1) -> dict[str, Any]:
    """Referee one rendered hand; its score row (raises ValueError for a bad folder). With
    ``repeat``, each frame without an arm is seen that many times in a row, as a camera holding
    a still view sees it: vision's misses in that view then repeat too (an arm moves: a frame
    with one is seen once, even where vision missed the arm)."""
    from referee.cli_session import json_frames
    from referee.render.truth import camera_from_params, seat_angles
    from referee.rules.record import parse_record
    from referee.session.faces import read_with, session_vision
    from referee.session.loop import Input, Session
    from referee.session.referee import RefereeConfig
    from referee.session.score import score_hand
    from referee.session.sources import FolderSource
    from referee.session.stabilise import StabiliserConfig
    from referee.vision.config import VisionConfig
    from referee.vision.detect import detect
    from referee.vision.types import Detection

    path = Path(folder)
    data = json.loads((path / "sequence.json").read_text(encoding="utf-8"))
    rules = parse_record(data).rules  # sequence.json is the hand's game record
    hand = data["hands"][0]
    opener = hand["actions"][0]["player"]
    truth = data["events"]
    passes: dict[int, list[Input]] = {}
    for e in truth:
        if e["event"] == "pass":
            passes.setdefault(e["frame"], []).append(Input(e["frame"], "pass"))
    camera = data.get("scene", {}).get("camera")
    first = path / "frame-0000.json"
    if camera is None and first.is_file():  # hands rendered before sequence.json kept the camera
        camera = json.loads(first.read_text(encoding="utf-8")).get("scene", {}).get("camera")
    seats = None if camera is None else seat_angles(camera_from_params(camera), rules.players)
    # Numbers of the set in play, read as a session reads them.
    read = functools.partial(detect, config=session_vision(VisionConfig(max_pips=rules.max_pips)))
    session = Session(rules, read, referee_config=RefereeConfig(opener=opener, seats=seats),
                      stabiliser=StabiliserConfig(stable_frames=stable_frames))
    start = time.perf_counter()
    frames = 0

    # An arm moves: only the still views (none in the hand's own account, none to vision) repeat.
    moving = {f["frame"] for f in data.get("frames", []) if f.get("occluded")}

    def show(index: int, detection: Detection) -> None:
        for _ in range(1 if detection.occluded or index in moving else repeat):
            session.frame(index, detection=detection)
        for item in passes.get(index, []):
            session.manual(item)

    if from_json:
        for index, detection in json_frames(path):
            show(index, detection)
            frames += 1
    else:
        with FolderSource(path) as source:
            for frame in source:
                # read with what the frames before agree the faces look like
                show(frame.index, read_with(read, frame.image, session.prior(frame.index)))
                frames += 1
    session.finish()
    seconds = time.perf_counter() - start
    first = hand["actions"][0]["play"]
    double = first.split("-")[0] == first.split("-")[1]
    score = score_hand(truth, session.events, double)
    scene = data.get("scene", {})
    return {"hand": path.name, "style": scene.get("style"), "table": scene.get("table"), "frames": frames,
            **score.to_row(), "ms_per_frame": round(1000 * seconds / max(frames, 1), 1),
            "events": [e.to_json() for e in session.events]}


def cmd_evaluate_hands(args: argparse.Namespace) -> int:
    from referee.session.score import HandScore, HandsTotal
    root = Path(args.dir)
    if not root.is_dir():
        raise _user_error(f"{root} is not a folder")
    hands = find_hands(root)
    if not hands:
        raise _user_error(f"no rendered hands (folders with a sequence.json) in {root}")
    jobs = max(1, args.jobs)
    rows: list[dict[str, Any]] = []
    if args.csv and Path(args.csv).exists():  # said before the hands are refereed, not after
        raise _user_error(f"{args.csv} exists; not overwriting it")
    if args.repeat < 1:
        raise _user_error(f"--repeat must be a whole number of times >= 1, got {args.repeat}")
    work = [(str(h), args.from_json, args.stable_frames, args.repeat) for h in hands]
    try:
        if jobs == 1:
            results = [referee_hand(*w) for w in work]
        else:
            with ProcessPoolExecutor(jobs) as pool:
                results = list(pool.map(referee_hand, *zip(*work, strict=True)))
    except (OSError, ValueError, KeyError) as error:  # RecordError is a ValueError
        raise _user_error(f"cannot referee a hand in {root}: {error}") from None
    fields = [f.name for f in HandScore.__dataclass_fields__.values()]
    for row in results:
        rows.append(row)
        if not args.quiet:
            end = "ok" if row["hand_end_right"] else "--"
            print(f"{row['hand']:<22} plays {row['plays_right']}/{row['plays']}  fives {row['fives_right']}/"
                  f"{row['fives']}  illegal {row['illegal_flagged']}/{row['illegal']}  false illegal "
                  f"{row['false_illegal']}  unfollowed {row['unfollowed']}  end {end}"
                  f"  {row['ms_per_frame']} ms/frame", flush=True)
        if args.events:
            for e in row["events"]:
                print("   ", json.dumps(e), flush=True)
    total = HandsTotal.of([HandScore(**{k: r[k] for k in fields}) for r in rows])
    print("\n".join(total.lines()))
    if args.csv:
        columns = ["hand", "style", "table", "frames", *fields, "ms_per_frame"]
        try:
            with open(args.csv, "x", newline="", encoding="utf-8") as out:
                writer = csv.DictWriter(out, columns, extrasaction="ignore")
                writer.writeheader()
                writer.writerows(rows)
        except FileExistsError:
            raise _user_error(f"{args.csv} exists; not overwriting it") from None
        except OSError as error:
            raise _user_error(f"cannot write {args.csv}: {error.strerror or error}") from None
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("evaluate-hands", help="referee rendered hands through the whole pipeline and score them")
    p.add_argument("dir", metavar="DIR", help="a rendered hand (with sequence.json) or a folder of them")
    p.add_argument("--csv", metavar="OUT", help="one row per hand (never overwrites)")
    p.add_argument("--from-json", action="store_true", help="read each frame's detection from the JSON beside it")
    p.add_argument("--stable-frames", type=int, default=2)
    p.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="see each frame without an arm N times in a row, as a camera holding a still view "
                        "does (default 1)")
    p.add_argument("--jobs", type=int, default=1, help="hands refereed in parallel (default 1)")
    p.add_argument("--events", action="store_true", help="also print every event the referee reported")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_evaluate_hands)
