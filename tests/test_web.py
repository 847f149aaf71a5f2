"""The live dashboard as its users meet it, over a real server on a free port: the sample hand
refereed into it shows the right scores, line of play and frame; controls reach the referee
(and, where a token is needed, nothing changes without it); bad requests are named; streams
start with the state, follow every change and end when the browser goes or the server stops;
the statistics page draws what a store holds; and the command line's --serve."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import httpx
import numpy as np
import pytest

from referee.rules import IllegalAction, Play, Rules, Tile, Variant
from referee.rules.hand import Hand
from referee.rules.record import load_record
from referee.rules.table import End
from referee.session.events import Event, Kind
from referee.session.loop import Input, Session
from referee.session.phrases import Phrases
from referee.session.referee import RefereeConfig
from referee.vision.types import Detection
from referee.web.app import create_app
from referee.web.dashboard import Dashboard, DashboardConfig
from referee.web.hub import Control, ControlError, Hub
from referee.web.server import PortInUse, Server
from referee.web.stats import StatsSource, stats_page
from tests.helpers import REPO, one_error_line

SAMPLE = REPO / "sample_images" / "sequences" / "sequence-11-000"
TRUTH = json.loads((SAMPLE / "sequence.json").read_text())
EN = Phrases.load("en")


# -- what the sample hand really was --------------------------------------------------------

def true_scores() -> list[int]:
    scores = [0] * TRUTH["players"]
    for event in TRUTH["events"]:
        if event["event"] == "play":
            scores[event["player"]] += event["points"]
        elif event["event"] == "hand_end":
            scores[event["winner"]] += event["points"]
    return scores


def true_line() -> dict[str, Any]:
    """The line of play the sample hand's legal actions leave (the record also holds the
    illegal placement the referee must flag)."""
    record = load_record(json.dumps({k: TRUTH[k] for k in ("variant", "players", "rules", "hands")}))
    hand_record = TRUTH["hands"][0]
    deal = [[Tile.parse(t) for t in seat] for seat in hand_record["deal"]]
    hand = Hand(record.rules, deal, [Tile.parse(t) for t in hand_record["boneyard"]])
    for action in hand_record["actions"]:
        end = End(action["end"]) if action.get("end") else None
        try:
            hand.play(Play(Tile.parse(action["play"]), end), seat=action["player"])
        except IllegalAction:
            continue
    return hand.table.snapshot().to_dict()


def same_line(shown: dict[str, Any], truth: dict[str, Any]) -> bool:
    """The same tiles in the same places, seen from either side of the table (the camera's left
    may be the record's right: the line then reads backwards and up is down)."""
    def names(tiles: list[str]) -> list[str]:
        return [str(Tile.parse(t)) for t in tiles]
    line, true = names(shown["line"]), names(truth["line"])
    branches = {tuple(names(v)) for v in shown["branches"].values()}
    true_branches = {tuple(names(v)) for v in truth["branches"].values()}
    return line in (true, true[::-1]) and branches == true_branches and shown["count"] == truth["count"]


# -- a dashboard fed by the real pipeline ----------------------------------------------------

def session() -> Session:
    rules = Rules(Variant(TRUTH["variant"]), players=TRUTH["players"], **TRUTH["rules"])
    return Session(rules, lambda image: image, referee_config=RefereeConfig(opener=1), phrases=EN)


def detections() -> list[tuple[int, Detection, Path]]:
    out = []
    for frame in TRUTH["frames"]:
        path = SAMPLE / frame["file"]
        out.append((frame["frame"], Detection.from_json(json.loads(path.with_suffix(".json").read_text())), path))
    return out


class Running:
    """A dashboard on a free port whose frame loop runs in a thread, as ``referee replay
    --serve`` runs it: frames first, then controls until stopped."""

    def __init__(self, token: str | None = None, frames: bool = True) -> None:
        self.session = session()
        self.board = Dashboard(self.session, EN, None, DashboardConfig(port=0), token=token)
        self.url = self.board.start().split("?")[0]
        self.frames_done = threading.Event()
        self.thread = threading.Thread(target=self._loop, args=(frames,), daemon=True)
        self.thread.start()

    def _loop(self, frames: bool) -> None:
        if frames:
            for index, detection, path in detections():
                self.session.frame(index, detection=detection)
                self.board.frame(index, detection, lambda p=path: cv2.imread(str(p)))
                self.board.pace()
            self.session.finish()
            self.board.ended()
        self.frames_done.set()
        self.board.serve()

    def stop(self) -> None:
        self.board.stop()
        self.thread.join(5)
        assert not self.thread.is_alive()


@contextlib.contextmanager
def serving(hub: Hub, store: StatsSource | None = None) -> Iterator[str]:
    """The app over ``hub`` served on a free port; its URL."""
    server = Server(create_app(hub, token=None, store=store), hub, port=0)
    url = server.start()
    try:
        yield url
    finally:
        server.stop()


@pytest.fixture
def served() -> Iterator[Running]:
    running = Running()
    assert running.frames_done.wait(30)
    yield running
    running.stop()


def test_the_sample_hand_shows_its_scores_line_and_frame(served: Running) -> None:
    state = httpx.get(served.url + "api/state").json()
    assert state["scores"] == true_scores() == [5, 50]
    assert same_line(state["line"], true_line())
    assert state["hand_over"] and state["source_ended"] and state["turn"] is None
    assert state["names"] == ["Player 1", "Player 2"]
    # The drawing holds every tile of the line, where the state says it lies.
    svg = state["line_svg"]
    drawn = re.findall(r'data-tile="([^"]+)" data-halves="([^"]+)" data-arm="([^"]+)" data-index="(\d+)"', svg)
    by_arm: dict[str, list[str]] = {}
    for _, halves, arm, _index in sorted(drawn, key=lambda d: (d[2], int(d[3]))):
        by_arm.setdefault(arm, []).append(halves)
    assert by_arm["line"] == state["line"]["line"]
    assert {by_arm["up"] == state["line"]["branches"]["up"], by_arm["down"] == state["line"]["branches"]["down"]} == {
        True}
    assert svg.count('class="tile double spinner') == 1
    # The log: every event with its words; the illegal placement marked.
    kinds = [e["event"] for e in state["events"]]
    assert kinds.count("illegal") == 1 and kinds[-1] == "hand_end"
    illegal = next(e for e in state["events"] if e["illegal"])
    assert illegal["tile"] == "6-5" and illegal["text"] == EN.say(Event.from_json(
        {k: v for k, v in illegal.items() if k not in ("seq", "text", "spoken", "illegal")}))
    # The frame: a JPEG of the last frame, scaled to the dashboard's width.
    with httpx.stream("GET", served.url + "frame.mjpg") as response:
        assert response.headers["content-type"].startswith("multipart/x-mixed-replace")
        data = b""
        for chunk in response.iter_bytes():
            data += chunk
            if data.count(b"\xff\xd9"):
                break
    jpeg = data[data.index(b"\xff\xd8"):data.index(b"\xff\xd9") + 2]
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None and image.shape[1] == 960


def test_controls_reach_the_referee_and_its_answer_comes_back(served: Running) -> None:
    before = list(served.session.events)
    response = httpx.post(served.url + "api/control", json={"action": "pass"}, timeout=10)
    assert response.status_code == 409  # the referee answered: the hand is over, nobody can pass
    answer = response.json()
    assert answer["ok"] is False and answer["message"].startswith("the hand is over: nobody can pass")
    assert served.session.events == before  # refused: nothing logged, nothing said
    assert httpx.get(served.url + "api/state").json()["answer"]["message"] == answer["message"]
    # A correction the rules refuse changes nothing and says why.
    response = httpx.post(served.url + "api/control", json={"action": "correct", "old": "1-1", "new": "2-2"})
    assert response.status_code == 409 and "1-1 is not on the table" in response.json()["message"]
    # The next hand, started by hand: the scored hand's line still in view is not the new hand's.
    response = httpx.post(served.url + "api/control", json={"action": "next_hand"}, timeout=10)
    assert response.status_code == 200 and "next hand has begun" in response.json()["message"]
    state = httpx.get(served.url + "api/state").json()
    assert state["hand"] == 2 and state["line"]["line"] == [] and state["scores"] == [5, 50]
    count = len(served.session.events)
    for index, detection, _ in detections()[-6:]:
        served.session.frame(1000 + index, detection=detection)
    assert len(served.session.events) == count
    response = httpx.post(served.url + "api/control", json={"action": "undo"})
    assert response.status_code == 409 and response.json()["message"] == "Nothing to undo."


def test_a_pass_waiting_for_the_table_to_settle_is_said_so_and_undone() -> None:
    # A pass entered while an arm is over the table, with a tile left to draw, waits for the
    # next stable state (the camera may yet show the last draw): the page says it was noted,
    # not "Nothing happened.", and an undo then takes that pass back.
    from tests.test_session_referee import LAST_ONE, OCCLUDED, OPEN_63, RIGHT_34, detection
    s = Session(LAST_ONE, lambda image: image, phrases=EN)
    board = Dashboard(s, EN, None, DashboardConfig(port=0))
    for frame in (0, 1):
        s.frame(frame, detection=detection(OPEN_63, down=14))
    s.frame(2, detection=OCCLUDED)
    answer = board.apply(Control("pass", id=1))
    assert answer.ok and answer.message.startswith("Pass noted: it is said once the table settles")
    assert board.apply(Control("undo", id=2)).message == "The pass waiting for the table is taken back."
    board.apply(Control("pass", id=3))
    for frame in (3, 4):
        got = s.frame(frame, detection=detection(OPEN_63, RIGHT_34, down=13))
    assert [(e.kind, e.player) for e in got] == [(Kind.DRAW, 1), (Kind.PASS, 1), (Kind.PLAY, 0)]


def test_next_hand_is_refused_while_a_hand_is_played() -> None:
    s = session()
    with pytest.raises(ValueError, match="waiting for its first tile"):
        s.manual(Input(0, "next_hand"))
    for index, detection, _ in detections()[:8]:
        s.frame(index, detection=detection)
    assert s.referee.hand.move_count() > 0
    with pytest.raises(ValueError, match="still being played"):
        s.manual(Input(9, "next_hand"))


def test_without_the_token_a_control_is_refused_and_changes_nothing() -> None:
    running = Running(token="s3cret", frames=False)
    try:
        referee = running.session.referee
        for headers, url in [({}, "api/control"), ({"X-Referee-Token": "wrong"}, "api/control"),
                             ({}, "api/control?token=wrong")]:
            response = httpx.post(running.url + url, json={"action": "pass"}, headers=headers)
            assert response.status_code == 403 and "token" in response.json()["error"]
        assert running.session.events == [] and referee.history == [] and referee.hand.move_count() == 0
        # Watching needs no token; the page is told controls need one.
        assert httpx.get(running.url + "api/state").json()["controls_need_token"] is True
        response = httpx.post(running.url + "api/control?token=s3cret", json={"action": "pass"}, timeout=10)
        assert response.status_code == 409 and response.json()["events"][0]["reason"] == "must_play"
        response = httpx.post(running.url + "api/control", json={"action": "undo"},
                              headers={"X-Referee-Token": "s3cret"}, timeout=10)
        assert response.status_code == 409 and response.json()["message"] == "Nothing to undo."  # it got through
        assert [e.kind for e in running.session.events] == [Kind.ILLEGAL]
    finally:
        running.stop()


def test_off_this_machine_a_token_is_made_and_printed_in_the_url() -> None:
    board = Dashboard(session(), EN, None, DashboardConfig(host="0.0.0.0", port=0))
    try:
        url = board.start()
        assert board.token is not None and len(board.token) >= 16 and url.endswith(f"/?token={board.token}")
        local = f"http://127.0.0.1:{board.server.port}/"
        assert httpx.post(local + "api/control", json={"action": "pass"}).status_code == 403
    finally:
        board.stop()
    assert Dashboard(session(), EN, None, DashboardConfig(port=0)).token is None


@pytest.mark.parametrize(("body", "needle"), [
    (b"pass", "JSON"),
    (b"[1, 2]", "JSON object"),
    (b'{"action": "dance"}', "dance"),
    (b'{"action": 5}', "'action'"),
    (b'{"action": "correct", "old": "6-4"}', "'new'"),
    (b'{"action": "correct", "old": "6-4", "new": "6-x"}', "6-x"),
    (b'{"action": "pass", "old": "6-4"}', "only correct"),
    (b'{"action": "pass", "colour": "red"}', "colour"),
    (b'{"action": "correct", "old": 64, "new": "6-5"}', "64"),
    (b'{"action": "play"}', "'tile'"),
    (b'{"action": "play", "tile": "6-x"}', "6-x"),
    (b'{"action": "play", "tile": "6-4", "end": "sideways"}', "sideways"),
    (b'{"action": "pass", "tile": "6-4"}', "only play"),
    (b'{"action": "reveal"}', "'tiles'"),
    (b'{"action": "reveal", "tiles": "5-3"}', "'tiles' must be a list"),
    (b'{"action": "reveal", "tiles": ["5-x"]}', "5-x"),
    (b'{"action": "reveal", "tiles": ["5-3"], "seat": true}', "'seat'"),
    (b'{"action": "undo", "tiles": ["5-3"]}', "only reveal"),
    (b"x" * 5000, "5000 bytes"),
])
def test_a_bad_control_is_named_and_changes_nothing(body: bytes, needle: str) -> None:
    hub = Hub()
    with serving(hub) as url:
        response = httpx.post(url + "api/control", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and needle in response.json()["error"]
    assert hub.take() == []


@pytest.mark.parametrize(("headers", "needle"), [
    ({}, "Content-Type: application/json"),  # what a form or a no-cors fetch from another page sends
    ({"Content-Type": "text/plain"}, "Content-Type: application/json"),
    ({"Content-Type": "application/json", "Origin": "http://evil.example"}, "evil.example"),
])
def test_a_control_from_another_web_site_is_refused(headers: dict[str, str], needle: str) -> None:
    hub = Hub()
    with serving(hub) as url:
        response = httpx.post(url + "api/control", content=b'{"action": "undo"}', headers=headers)
    assert response.status_code == 403 and needle in response.json()["error"]
    assert hub.take() == []


def test_a_play_the_camera_cannot_read_is_entered_on_the_page() -> None:
    # Before any frame: the opener (seat 1) lays 6-6, entered by hand; the rules check it, the
    # page's state shows it, and a tile that fits nowhere is refused with the reason.
    running = Running(frames=False)
    try:
        response = httpx.post(running.url + "api/control", json={"action": "play", "tile": "6-6", "end": ""},
                              timeout=10)
        assert response.status_code == 200, response.text
        answer = response.json()
        assert answer["ok"] is True and [e["tile"] for e in answer["events"]] == ["6-6"]
        event = running.session.events[-1]
        assert (event.kind, event.tile, event.player, event.by_hand) == (Kind.PLAY, "6-6", 1, True)
        assert httpx.get(running.url + "api/state").json()["line"]["line"] == ["6-6"]
        response = httpx.post(running.url + "api/control", json={"action": "play", "tile": "2-3", "end": "left"},
                              timeout=10)
        assert response.status_code == 409
        assert "cannot be played at the left end: mismatch" in response.json()["message"]
        assert len(running.session.events) == 1
    finally:
        running.stop()


def test_controls_are_validated_as_values() -> None:
    assert Control.from_json({"action": "correct", "old": "4-6", "new": "6-5"}) == Control("correct", "4-6", "6-5")
    with pytest.raises(ControlError, match="'old'"):
        Control("correct", None, "6-5")
    assert Control.from_json({"action": "play", "tile": "6-4", "end": "up"}) == Control("play", tile="6-4", end="up")
    assert Control.from_json({"action": "play", "tile": "6-4", "end": ""}) == Control("play", tile="6-4")
    assert Control.from_json({"action": "reveal", "tiles": ["5-3", "0-0"], "seat": 0}) == \
        Control("reveal", tiles=("5-3", "0-0"), seat=0)


def test_a_reveal_is_entered_on_the_page_only_while_a_hand_waits_for_it() -> None:
    # The sample hand is over and scored (its reveal was read): a reveal entered now is
    # refused with the reason, and nothing is logged.
    running = Running()
    try:
        assert running.frames_done.wait(60)
        before = len(running.session.events)
        response = httpx.post(running.url + "api/control", json={"action": "reveal", "tiles": ["5-3"]}, timeout=10)
        assert response.status_code == 409
        assert "no hand is waiting for its reveal" in response.json()["message"]
        assert len(running.session.events) == before
    finally:
        running.stop()


def _messages(response: httpx.Response) -> Iterator[dict[str, Any]]:
    for line in response.iter_lines():
        if line.startswith("data: "):
            yield json.loads(line[6:])


def test_streams_follow_changes_and_end_when_the_browser_goes_or_the_server_stops() -> None:
    hub = Hub()
    hub.publish({"n": 1})
    server = Server(create_app(hub, token=None), hub, port=0)
    url = server.start()
    try:
        with httpx.stream("GET", url + "events", timeout=10) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            messages = _messages(response)
            assert next(messages) == {"n": 1}  # the state on connect
            hub.publish({"n": 2})  # from this thread, as the frame loop publishes
            assert next(messages) == {"n": 2}
            assert hub.streams == 1
        assert hub.wait_streams(0, 5)  # the browser went: its stream ended
        hub.publish_frame(b"\xff\xd8first\xff\xd9")
        response_box: list[bytes] = []
        got_first = threading.Event()

        def watch() -> None:
            with httpx.stream("GET", url + "frame.mjpg", timeout=10) as stream:
                for chunk in stream.iter_bytes():  # until the server stops
                    response_box.append(chunk)
                    if b"first" in b"".join(response_box):
                        got_first.set()

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        assert hub.wait_streams(1, 5)
        assert got_first.wait(5)  # the newest frame is sent as soon as a browser asks
        started = time.monotonic()
    finally:
        server.stop()
    watcher.join(5)
    assert not watcher.is_alive() and time.monotonic() - started < 5
    assert hub.streams == 0


def test_a_port_in_use_is_one_clear_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        hub = Hub()
        with pytest.raises(PortInUse, match=f"port {port} on 127.0.0.1 is in use; use --port"):
            Server(create_app(hub, token=None), hub, port=port).start()
        line = one_error_line(referee_cli("replay", SAMPLE, "--from-json", "--serve", "--port", str(port)))
        assert line == f"referee replay: port {port} on 127.0.0.1 is in use; use --port"


# -- the statistics page ---------------------------------------------------------------------

def test_the_statistics_page_charts_what_the_records_hold(tmp_path: Path) -> None:
    """Two matches played by the rules engine in a real records database, read as the live
    commands serve it (a fresh reading connection per request, from the server's threads)."""
    from referee.cli_table import RecordsView
    from referee.store import Store
    from tests.test_store import played, record
    path = tmp_path / "records.sqlite"
    with Store(path) as store:
        first = record(store, played("fives", 2, seed=11), ["Ala", "Olek"])
        latest = record(store, played("fives", 2, seed=12), ["Ala", "Olek"])
        stats = store.stats()
        scores = {i: store.match_scores(i) for i in (first, latest)}
    wins = {p.name: p.wins for p in stats.players}
    with serving(Hub(), store=RecordsView(path)) as url, httpx.Client(base_url=url) as client:
        page = client.get("/stats").text
        bars = re.findall(r'class="bar"[^>]*data-label="([^"]+)" data-value="([^"]+)"', page)
        assert {name: int(float(v)) for name, v in bars} == wins and sum(wins.values()) == 2
        for match_id, query in ((latest, ""), (first, f"?match={first}")):  # the latest match by default
            page = client.get("/stats" + query).text
            series = re.findall(r'class="series"[^>]*data-name="([^"]+)" data-values="([^"]+)"', page)
            assert series == [(name, ",".join(str(s[seat]) for s in scores[match_id]))
                              for seat, name in enumerate(("Ala", "Olek"))]
        ala = next(p for p in stats.players if p.name == "Ala")
        assert (f'<tr data-player="Ala"><th>Ala</th><td>{ala.matches}</td><td>{ala.wins}</td><td>{ala.hands}</td>'
                f"<td>{ala.hand_wins}</td>") in page
        assert f"blocked hands: {stats.blocked}" in page and "matches by variant: fives 2" in page
        assert "<script" not in page and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
        data = client.get("/api/stats").json()
        assert data["stats"] == stats.to_json() and [m["id"] for m in data["matches"]] == [first, latest]
    with serving(Hub()) as url, httpx.Client(base_url=url) as client:
        assert 'id="no-records"' in client.get("/stats").text
        assert client.get("/api/stats").status_code == 404
    Store(tmp_path / "empty.sqlite").close()
    assert "No matches recorded yet" in stats_page(RecordsView(tmp_path / "empty.sqlite"))


# -- the command line ------------------------------------------------------------------------

def referee_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    from tests.helpers import referee
    return referee(*args, timeout=60)


def start_cli(*args: str | Path, env: dict[str, str] | None = None, cwd: Path = REPO
              ) -> tuple[subprocess.Popen[str], str]:
    """``referee ARGS`` running; returns it and the dashboard's URL (from its first line on stderr)."""
    full = dict(os.environ, **(env or {}))
    full["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    process = subprocess.Popen([sys.executable, "-m", "referee.cli", *map(str, args)], cwd=cwd, env=full,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    line = process.stderr.readline()
    found = re.search(r"http://\S+", line)
    assert found, (line, process.poll())
    return process, found.group(0)


def test_ctrl_c_while_the_hand_is_replayed_stops_within_seconds_without_a_traceback() -> None:
    process, url = start_cli("replay", SAMPLE, "--from-json", "--opener", "1", "--serve", "--port", "0",
                             "--pace", "2")
    try:
        with httpx.stream("GET", url + "events", timeout=10) as response:
            next(_messages(response))  # a browser watching, its stream open
            started = time.monotonic()
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=10)
        assert time.monotonic() - started < 5
        assert process.returncode == 130 and "Traceback" not in err
        assert err.strip().splitlines()[-1] == "referee replay: interrupted"
    finally:
        process.kill()
        process.wait()


def test_the_demo_served_writes_nothing_and_stops_cleanly_once_shown(tmp_path: Path) -> None:
    home, data, temp, cwd = (tmp_path / n for n in ("home", "data", "tmp", "cwd"))
    for folder in (home, data, temp, cwd):
        folder.mkdir()
    sample_before = sorted(p.name for p in SAMPLE.iterdir())
    process, url = start_cli("demo", "--lang", "en", "--serve", "--port", "0", "--pace", "0", cwd=cwd,
                             env={"HOME": str(home), "XDG_DATA_HOME": str(data), "TMPDIR": str(temp)})
    try:
        assert process.stderr is not None
        for line in process.stderr:  # the vision runs frame by frame; then the page stays up
            if "the source has ended" in line:
                break
        state = httpx.get(url + "api/state").json()
        assert state["source_ended"] and state["events"] and state["frame"] == TRUTH["frames"][-1]["frame"]
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=10)
        assert process.returncode == 0 and "Traceback" not in err
        assert "The hand had 13 plays" in out
    finally:
        process.kill()
        process.wait()
    assert [p for folder in (home, data, temp, cwd) for p in folder.rglob("*")] == []
    assert sorted(p.name for p in SAMPLE.iterdir()) == sample_before


@pytest.mark.parametrize(("args", "needle"), [
    (["--port", "70000"], "a port from 1 to 65535 (0: any free port), got '70000'"),
    (["--host", "no-such-host.invalid"], "cannot listen on no-such-host.invalid"),
    (["--pace", "-1"], "pace must be >= 0"),
])
def test_bad_dashboard_options_are_one_line(args: list[str], needle: str) -> None:
    assert needle in one_error_line(referee_cli("replay", SAMPLE, "--from-json", "--serve", *args))
