"""The records database with real SQLite files: statistics checked against figures worked out by
hand and from the rules engine's own matches, resumed sessions recorded once, files that are not
ours (or newer, or damaged) refused and left byte for byte as they were, migrations keeping the
data, and export -> import round trips that keep every figure and that ``referee check`` audits."""

from __future__ import annotations

import copy
import datetime
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules import Rules, Variant
from referee.rules.bots import BOTS, play_match
from referee.rules.check import check_record
from referee.rules.match import Match
from referee.rules.record import parse_record
from referee.rules.scoring import Termination
from referee.store import NoRecords, PlayerStats, Stats, Store, StoreError, VariantStats
from referee.store.migrations import MIGRATIONS, Migration
from tests.helpers import sqlite_file

NAMES = ["Ala", "Olek", "Łucja", "Bartek", "Zosia"]
UTC = datetime.UTC

# The All Fives hand of tests/test_cli.py, worked out by hand there, to a target of 25: player 0
# scores 10 (5-5) + 10 (0-0) = 20 in fives; player 1 scores 10 (5-0) + 5 (4-3) = 15, then lays
# the last tile: player 0 keeps 6-2 = 8 pips, rounded to 10, so player 1 reaches 25 and wins the
# match. Two actions are illegal (6-2 on a 3 end, a pass with tiles to draw) and one comes after
# the end: none of them counts.
FIVES_RECORD: dict[str, Any] = {
    "variant": "fives", "players": 2, "rules": {"hand_size": 3, "target": 25}, "names": ["Ala", "Olek"],
    "hands": [{
        "deal": [["5-5", "0-0", "6-2"], ["5-0", "5-3", "4-2"]],
        "boneyard": ["5-1", "4-3", "6-0", "1-0", "1-1", "2-0", "2-1", "2-2", "3-0", "3-1", "3-2", "3-3",
                     "4-0", "4-1", "4-4", "5-2", "5-4", "6-1", "6-3", "6-4", "6-5", "6-6"],
        "actions": [
            {"player": 0, "play": "5-5"}, {"player": 1, "play": "5-0", "end": "left"},
            {"player": 0, "play": "0-0", "end": "left"}, {"player": 1, "play": "3-5", "end": "right"},
            {"player": 0, "play": "6-2", "end": "right"}, {"player": 0, "pass": True},
            {"player": 0, "draw": "5-1"}, {"player": 0, "play": "5-1", "end": "up"},
            {"player": 1, "draw": "4-3"}, {"player": 1, "play": "4-3", "end": "right"},
            {"player": 0, "draw": "6-0"}, {"player": 0, "play": "6-0", "end": "left"},
            {"player": 1, "play": "4-2", "end": "right"}, {"player": 0, "pass": True},
        ],
        "reveal": [["6-2"], []],
    }],
}


def played(variant: str, players: int, seed: int, target: int = 100) -> Match:
    rules = Rules(Variant(variant), players=players, target=target)
    bots = [BOTS["greedy" if seat % 2 else "random"] for seat in range(players)]
    return play_match(rules, bots, random.Random(seed))


def scores_after(match: Match, i: int) -> list[int]:
    """The match scores after hand ``i``: the next hand started from them, or they are the last."""
    return match.hands[i + 1].scores if i + 1 < len(match.hands) else match.scores


def record(store: Store, match: Match, names: list[str] | None, started: datetime.datetime | None = None,
           key: str | None = None) -> int:
    """Feed a played match to the store as the recorder does: hand by hand, then its end."""
    match_id = store.start_match(names=names, rules=match.rules, source="test", key=key, started=started)
    for i, hand in enumerate(match.hands):
        store.add_hand(match_id, number=i + 1, hand=hand, events=(), scores=scores_after(match, i))
    if match.is_over():
        store.finish_match(match_id, winners=match.winners(), scores=match.scores)
    return match_id


def truth(games: list[tuple[Match, list[str]]]) -> Stats:
    """The figures worked out from the rules engine's matches alone, as stats.py defines them."""
    people: dict[str, Counter[str]] = {}
    kinds: dict[Variant, Counter[str]] = {}
    hands = blocked = points = 0
    for match, names in games:
        kinds.setdefault(match.rules.variant, Counter())["matches"] += 1
        for seat, name in enumerate(names):
            p = people.setdefault(name, Counter())
            p["matches"] += 1
            p["finished"] += 1
            p["wins"] += seat in match.winners()
            p["points"] += match.scores[seat]  # every point a seat gains stays in its score
        for hand, outcome in zip(match.hands, match.outcomes, strict=True):
            assert outcome is not None and outcome.points is not None
            hands += 1
            kinds[match.rules.variant]["hands"] += 1
            blocked += outcome.termination is Termination.BLOCKED
            points += outcome.points + sum(hand.points)
            for seat, name in enumerate(names):
                p = people[name]
                p["hands"] += 1
                p["hand_wins"] += seat in outcome.winners
                p["fives"] += hand.points[seat]
                p["scoring_plays"] += sum(1 for m in hand.moves if m.player == seat and m.kind == "play" and m.points)
    players = sorted((PlayerStats(name, **c) for name, c in people.items()),
                     key=lambda p: (-p.wins, -(p.win_rate or 0), -p.hand_wins, p.name.casefold()))
    variants = sorted((VariantStats(v, **c) for v, c in kinds.items()),
                      key=lambda v: (-v.matches, -v.hands, v.variant.value))
    return Stats(len(games), len(games), hands, blocked, hands, points, tuple(players), tuple(variants))


GAMES = [("fives", 2, 1), ("draw", 3, 2), ("block", 2, 3), ("partners", 4, 4), ("fives", 3, 5), ("draw", 2, 6)]


@pytest.fixture(scope="module")
def games() -> list[tuple[Match, list[str]]]:
    """Six complete matches of four variants; players change seats and tables."""
    out = []
    for i, (variant, players, seed) in enumerate(GAMES):
        names = [NAMES[(i + seat) % len(NAMES)] for seat in range(players)]
        out.append((played(variant, players, seed), names))
    return out


def filled(path: Path, games: list[tuple[Match, list[str]]]) -> Store:
    store = Store(path)
    for day, (match, names) in enumerate(games, 1):
        record(store, match, names, started=datetime.datetime(2024, 5, day, 18, 0, tzinfo=UTC))
    return store


# -- statistics ---------------------------------------------------------------------------------
def test_a_hand_worked_out_by_hand(tmp_path: Path) -> None:
    with Store(tmp_path / "records.sqlite") as store:
        [match_id] = store.import_(FIVES_RECORD, name="fives.json")
        stats = store.stats()
        assert store.match_scores(match_id) == [(20, 25)]
        [summary] = store.matches()
    assert (stats.matches, stats.finished, stats.hands, stats.blocked) == (1, 1, 1, 0)
    assert stats.average_points_per_hand == 10 + 20 + 15  # the award and every fives point
    assert stats.players == (
        PlayerStats("Olek", matches=1, finished=1, wins=1, hands=1, hand_wins=1, points=25, fives=15, scoring_plays=2),
        PlayerStats("Ala", matches=1, finished=1, wins=0, hands=1, hand_wins=0, points=20, fives=20, scoring_plays=2),
    )
    assert stats.players[0].win_rate == 1.0 and stats.players[1].win_rate == 0.0
    assert stats.variants == (VariantStats(Variant.FIVES, 1, 1),)
    assert (summary.names, summary.winners, summary.scores, summary.hands) == (("Ala", "Olek"), (1,), (20, 25), 1)


def test_stats_of_real_matches_agree_with_the_rules_engine(tmp_path: Path,
                                                           games: list[tuple[Match, list[str]]]) -> None:
    with filled(tmp_path / "records.sqlite", games) as store:
        stats = store.stats()
        assert stats == truth(games)
        assert stats.players[0].wins >= stats.players[-1].wins  # who wins most often comes first
        for match_id, (match, _) in enumerate(games, 1):
            assert store.match_scores(match_id) == [tuple(scores_after(match, i)) for i in range(len(match.hands))]
        assert [m.scores for m in store.matches()] == [tuple(m.scores) for m, _ in games]


def test_stats_for_one_player_and_since_a_day(tmp_path: Path, games: list[tuple[Match, list[str]]]) -> None:
    with filled(tmp_path / "records.sqlite", games) as store:
        zosia = store.stats(player="zosia")  # names are compared without case
        with_zosia = [(m, n) for m, n in games if "Zosia" in n]
        assert zosia.players == tuple(p for p in truth(with_zosia).players if p.name == "Zosia")
        assert (zosia.player, zosia.matches, zosia.hands) == ("Zosia", len(with_zosia), truth(with_zosia).hands)
        late = store.stats(since=datetime.date(2024, 5, 4))
        assert late == dataclasses_replace(truth(games[3:]), since=datetime.date(2024, 5, 4))
        assert [m.id for m in store.matches(player="Łucja", since=datetime.date(2024, 5, 2))] == [
            i for i, (_, n) in enumerate(games, 1) if "Łucja" in n and i >= 2]
        known = r"\(players: Ala, Bartek, Olek, Zosia, Łucja\)"
        with pytest.raises(StoreError, match=r"has no player named 'Nobody' " + known):
            store.stats(player="Nobody")


def dataclasses_replace(stats: Stats, **changes: Any) -> Stats:
    import dataclasses
    return dataclasses.replace(stats, **changes)


def test_unnamed_seats_count_in_the_totals_but_not_as_players(tmp_path: Path) -> None:
    match = played("draw", 2, 11)
    with Store(tmp_path / "records.sqlite") as store:
        record(store, match, None)
        stats = store.stats()
        assert stats.players == () and stats.hands == len(match.hands) and stats.finished == 1
        assert store.matches()[0].names == (None, None)


# -- writing: idempotent, never overwriting -------------------------------------------------------
def test_a_resumed_session_records_nothing_twice(tmp_path: Path) -> None:
    match = played("fives", 2, 21)
    path = tmp_path / "records.sqlite"
    with Store(path) as store:
        first = record(store, match, ["Ala", "Olek"], key="events.sqlite#1")
        again = record(store, match, ["Ala", "Olek"], key="events.sqlite#1")  # every hand once more, then the end
        assert again == first
        assert store.hand_count(first) == len(match.hands)
        assert store.rows("SELECT COUNT(*) FROM matches")[0][0] == 1
        other = played("fives", 2, 22)
        with pytest.raises(StoreError, match="hand 1 of match 1 is already recorded with other actions; it was not "
                                             "overwritten"):
            store.add_hand(first, number=1, hand=other.hands[0], events=(), scores=scores_after(other, 0))
        with pytest.raises(StoreError, match="already recorded as finished"):
            store.finish_match(first, winners=[1 - match.winners()[0]], scores=match.scores)
        with pytest.raises(StoreError, match=f"hand {len(match.hands) + 2} of match 1 cannot be recorded before"):
            store.add_hand(first, number=len(match.hands) + 2, hand=other.hands[0], events=(),
                           scores=scores_after(other, 0))
        assert store.stats() == truth([(match, ["Ala", "Olek"])])


def test_bad_names_and_scores_are_refused(tmp_path: Path) -> None:
    match = played("draw", 2, 31)
    with Store(tmp_path / "records.sqlite") as store:
        with pytest.raises(StoreError, match="names must give 2 players' names"):
            store.start_match(names=["Ala"], rules=match.rules)
        with pytest.raises(StoreError, match="names must name 2 different players"):
            store.start_match(names=["Ala", " ala"], rules=match.rules)
        match_id = store.start_match(names=["Ala", "Olek"], rules=match.rules)
        with pytest.raises(StoreError, match=r"scores must give 2 whole numbers, one per seat, got \[1\]"):
            store.add_hand(match_id, hand=match.hands[0], events=(), scores=[1])
        with pytest.raises(StoreError, match="has no match 99"):
            store.hand_count(99)
        assert store.hand_count(match_id) == 0


# -- files that are not ours ----------------------------------------------------------------------
def refused(path: Path, message: str, **options: Any) -> None:
    before = path.read_bytes()
    with pytest.raises(StoreError) as caught:
        Store(path, **options)
    text = str(caught.value)
    assert "\n" not in text and str(path) in text and message in text, text
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def sql(path: Path, *statements: str) -> None:
    sqlite_file(path, *statements)


@pytest.mark.parametrize("create", [True, False])
def test_random_bytes_are_left_alone(tmp_path: Path, create: bool) -> None:
    path = tmp_path / "records.sqlite"
    path.write_bytes(random.Random(5).randbytes(8192))
    refused(path, "is not a domino-referee database (not a SQLite file); it was not touched", create=create)


def test_another_programs_database_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "photos.db"
    sql(path, "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)", "INSERT INTO photos VALUES (1, 'a')")
    refused(path, "is not a domino-referee database (tables photos); it was not touched")
    sql(path, "PRAGMA application_id = 1234")
    refused(path, "is not a domino-referee database (application id 0x4d2); it was not touched")


def test_a_newer_database_is_left_alone(tmp_path: Path, games: list[tuple[Match, list[str]]]) -> None:
    path = tmp_path / "records.sqlite"
    filled(path, games[:1]).close()
    sql(path, "PRAGMA user_version = 7")
    refused(path, "was written by a newer version (schema 7, this program knows 1); it was not touched")


def test_a_damaged_database_is_left_alone(tmp_path: Path, games: list[tuple[Match, list[str]]]) -> None:
    path = tmp_path / "records.sqlite"
    filled(path, games).close()
    data = bytearray(path.read_bytes())
    page = 4096 * 2  # the third page: a table's b-tree
    data[page:page + 64] = random.Random(3).randbytes(64)
    path.write_bytes(bytes(data))
    refused(path, "is corrupt: ")
    path.write_bytes(bytes(data[:len(data) // 2]))  # cut short, as a full disk leaves it
    refused(path, "is corrupt: database disk image is malformed; it was not touched")


def test_reading_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "records.sqlite"
    with pytest.raises(NoRecords, match=f"there are no records yet: {path} does not exist"):
        Store(path, create=False)
    assert list(tmp_path.iterdir()) == []
    path.touch()
    with pytest.raises(NoRecords, match="holds none"):
        Store(path, create=False)
    assert path.read_bytes() == b""
    with pytest.raises(StoreError, match=r"folder .* does not exist"):
        Store(tmp_path / "no" / "records.sqlite")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.sqlite"]


def test_two_stores_on_one_file_see_each_others_writes(tmp_path: Path) -> None:
    path = tmp_path / "records.sqlite"
    match = played("draw", 2, 41)
    with Store(path) as writer, Store(path, create=False) as reader:
        assert reader.stats().matches == 0
        record(writer, match, ["Ala", "Olek"])
        assert reader.stats() == truth([(match, ["Ala", "Olek"])])
        assert str(writer.rows("PRAGMA journal_mode")[0][0]).lower() == "wal"


# -- migrations ---------------------------------------------------------------------------------
VENUE = Migration(2, "where a match was played", ("ALTER TABLE matches ADD COLUMN venue TEXT",
                                                  "UPDATE matches SET venue = 'home'"))


def test_an_older_database_is_migrated_keeping_its_data(tmp_path: Path, games: list[tuple[Match, list[str]]]) -> None:
    path = tmp_path / "records.sqlite"
    with filled(path, games[:2]) as old:
        before = old.stats()
    with Store(path, migrations=(*MIGRATIONS, VENUE)) as new:
        assert new.rows("PRAGMA user_version")[0][0] == 2
        assert new.rows("SELECT DISTINCT venue FROM matches") == [("home",)]
        assert new.stats() == before
        record(new, games[2][0], games[2][1])  # and it goes on recording
        assert new.stats() == truth(games[:3])
    refused(path, "was written by a newer version (schema 2, this program knows 1); it was not touched")


def test_a_failed_migration_changes_nothing(tmp_path: Path, games: list[tuple[Match, list[str]]]) -> None:
    path = tmp_path / "records.sqlite"
    filled(path, games[:1]).close()
    broken = Migration(2, "broken", ("ALTER TABLE matches ADD COLUMN venue TEXT", "UPDATE nowhere SET x = 1"))
    refused(path, "cannot use the records database", migrations=(*MIGRATIONS, broken))
    with Store(path) as store:
        assert store.rows("PRAGMA user_version")[0][0] == 1 and store.stats() == truth(games[:1])
    with pytest.raises(ValueError, match="migration 2 is numbered 3"):
        Store(path, migrations=(*MIGRATIONS, Migration(3, "skipped", ())))


# -- export and import --------------------------------------------------------------------------
def test_export_then_import_keeps_every_figure(tmp_path: Path, games: list[tuple[Match, list[str]]]) -> None:
    with filled(tmp_path / "a.sqlite", games) as a, Store(tmp_path / "b.sqlite") as b:
        data = a.export()
        assert b.import_(copy.deepcopy(data), name="export.json") == [1, 2, 3, 4, 5, 6]
        assert b.stats() == a.stats()
        assert b.matches() == a.matches()  # the times travel with the matches
        assert b.import_(data, name="export.json") == [1, 2, 3, 4, 5, 6]  # again: nothing new
        assert a.import_(data, name="export.json") == [1, 2, 3, 4, 5, 6]  # home again: nothing new
        assert b.stats() == a.stats() and a.stats() == truth(games)
        again = b.export()["matches"]
        assert [m["store"].pop("imported") for m in data["matches"]] == [None] * len(games)  # played here
        assert all(m["store"].pop("imported") is not None for m in again)  # came in an import
        assert again == data["matches"]


def test_an_exported_match_is_a_game_record_the_rules_engine_audits(tmp_path: Path,
                                                                     games: list[tuple[Match, list[str]]]) -> None:
    with filled(tmp_path / "records.sqlite", games) as store:
        for match_id, (match, names) in enumerate(games, 1):
            report = check_record(parse_record(store.match_record(match_id)))
            assert report.all_legal
            assert list(report.scores) == match.scores and list(report.match_winners) == match.winners()
            assert report.record.names == tuple(names)


def test_a_match_exported_part_way_is_completed_by_a_later_import(tmp_path: Path) -> None:
    match = played("fives", 2, 52)
    assert len(match.hands) == 5
    with Store(tmp_path / "table.sqlite") as table, Store(tmp_path / "club.sqlite") as club:
        match_id = table.start_match(names=["Ala", "Olek"], rules=match.rules)
        for i in range(2):
            table.add_hand(match_id, number=i + 1, hand=match.hands[i], events=(), scores=scores_after(match, i))
        club.import_(table.export(), name="evening.json")
        for i in range(2, len(match.hands)):
            table.add_hand(match_id, number=i + 1, hand=match.hands[i], events=(), scores=scores_after(match, i))
        table.finish_match(match_id, winners=match.winners(), scores=match.scores)
        club.import_(table.export(), name="later.json")
        assert club.stats() == table.stats() == truth([(match, ["Ala", "Olek"])])
        changed = table.export()
        changed["matches"][0]["hands"][0]["actions"].pop()
        before = club.stats()
        with pytest.raises(StoreError, match=r"^edited.json: \$.matches\[0\]: match \w+ is already recorded "
                                             r"\(match 1\) with other rules or hands; nothing was imported$"):
            club.import_(changed, name="edited.json")
        assert club.stats() == before


MALFORMED = [
    ({"matches": [{"hands": "many"}]}, r"^bad.json: \$.matches\[0\].hands: expected a list of hands"),
    ({"format": "photos", "matches": []}, r"^bad.json: \$.format: expected 'domino-referee records'"),
    ({"version": 9, "matches": []}, r"^bad.json: \$.version: written by a newer version \(export format 9"),
    ({"hands": [{"actions": [{"player": 0, "play": "6-x"}]}]}, r"^bad.json: \$.hands\[0\].actions\[0\].play: "),
    ({"hands": [], "store": {"uid": "x", "hands": [{}]}}, r"^bad.json: \$.store.hands: expected a list with one"),
    ({"hands": [], "store": {"uid": "x", "started": "yesterday"}}, r"^bad.json: \$.store.started: expected a date"),
    ({"hands": [], "store": {"uid": "x", "events": [{"event": "boom", "frame": 1}]}},
     r"^bad.json: \$.store.events\[0\]: unknown event 'boom'$"),
    ({"hands": [], "store": {"uid": 5}}, r"^bad.json: \$.store.uid: expected the match's identity"),
    ({"hands": [], "store": {"uid": "x", "colour": "red"}}, r"^bad.json: \$.store.colour: unknown key"),
    ({"hands": [], "names": ["Ala", "ALA"]}, r'^bad.json: \$.names: expected 2 different players\' names, got \["Ala"'),
]


@pytest.mark.parametrize(("data", "message"), MALFORMED)
def test_a_malformed_file_imports_nothing(tmp_path: Path, data: Any, message: str) -> None:
    with Store(tmp_path / "records.sqlite") as store:
        with pytest.raises(StoreError, match=message) as caught:
            store.import_documents([("good.json", FIVES_RECORD), ("bad.json", data)])
        assert "\n" not in str(caught.value)
        assert store.stats().matches == 0  # not even the good file's match


def test_plain_records_are_imported_once_with_the_import_time(tmp_path: Path) -> None:
    before = datetime.datetime.now(UTC).replace(microsecond=0)
    plain = {k: v for k, v in FIVES_RECORD.items() if k != "names"}
    with Store(tmp_path / "records.sqlite") as store:
        assert store.import_(plain) == [1]
        assert store.import_(copy.deepcopy(plain)) == [1]
        [summary] = store.matches()
        assert summary.started >= before and summary.finished is not None and summary.names == (None, None)


# -- a property: any simulated match survives the round trip ----------------------------------------
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(variant=st.sampled_from([("fives", 2), ("draw", 3), ("block", 4), ("partners", 4)]),
       seed=st.integers(0, 10_000), target=st.sampled_from([30, 61, 100]))
def test_round_trip_of_any_simulated_match(tmp_path_factory: pytest.TempPathFactory, variant: tuple[str, int],
                                           seed: int, target: int) -> None:
    match = played(variant[0], variant[1], seed, target)
    names = NAMES[:variant[1]]
    folder = tmp_path_factory.mktemp("trip")
    with Store(folder / "a.sqlite") as a, Store(folder / "b.sqlite") as b:
        record(a, match, names)
        b.import_(a.export())
        assert a.stats() == b.stats() == truth([(match, names)])
        assert b.match_scores(1) == [tuple(scores_after(match, i)) for i in range(len(match.hands))]
        report = check_record(parse_record(b.match_record(1)))
        assert list(report.scores) == match.scores


# -- recording a live session ---------------------------------------------------------------------
def live_plan(seed: int) -> Any:
    """A hand of the block game planned frame by frame (the renderer's exact geometry, no pixels)."""
    import numpy as np

    from referee.render.generate import Options
    from referee.render.sequence import plan_hand
    return plan_hand(np.random.default_rng([seed, 0]), Options(variant="block", players=2))


def referee_live(plan: Any, log_path: Path, store: Store | None, resume: bool = False) -> tuple[Any, Any]:
    """A real Session over the plan's frames, every event logged, the recorder in its announce
    callback as the integrator wires it; the match is played to a target of 1, so it ends with
    the hand. ``store=None``: the process dies before it records anything."""
    from referee.render.truth import frame_truth, seat_angles
    from referee.session.eventlog import EventLog
    from referee.session.loop import Input, Session
    from referee.session.referee import RefereeConfig
    from referee.store import Recorder
    from referee.vision.types import Detection

    hand = plan.record["hands"][0]
    rules = Rules(Variant.BLOCK, players=2, hand_size=plan.record["rules"]["hand_size"], target=1)
    config = RefereeConfig(opener=hand["actions"][0]["player"], seats=seat_angles(plan.camera, 2))
    recorders: list[Recorder] = []

    def announce(event: Any, text: str | None) -> None:
        for recorder in recorders:
            recorder.on_event(event, session.referee.match, session.events)

    def never(image: Any) -> Detection:
        raise AssertionError("this test feeds detections")

    session = Session(rules, never, log=EventLog(log_path), resume=resume, referee_config=config,
                      names=["Ala", "Olek"], announce=announce)
    recorder = None
    if store is not None:
        recorder = Recorder(store, names=["Ala", "Olek"], rules=rules, source="camera 0",
                            key=f"{log_path}#{session.session_id}")
        recorder.sync(session.referee.match, session.events)  # what a crash left unrecorded
        recorders.append(recorder)
    passes = Counter(e["frame"] for e in plan.events if e["event"] == "pass")
    for index, frame in enumerate(plan.frames):
        if index <= session.resumed_from:
            continue
        truth = frame_truth(frame.poses, plan.setting.size, plan.camera, frame.arm is not None, None, {})
        session.frame(index, detection=Detection.from_json(truth))
        for _ in range(passes[index]):
            session.manual(Input(index, "pass"))
    session.finish()
    return session, recorder


def test_a_live_session_is_recorded_hand_by_hand(tmp_path: Path) -> None:
    plan = live_plan(1003)
    with Store(tmp_path / "records.sqlite") as store:
        session, recorder = referee_live(plan, tmp_path / "events.sqlite", store)
        kinds = [e.kind.value for e in session.events]
        assert kinds[-2:] == ["hand_end", "match_end"]
        end, match_end = session.events[-2:]
        doc = store.match_record(recorder.match_id)
        report = check_record(parse_record(doc))  # what was recorded is a record referee check audits
        assert report.all_legal
        [hand] = report.hands
        assert (hand.result, hand.winner, hand.points) == (check_record(parse_record(plan.record)).hands[0].result,
                                                           end.winner, end.points)
        assert report.scores == match_end.scores and report.match_winners == match_end.winners
        assert doc["store"]["hands"][0]["events"] == [e.to_json() for e in session.events[:-1]]
        assert doc["store"]["events"] == [match_end.to_json()]
        [summary] = store.matches()
        assert summary.winners == match_end.winners and summary.finished is not None
        assert summary.source == "camera 0" and summary.names == ("Ala", "Olek")
        first = store.export()

        # The same session resumed from its log: the same match, nothing recorded twice.
        _, again = referee_live(plan, tmp_path / "events.sqlite", store, resume=True)
        assert again.match_id == recorder.match_id
        assert store.export()["matches"] == first["matches"]


def test_a_hand_a_crash_left_unrecorded_is_recorded_on_resume(tmp_path: Path) -> None:
    plan = live_plan(1003)
    with Store(tmp_path / "records.sqlite") as store:
        referee_live(plan, tmp_path / "events.sqlite", None)  # logged, then killed before recording
        assert store.stats().matches == 0
        session, recorder = referee_live(plan, tmp_path / "events.sqlite", store, resume=True)
        report = check_record(parse_record(store.match_record(recorder.match_id)))
        assert [e.kind.value for e in session.events][-2:] == ["hand_end", "match_end"]
        assert report.scores == session.events[-1].scores and store.stats().finished == 1
        assert store.stats().hands == 1
