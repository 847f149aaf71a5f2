"""Property tests of the rules engine with hypothesis.

Matches are played by the engine's own bots from a hypothesis-drawn seed, under every variant,
player count and a hypothesis-drawn set of house rules, and checked after every single action:
tiles are conserved, hands terminate, fives points are right, end-of-hand awards and openings
follow the rule sheet, ``undo()`` restores the exact state, ``legal_plays()`` agrees with
``play()``, and a played match survives the trip through a game record and ``check`` (also with
the deal left out).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from referee.rules import (
    BONEYARD,
    ENDS,
    HAND_SIZES,
    TABLE,
    Action,
    BlockedScoring,
    Hand,
    IllegalAction,
    Play,
    Reason,
    Rules,
    Termination,
    Tile,
    Variant,
    set_size,
    tile_set,
)
from referee.rules.bots import BOTS, play_turn
from referee.rules.check import check_record
from referee.rules.match import Match
from referee.rules.record import parse_record
from referee.rules.simulate import match_record
from referee.rules.table import CLOSED, LineOfPlay

#: Every variant with every player count it is played with.
TABLES = [
    ("draw", 2), ("draw", 3), ("draw", 4),
    ("block", 2), ("block", 3), ("block", 4),
    ("fives", 2), ("fives", 3), ("fives", 4),
    ("partners", 4),
]
TABLE_IDS = [f"{v}-{p}" for v, p in TABLES]

# Derandomized, so every run (and CI) checks the same examples; modest example counts keep the
# file well under a minute. No shrinking: an example is a whole match grown from a seed, which
# shrinks slowly and poorly; the failing rules, seats and seed are printed and reproduce it.
SETTINGS = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
#: For the costly test that tries every placement of every held tile before every action.
SLOW_SETTINGS = settings(SETTINGS, max_examples=12)

#: A match must be won within this many hands (as ``bots.play_match`` assumes).
MAX_HANDS = 1000


# -- strategies ---------------------------------------------------------------------------------
@st.composite
def house_rules(draw: st.DrawFn, variant: str, players: int) -> Rules:
    """A rules object for ``variant`` and ``players`` with house rules drawn by hypothesis."""
    max_pips = draw(st.sampled_from([6, 9]))
    cap = set_size(max_pips) // players
    named = sorted({sizes[players] for sizes in HAND_SIZES.values() if sizes[players] <= cap})
    # 0 is "the default for the variant"; otherwise a named deal or any size the set allows.
    hand_size = draw(st.one_of(st.just(0), st.sampled_from(named), st.integers(1, cap)))
    spinner = draw(st.sampled_from([None, True, False]))
    blocked = draw(st.sampled_from([None, *BlockedScoring]))
    first_player = draw(st.one_of(st.none(), st.integers(0, players - 1)))
    return Rules(
        variant=Variant(variant),
        players=players,
        hand_size=hand_size,
        target=draw(st.sampled_from([25, 61, 100])),
        max_pips=max_pips,
        draw_when_able=draw(st.booleans()),
        keep_in_boneyard=draw(st.integers(0, 3)),
        blocked_scoring=blocked,
        draw_count=draw(st.integers(1, 3)),
        first_player=first_player,
        spinner=spinner,
    )


#: The engine's bots, and "eager": the random bot that, when the draw_when_able house rule lets
#: it, often draws although it could play.
SEAT_KINDS = [*sorted(BOTS), "eager"]


def bots_for(players: int) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(SEAT_KINDS), min_size=players, max_size=players)


seeds = st.integers(0, 2**32 - 1)


# -- helpers -------------------------------------------------------------------------------------
def action_bound(hand: Hand) -> int:
    """Most actions a hand can take: every tile played once, every boneyard tile drawn once, and
    fewer than one round of passes around each play (a full round of passes blocks the hand)."""
    tiles = set_size(hand.rules.max_pips)
    return tiles + hand.boneyard_size() + hand.players * (tiles + 1)


def play_checked_match(rules: Rules, bot_names: list[str], seed: int,
                       before: Callable[[Hand], None] | None = None,
                       after: Callable[[Hand], None] | None = None,
                       hand_done: Callable[[Hand], None] | None = None,
                       dealt: Callable[[Match, Hand], None] | None = None) -> Match:
    """Play a whole match as ``bots.play_match`` does, one action at a time, calling the checks
    before and after every action. Fails if a hand or the match does not terminate in time.
    An "eager" seat draws instead of playing half the time the rules allow it."""
    rng = random.Random(seed)
    bots = [BOTS.get(name, BOTS["random"]) for name in bot_names]
    match = Match(rules)
    while not match.is_over():
        assert len(match.hands) < MAX_HANDS, "the match did not end"
        hand = match.deal_random(rng)
        if dealt is not None:
            dealt(match, hand)
        bound = action_bound(hand)
        for _ in range(bound):
            if hand.is_over():
                break
            if before is not None:
                before(hand)
            seat = hand.turn
            assert seat is not None
            if (bot_names[seat] == "eager" and rules.draw_when_able and hand.table.size
                    and hand.drawable() and rng.random() < 0.5):
                hand.draw()
            else:
                play_turn(hand, bots[seat], rng)
            if after is not None:
                after(hand)
        assert hand.is_over(), f"hand not over after {bound} actions: {hand!r}"
        assert len(hand.moves) <= bound
        if hand_done is not None:
            hand_done(hand)
        match.finish_hand()
    return match


def table_tiles(line: LineOfPlay) -> list[Tile]:
    """Every tile on the table, read from the snapshot of the line of play."""
    pairs = [*line.line, *line.branches["up"], *line.branches["down"]]
    return [Tile(a, b) for a, b in pairs]


def snapshot(hand: Hand) -> tuple[Any, ...]:
    """Everything observable about a hand: the public state of the hand and its table."""
    table = hand.table
    seats = range(hand.players)
    return (
        hand.legal_plays(),
        hand.open_ends(),
        hand.line(),
        # Whether the tile at an end is a double means nothing for a closed end.
        list(table.values), [d if v != CLOSED else None for v, d in zip(table.values, table.doubles, strict=True)],
        [list(arm) for arm in table.arms],
        # The opener's left half means nothing once the opener is taken back.
        table.opener, table.opener_left if table.opener is not None else None, table.spinner,
        list(table.order), list(table.count),
        table.size, table.fives_count(), table.is_blocked(),
        [hand.held(s) for s in seats],
        [hand.held_count(s) for s in seats],
        [hand.unseen_in_hand(s) for s in seats],
        [hand.can_play(s) for s in seats],
        hand.boneyard(), hand.boneyard_size(), hand.drawable(),
        [hand.location(t) for t in hand.tiles],
        hand.turn, list(hand.points), hand.outcome(), hand.is_over(), hand.moves,
        hand.required_tile, hand.opener, hand.leader,
    )


def fives_oracle(line: LineOfPlay) -> int:
    """The All Fives count of the open ends, worked out from the line of play alone: a crosswise
    double at an end counts both halves, a lone opening tile counts its pips once, and a spinner
    arm counts only once a tile lies on it."""
    if not line.line:
        return 0
    if len(line.line) == 1 and not line.branches["up"] and not line.branches["down"]:
        a, b = line.line[0]
        return a + b
    first, last = line.line[0], line.line[-1]
    total = first[0] * (2 if first[0] == first[1] else 1)
    total += last[1] * (2 if last[0] == last[1] else 1)
    for arm in ("up", "down"):
        if line.branches[arm]:
            a, b = line.branches[arm][-1]
            total += b * (2 if a == b else 1)
    return total


def expected_award(rules: Rules, termination: Termination, ender: int | None,
                   pips: list[int], tiles: list[int]) -> tuple[tuple[int, ...], int]:
    """(winners, points) of a finished hand by the rule sheet, written out independently."""
    if termination is Termination.TARGET:
        assert ender is not None
        return ((ender % 2, ender % 2 + 2) if rules.partners else (ender,)), 0
    if rules.partners:
        sides, counts = [pips[0] + pips[2], pips[1] + pips[3]], [tiles[0] + tiles[2], tiles[1] + tiles[3]]
    else:
        sides, counts = list(pips), list(tiles)
    if termination is Termination.DOMINO:
        assert ender is not None
        side = ender % 2 if rules.partners else ender
        points = sum(sides) - sides[side]
    else:
        if rules.blocked_scoring is BlockedScoring.FEWEST_TILES:
            keys = list(zip(counts, sides, strict=True))
        else:
            keys = list(sides)
        best = min(keys)
        if keys.count(best) > 1:
            return (), 0
        side = keys.index(best)
        points = sum(sides) - sides[side]
        if rules.blocked_scoring is BlockedScoring.DIFFERENCE:
            points -= sides[side]
    if rules.fives:
        points = (points + 2) // 5 * 5
    return ((side, side + 2) if rules.partners else (side,)), points


def whole_set_check(hand: Hand) -> None:
    """Tiles are conserved: table + every hand + boneyard is the whole set, no tile twice."""
    on_table = table_tiles(hand.line())
    held = [t for s in range(hand.players) for t in hand.held(s)]
    boneyard = hand.boneyard()
    everything = on_table + held + boneyard
    assert len(everything) == len(set(everything)), "a tile is in two places"
    assert sorted(everything) == sorted(tile_set(hand.rules.max_pips))
    assert len(on_table) == hand.table.size
    assert all(hand.location(t) == TABLE for t in on_table)
    assert all(hand.location(t) == BONEYARD for t in boneyard)
    for seat in range(hand.players):
        assert hand.held_count(seat) == len(hand.held(seat))
        assert hand.unseen_in_hand(seat) == 0
        assert all(hand.location(t) == seat for t in hand.held(seat))
    assert hand.boneyard_size() == len(boneyard)


# -- the properties ------------------------------------------------------------------------------
@pytest.mark.parametrize(("variant", "players"), TABLES, ids=TABLE_IDS)
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_tiles_conserved_and_hands_terminate(variant: str, players: int, data: st.DataObject, seed: int) -> None:
    rules = data.draw(house_rules(variant, players))
    bot_names = data.draw(bots_for(players))
    counts = {"actions": 0}

    def after(hand: Hand) -> None:
        counts["actions"] += 1
        whole_set_check(hand)
        action = hand.moves[-1]
        if action.kind == "draw":
            assert action.tile is not None and hand.location(action.tile) == action.player

    def start(hand: Hand) -> None:
        whole_set_check(hand)

    match = play_checked_match(rules, bot_names, seed, before=start, after=after)
    assert match.is_over()
    assert max(match.scores) >= rules.target
    assert counts["actions"] == sum(len(h.moves) for h in match.hands)
    for hand in match.hands:
        whole_set_check(hand)
        assert hand.outcome() is not None


@pytest.mark.parametrize("players", [2, 3, 4])
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_fives_points_are_multiples_of_five(players: int, data: st.DataObject, seed: int) -> None:
    rules = data.draw(house_rules("fives", players))
    bot_names = data.draw(bots_for(players))
    totals = {"before": [0] * players}

    def before(hand: Hand) -> None:
        totals["before"] = list(hand.points)

    def after(hand: Hand) -> None:
        action = hand.moves[-1]
        count = hand.table.fives_count()
        assert count == fives_oracle(hand.line())
        assert hand.line().count == count
        expected = list(totals["before"])
        if action.kind == "play":
            assert action.points % 5 == 0
            if action.points:
                assert action.points == count
            else:
                assert count == 0 or count % 5 != 0
            expected[action.player] += action.points
        else:
            assert action.points == 0
        assert list(hand.points) == expected

    def hand_done(hand: Hand) -> None:
        outcome = hand.outcome()
        assert outcome is not None and outcome.points is not None
        assert outcome.points % 5 == 0
        if outcome.termination is Termination.TARGET:
            assert outcome.points == 0
            assert outcome.winner is not None
            assert hand.scores[outcome.winner] + hand.points[outcome.winner] >= rules.target

    match = play_checked_match(rules, bot_names, seed, before=before, after=after, hand_done=hand_done)
    assert all(score % 5 == 0 for score in match.scores)


@pytest.mark.parametrize(("variant", "players"), TABLES, ids=TABLE_IDS)
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_end_of_hand_award_follows_the_rule_sheet(variant: str, players: int, data: st.DataObject,
                                                   seed: int) -> None:
    rules = data.draw(house_rules(variant, players))
    bot_names = data.draw(bots_for(players))

    def hand_done(hand: Hand) -> None:
        outcome = hand.outcome()
        assert outcome is not None
        last = hand.moves[-1]
        if outcome.termination is Termination.DOMINO:
            assert last.kind == "play" and hand.held_count(last.player) == 0
            assert outcome.winner == last.player
        elif outcome.termination is Termination.BLOCKED:
            from_table = hand.table.is_blocked()
            all_passed = [m.kind for m in hand.moves[-players:]] == ["pass"] * players
            assert from_table or all_passed
        else:
            assert rules.fives and last.kind == "play" and last.points > 0
        pips = [sum(t.pips for t in hand.held(s)) for s in range(players)]
        tiles = [hand.held_count(s) for s in range(players)]
        event(f"hand ended: {outcome.termination}{'' if outcome.winners else ' (tie)'}")
        line = hand.line()
        if line.branches["up"] or line.branches["down"]:
            event("a spinner arm was played on")
        if any(m.kind == "pass" for m in hand.moves):
            event("somebody passed")
        winners, points = expected_award(rules, outcome.termination, outcome.winner, pips, tiles)
        assert outcome.winners == winners
        assert outcome.points == points
        if rules.fives:
            assert points % 5 == 0

    play_checked_match(rules, bot_names, seed, hand_done=hand_done)


@pytest.mark.parametrize(("variant", "players"), TABLES, ids=TABLE_IDS)
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_undo_restores_the_exact_state(variant: str, players: int, data: st.DataObject, seed: int) -> None:
    rules = data.draw(house_rules(variant, players))
    bot_names = data.draw(bots_for(players))
    states: list[tuple[Any, ...]] = []

    def before(hand: Hand) -> None:
        if not hand.moves:
            states.clear()
        states.append(snapshot(hand))

    def after(hand: Hand) -> None:
        after_state = snapshot(hand)
        left = hand.table.opener_left
        taken = hand.undo()
        assert snapshot(hand) == states[-1], f"undo of {taken} did not restore the state"
        # Put the action back exactly as it was and check we are where we were.
        redo(hand, taken, left)
        assert snapshot(hand) == after_state

    def hand_done(hand: Hand) -> None:
        final = snapshot(hand)
        moves = hand.moves
        left = hand.table.opener_left
        assert len(states) == len(moves)
        for k in range(len(moves) - 1, -1, -1):
            assert hand.undo() == moves[k]
            assert snapshot(hand) == states[k], f"undoing back to action {k} did not restore the state"
        assert hand.moves == []
        with pytest.raises(IndexError):
            hand.undo()
        for action in moves:
            redo(hand, action, left)
        assert snapshot(hand) == final

    play_checked_match(rules, bot_names, seed, before=before, after=after, hand_done=hand_done)


def redo(hand: Hand, action: Action, left: int) -> None:
    """Apply a taken-back action again through the checked API (``left``: the half the opening
    tile showed at the left end)."""
    if action.kind == "play":
        assert action.tile is not None
        if hand.table.size == 0:
            hand.play(Play(action.tile, left=left), seat=action.player)
        else:
            points = hand.play(Play(action.tile, action.end), seat=action.player)
            assert points == action.points
    elif action.kind == "draw":
        assert hand.draw(action.tile, seat=action.player) is action.tile
    else:
        hand.pass_turn(seat=action.player)


@pytest.mark.parametrize(("variant", "players"), TABLES, ids=TABLE_IDS)
@SLOW_SETTINGS
@given(data=st.data(), seed=seeds)
def test_legal_plays_agree_with_play(variant: str, players: int, data: st.DataObject, seed: int) -> None:
    rules = data.draw(house_rules(variant, players))
    bot_names = data.draw(bots_for(players))

    def before(hand: Hand) -> None:
        seat = hand.turn
        assert seat is not None
        state = snapshot(hand)
        legal = hand.legal_plays()
        assert len(set(legal)) == len(legal), "legal_plays lists a play twice"
        assert all(p.tile in hand.held(seat) for p in legal)
        for play in legal:
            points = hand.play(play)
            after_play = snapshot(hand)
            assert hand.undo().points == points
            assert snapshot(hand) == state
            # push() (the bots' unchecked play) does exactly what play() does.
            assert hand.push(play) == points
            assert snapshot(hand) == after_play
            hand.undo()
            assert snapshot(hand) == state
        opening = hand.table.size == 0
        candidates = [Play(t) for t in hand.held(seat)] if opening else [
            Play(t, end) for t in hand.held(seat) for end in ENDS]
        for play in candidates:
            if play in legal:
                continue
            with pytest.raises(IllegalAction):
                hand.play(play)
            assert snapshot(hand) == state, f"a rejected {play} changed the hand"
        # With no legal play the player draws if a tile is left, else passes; with one, both
        # are refused (drawing is allowed by the draw_when_able house rule).
        if legal:
            with pytest.raises(IllegalAction) as refused:
                hand.pass_turn()
            assert refused.value.reason is Reason.MUST_PLAY
            if hand.drawable() and opening:
                with pytest.raises(IllegalAction) as refused:
                    hand.draw()
                assert refused.value.reason is Reason.MUST_PLAY
            elif hand.drawable():
                if rules.draw_when_able:
                    drawn = hand.draw()
                    assert drawn is not None and drawn in hand.held(seat)
                    assert hand.turn == seat
                    hand.undo()
                else:
                    with pytest.raises(IllegalAction) as refused:
                        hand.draw()
                    assert refused.value.reason is Reason.MUST_PLAY
        elif hand.drawable():
            with pytest.raises(IllegalAction) as refused:
                hand.pass_turn()
            # Holding a tile that fits while in the middle of drawing a batch (draw_count > 1),
            # passing breaks must_play too, which is reported first.
            fits = hand.can_play(seat)
            if fits:
                assert rules.draw_count > 1 and hand.moves[-1].kind == "draw"
            assert refused.value.reason is (Reason.MUST_PLAY if fits else Reason.MUST_DRAW)
        else:
            assert not opening
            if rules.drawing:
                with pytest.raises(IllegalAction) as refused:
                    hand.draw()
                assert refused.value.reason is Reason.BONEYARD_EMPTY
        assert snapshot(hand) == state

    play_checked_match(rules, bot_names, seed, before=before)


@pytest.mark.parametrize(("variant", "players"), TABLES, ids=TABLE_IDS)
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_match_record_round_trips_through_check(variant: str, players: int, data: st.DataObject,
                                                seed: int) -> None:
    rules = data.draw(house_rules(variant, players))
    bot_names = data.draw(bots_for(players))
    match = play_checked_match(rules, bot_names, seed)
    record = json.loads(json.dumps(match_record(match)))
    assert record["variant"] == variant
    assert record["players"] == players
    assert len(record["hands"]) == len(match.hands)
    for hand in record["hands"]:
        # Output writes the higher half first, except the opening tile, written as it lies.
        written = [a.get("play") or a.get("draw") for a in hand["actions"][1:]]
        assert all(int(t.split("-")[0]) >= int(t.split("-")[1]) for t in written if t is not None)
    parsed = parse_record(record)
    assert parsed.rules == rules
    report = check_record(parsed)
    assert report.all_legal
    assert len(report.hands) == len(match.hands)
    for hand, outcome, judged in zip(match.hands, match.outcomes, report.hands, strict=True):
        assert [v.legal for v in judged.verdicts] == [True] * len(hand.moves)
        assert [v.points for v in judged.verdicts] == [m.points for m in hand.moves]
        assert list(judged.fives) == list(hand.points)
        assert judged.line == hand.line()
        assert outcome is not None
        assert judged.result == outcome.result()
        assert judged.winner == outcome.winner
        assert judged.winners == outcome.winners
        assert judged.points == outcome.points
    assert list(report.scores) == match.scores
    assert list(report.match_winners) == match.winners()
    assert report.match_winner == match.winner()
    out = report.to_json()
    assert out["scores"] == match.scores
    assert out["match_winners"] == match.winners()
    assert [h["result"] for h in out["hands"]] == [o.result() for o in match.outcomes if o is not None]
    assert [[a["points"] for a in h["actions"]] for h in out["hands"]] == [
        [m.points for m in hand.moves] for hand in match.hands]


def expected_opening(match: Match, hand: Hand) -> tuple[int, list[Play]]:
    """Who opens ``hand`` and with what, by the rule sheets: the first hand by the highest double
    (else the heaviest tile) or by the seat the table chose; later hands by the previous winner
    with any tile (in partners: the player left of the previous opener); after a hand with no
    winner, as in the first hand."""
    rules = match.rules
    leader: int | None = None
    if match.hands and rules.partners:
        leader = (match.hands[-1].moves[0].player + 1) % 4
    elif match.hands and match.outcomes[-1] is not None and match.outcomes[-1].winner is not None:
        leader = match.outcomes[-1].winner
    elif rules.first_player is not None:
        leader = rules.first_player
    if leader is not None:
        return leader, [Play(t) for t in hand.held(leader)]
    dealt = [(t, s) for s in range(hand.players) for t in hand.held(s)]
    doubles = [(t, s) for t, s in dealt if t.is_double]
    best, seat = max(doubles, key=lambda d: d[0].pips) if doubles else max(
        dealt, key=lambda d: (d[0].pips, d[0].high))
    return seat, [Play(best)]


@pytest.mark.parametrize(("variant", "players"), TABLES, ids=TABLE_IDS)
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_openings_follow_the_rule_sheet(variant: str, players: int, data: st.DataObject, seed: int) -> None:
    rules = data.draw(house_rules(variant, players))
    bot_names = data.draw(bots_for(players))

    def dealt(match: Match, hand: Hand) -> None:
        seat, plays = expected_opening(match, hand)
        state = snapshot(hand)
        assert hand.turn == seat
        assert hand.legal_plays() == plays
        later = hand.leader is not None
        event("opened by a leader" if later else "opened by the first-hand rule")
        for other in range(players):
            if other == seat:
                wrong = [t for t in hand.held(seat) if Play(t) not in plays]
                expected_reason = Reason.WRONG_OPENING
            else:
                wrong = hand.held(other)
                expected_reason = Reason.OUT_OF_TURN if later else Reason.WRONG_OPENING
            for tile in wrong:
                with pytest.raises(IllegalAction) as refused:
                    hand.play(Play(tile), seat=other)
                assert refused.value.reason is expected_reason, (other, tile)
        assert snapshot(hand) == state

    play_checked_match(rules, bot_names, seed, dealt=dealt)


@pytest.mark.parametrize(("variant", "players"), TABLES, ids=TABLE_IDS)
@SETTINGS
@given(data=st.data(), seed=seeds)
def test_record_without_the_deal_is_judged_the_same(variant: str, players: int, data: st.DataObject,
                                                    seed: int) -> None:
    """Hidden information is checked when known: with the reveals but no deal or boneyard the
    report is the same; with nothing known of the hands every action is still legal and scores
    the same fives points, and the first hand ends the same way."""
    rules = data.draw(house_rules(variant, players))
    bot_names = data.draw(bots_for(players))
    match = play_checked_match(rules, bot_names, seed)
    record = json.loads(json.dumps(match_record(match)))
    full = check_record(parse_record(record)).to_json()
    for hand in record["hands"]:
        del hand["deal"], hand["boneyard"]
    assert check_record(parse_record(record)).to_json() == full
    # Whether the tiles left in every hand at the end of the first hand are known from the draws
    # named in the record alone.
    first_hand = record["hands"][0]
    knowable = all(
        set(left) <= {a["draw"] for a in first_hand["actions"] if a["player"] == seat and "draw" in a}
        for seat, left in enumerate(first_hand["reveal"]))
    for hand in record["hands"]:
        del hand["reveal"]
    hidden = check_record(parse_record(record)).to_json()
    assert [len(h["actions"]) for h in hidden["hands"]] == [len(h["actions"]) for h in record["hands"]]
    illegal = [(h, k, record["hands"][h]["actions"][k], verdict["reason"])
               for h, judged in enumerate(hidden["hands"]) for k, verdict in enumerate(judged["actions"])
               if not verdict["legal"]]
    # (hand, action, the action, reason) of every legal action the hidden record got wrong; the
    # previous hand's result, which decides the next opener, for context.
    assert illegal == [], [(h, full["hands"][h - 1]["result"] if h else None) for h, *_ in illegal[:1]]
    assert [[a["points"] for a in h["actions"]] for h in hidden["hands"]] == [
        [a["points"] for a in h["actions"]] for h in full["hands"]]
    first, known = hidden["hands"][0], full["hands"][0]
    assert first["result"] == known["result"]
    event(f"first hand {first['result']}, {'knowable' if knowable else 'hidden'}")
    if knowable or first["result"] == "target":
        assert first == known
    elif first["result"] == "blocked":
        # Who holds fewer pips cannot be known without the hands.
        assert (first["winner"], first["winners"], first["points"]) == (None, [], None)
    else:
        assert (first["winner"], first["winners"], first["points"]) == (known["winner"], known["winners"], None)
