"""How soon the people at the table hear and see an event, each measured side by side with its
floor in the same run (these machines are noisy):

- voice: an announcement's text -> a complete WAV through ``referee.announce.synthesise`` (the
  voice's settings, the header fixed), against the bare ``espeak-ng --stdout`` call it makes;
- dashboard: an event published by the frame loop -> the browser's server-sent event received
  over HTTP, against a plain ``GET /api/state`` round trip on the same server;
- records: a finished hand written and committed as the recorder writes it (``Store.add_hand``:
  the hand's game record, result, fives) into a real SQLite file, against one bare committed
  INSERT on the same disk.

Run: .venv/bin/python benchmarks/people_latency.py [--rounds N]
Last line: ``people_latency: voice=N ms (espeak M ms) dashboard=N ms (GET M ms) record=N ms (insert M ms)``.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

PHRASES = ("Gracz 2: piętnaście!", "Gracz 1: nieprawidłowy ruch, 6-4 nie pasuje.",
           "Zablokowane! Wygrywa Gracz 1: 11 punktów.", "Gracz 2 dobiera.")


def voice(rounds: int) -> tuple[float, float]:
    from referee.announce import synthesise, voice_for
    config = voice_for("pl")
    ours, floor = [], []
    for i in range(rounds):
        text = PHRASES[i % len(PHRASES)]
        started = time.perf_counter()
        synthesise(text, config)
        ours.append(time.perf_counter() - started)
        started = time.perf_counter()
        subprocess.run(["espeak-ng", "-v", config.voice, "--stdout"], input=text.encode(), capture_output=True,
                       check=True)
        floor.append(time.perf_counter() - started)
    return statistics.median(ours) * 1000, statistics.median(floor) * 1000


def dashboard(rounds: int) -> tuple[float, float]:
    import httpx

    from referee.web.app import create_app
    from referee.web.hub import Hub
    from referee.web.server import Server

    hub = Hub()
    hub.publish({"n": 0})
    server = Server(create_app(hub, token=None), hub, port=0)
    url = server.start()
    received: dict[int, float] = {}
    arrived = threading.Condition()

    def listen() -> None:
        with httpx.stream("GET", url + "events", timeout=30) as response:
            for line in response.iter_lines():
                if line.startswith("data: "):
                    n = json.loads(line[6:])["n"]
                    with arrived:
                        received[n] = time.perf_counter()
                        arrived.notify_all()
                    if n == rounds:
                        return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    try:
        with arrived:
            arrived.wait_for(lambda: 0 in received, 10)
        ours = []
        for n in range(1, rounds + 1):
            sent = time.perf_counter()
            hub.publish({"n": n})
            with arrived:
                arrived.wait_for(lambda n=n: n in received, 10)  # type: ignore[misc]
            ours.append(received[n] - sent)
        floor = []
        with httpx.Client(base_url=url) as client:
            for _ in range(rounds):
                started = time.perf_counter()
                client.get("/api/state")
                floor.append(time.perf_counter() - started)
    finally:
        server.stop()
    return statistics.median(ours) * 1000, statistics.median(floor) * 1000


def record(rounds: int) -> tuple[float, float]:
    from referee.rules import Rules, Variant
    from referee.rules.bots import BOTS
    from referee.rules.simulate import play_match
    from referee.store import Store

    rules = Rules(Variant.FIVES, players=2)
    ours, floor = [], []
    with tempfile.TemporaryDirectory() as folder:
        with Store(Path(folder) / "records.sqlite") as store:
            seed = 0
            while len(ours) < rounds:
                match = play_match(rules, [BOTS["greedy"], BOTS["random"]], random.Random(seed))
                seed += 1
                match_id = store.start_match(names=["Ala", "Olek"], rules=rules, source="benchmark")
                for i, hand in enumerate(match.hands):
                    scores = match.hands[i + 1].scores if i + 1 < len(match.hands) else match.scores
                    started = time.perf_counter()  # what the recorder does at each hand's end
                    store.add_hand(match_id, number=i + 1, hand=hand, events=(), scores=scores)
                    ours.append(time.perf_counter() - started)
        bare = sqlite3.connect(Path(folder) / "bare.sqlite", isolation_level=None)
        bare.execute("PRAGMA journal_mode=WAL")
        bare.execute("PRAGMA synchronous=FULL")
        bare.execute("CREATE TABLE t (x TEXT)")
        for _ in range(len(ours)):
            started = time.perf_counter()
            bare.execute("BEGIN")
            bare.execute("INSERT INTO t VALUES (?)", ("x" * 2000,))
            bare.execute("COMMIT")
            floor.append(time.perf_counter() - started)
        bare.close()
    return statistics.median(ours) * 1000, statistics.median(floor) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    v, e = voice(args.rounds)
    print(f"voice: {v:.1f} ms per announcement (espeak-ng alone {e:.1f} ms)", flush=True)
    d, g = dashboard(args.rounds)
    print(f"dashboard: {d:.2f} ms from publish to the browser's event (GET /api/state {g:.2f} ms)", flush=True)
    r, i = record(args.rounds)
    print(f"records: {r:.2f} ms per hand written (bare insert {i:.2f} ms)", flush=True)
    print(f"people_latency: voice={v:.0f} ms (espeak {e:.0f} ms) dashboard={d:.1f} ms (GET {g:.1f} ms) "
          f"record={r:.1f} ms (insert {i:.1f} ms)")


if __name__ == "__main__":
    main()
