"""Every rule and worked example of the Polish family rule sheet (and the house rules of the
other sheets in ../shared/rules/) as a test of the public API.

Every hand is built from an explicit deal, so each test knows the whole truth: who holds what,
what the boneyard gives next, and therefore exactly what the engine must say.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from referee.rules import (
    HAND_SIZES,
    BlockedScoring,
    End,
    Hand,
    IllegalAction,
    Outcome,
    Play,
    Reason,
    Rules,
    RulesError,
    Termination,
    Tile,
    Variant,
    award,
    round_to_five,
    set_size,
    tile_set,
)
from referee.rules.match import Match

DRAW = Rules()
FIVES = Rules(variant=Variant.FIVES)
BLOCK = Rules(variant=Variant.BLOCK)
PARTNERS = Rules(variant=Variant.PARTNERS, players=4)


# -- helpers -------------------------------------------------------------------------------
def tiles(text: str) -> list[Tile]:
    """``"6-6 6-5"`` -> [Tile(6, 6), Tile(6, 5)]."""
    return [Tile.parse(t) for t in text.split()]


def pips(text: str) -> int:
    return sum(t.pips for t in tiles(text))


def deal(rules: Rules, *hands: str, boneyard: str | None = None, leader: int | None = None,
         scores: list[int] | None = None) -> Hand:
    """A hand dealt exactly as written; the boneyard lists the next tile drawn first (without
    it, every tile not dealt is in the boneyard)."""
    return Hand(rules, deal=[tiles(h) for h in hands],
                boneyard=None if boneyard is None else tiles(boneyard), leader=leader, scores=scores)


def act(hand: Hand, step: str) -> int:
    """Apply one step written ``"SEAT ACTION"``: ``"0 6-6"``, ``"1 6-3 left"``, ``"1 draw"``,
    ``"1 draw 4-1"``, ``"2 pass"``. An opening ``"a-b"`` shows ``a`` at the left end.
    Returns the fives points of a play (0 otherwise)."""
    seat_text, *words = step.split()
    seat = int(seat_text)
    if words == ["pass"]:
        hand.pass_turn(seat)
        return 0
    if words[0] == "draw":
        hand.draw(Tile.parse(words[1]) if len(words) > 1 else None, seat)
        return 0
    text = words[0]
    end = End(words[1]) if len(words) > 1 else None
    left = int(text.split("-")[0]) if hand.table.size == 0 else None
    return hand.play(Play(Tile.parse(text), end, left), seat)


def run(hand: Hand, *steps: str) -> list[int]:
    """Apply every step; returns the points of each."""
    return [act(hand, step) for step in steps]


def refused(hand: Hand, step: str) -> Reason:
    """The reason ``step`` is illegal; checks that nothing changed (same moves, same player to
    move, same ends)."""
    before = (len(hand.moves), hand.turn, hand.open_ends(), [hand.held_count(s) for s in range(hand.players)])
    with pytest.raises(IllegalAction) as caught:
        act(hand, step)
    after = (len(hand.moves), hand.turn, hand.open_ends(), [hand.held_count(s) for s in range(hand.players)])
    assert after == before
    return caught.value.reason


def remaining(hand: Hand, seat: int) -> set[str]:
    return {str(t) for t in hand.held(seat)}


# The worked example "blocked two-player hand": 5-5 opens (the highest double dealt), eleven
# tiles later every tile with a 0 is on the table and both ends show 0. Player 0 is left with
# 3-1 (4 pips), player 1 with 6-4 and 3-2 (15 pips); the 14 boneyard tiles are never drawn.
BLOCKED_DEAL = ("5-5 6-5 0-0 4-3 2-0 1-0 3-1", "5-0 6-0 4-0 3-0 2-1 6-4 3-2")
# The same hand, but player 0 keeps 6-4 (10) and player 1 keeps 6-2 and 1-1 (10): a tie.
TIED_DEAL = ("5-5 6-5 0-0 4-3 2-0 1-0 6-4", "5-0 6-0 4-0 3-0 2-1 6-2 1-1")
BLOCKING_PLAY = (
    "0 5-5", "1 5-0 left", "0 6-5 right", "1 6-0 right", "0 0-0 left", "1 4-0 left",
    "0 4-3 left", "1 3-0 left", "0 2-0 left", "1 2-1 left", "0 1-0 left",
)

# A two-player deal for drawing: player 1 holds no 6, the boneyard gives 2-2, 5-3, then 6-4.
P0 = "6-6 6-5 6-3 5-5 4-4 2-1 1-0"
P1 = "5-4 4-3 3-3 3-2 2-0 0-0 1-1"
BONEYARD = "2-2 5-3 6-4 6-2 6-1 6-0 5-2 5-1 5-0 4-2 4-1 4-0 3-1 3-0"


def drawing_hand(rules: Rules = DRAW) -> Hand:
    return deal(rules, P0, P1, boneyard=BONEYARD)


# -- the tiles -----------------------------------------------------------------------------
def test_the_set_has_28_tiles_seven_doubles_and_168_pips() -> None:
    tiles_ = tile_set()
    assert len(tiles_) == 28 == set_size(6)
    assert len(set(tiles_)) == 28
    assert sorted(str(t) for t in tiles_ if t.is_double) == ["0-0", "1-1", "2-2", "3-3", "4-4", "5-5", "6-6"]
    assert sum(t.pips for t in tiles_) == 168
    for number in range(7):
        assert sum(1 for t in tiles_ if number in t) == 7


def test_a_tiles_value_is_its_pips_blank_counting_zero() -> None:
    assert Tile(6, 4).pips == 10
    assert Tile(0, 0).pips == 0
    assert max(tile_set(), key=lambda t: t.pips) is Tile(6, 6)
    assert Tile(6, 6).pips == 12


def test_a_tile_is_the_same_written_either_way() -> None:
    assert Tile(3, 6) is Tile(6, 3)
    assert Tile.parse("3-6") is Tile.parse("6-3")
    assert str(Tile(3, 6)) == "6-3"


def test_double_nine_has_55_tiles_and_double_twelve_91() -> None:
    assert len(tile_set(9)) == 55 == set_size(9) == Rules(max_pips=9).set_size
    assert len(tile_set(12)) == 91 == set_size(12) == Rules(max_pips=12).set_size
    assert Tile(9, 9) in tile_set(9)
    assert Tile(12, 12) in tile_set(12)


def test_more_than_four_players_need_a_larger_set() -> None:
    # "Komplet 28 kamieni najlepiej sprawdza się przy dwóch do czterech osobach. Większa grupa
    # potrzebuje większego kompletu, na przykład 55 kamieni z oczkami do dziewięciu."
    with pytest.raises(RulesError) as refused_rules:
        Rules(players=5)
    assert refused_rules.value.field == "players"
    assert "larger set" in str(refused_rules.value)
    rules = Rules(players=6, max_pips=9)
    assert rules.hand_size == 5
    hand = Hand.deal_random(rules, random.Random(3))
    assert [hand.held_count(s) for s in range(6)] == [5] * 6
    assert hand.boneyard_size() == 55 - 30


def test_double_nine_hand_is_opened_with_nine_nine() -> None:
    rules = Rules(max_pips=9)
    hand = deal(rules, "9-8 6-6 5-5 1-0 2-0 3-0 4-0", "9-9 9-7 8-8 7-7 1-1 2-1 3-1")
    assert hand.boneyard_size() == 55 - 14
    assert (hand.opener, hand.required_tile) == (1, Tile(9, 9))
    assert refused(hand, "1 8-8") is Reason.WRONG_OPENING
    run(hand, "1 9-9", "0 9-8 left")
    assert hand.open_ends() == {End.LEFT: 8, End.RIGHT: 9}


def test_a_tile_outside_the_set_is_not_in_set() -> None:
    hand = drawing_hand()
    run(hand, "0 6-6")
    assert refused(hand, "1 7-6 right") is Reason.NOT_IN_SET


# -- the deal ------------------------------------------------------------------------------
@pytest.mark.parametrize(("players", "each", "boneyard"), [(2, 7, 14), (3, 5, 13), (4, 5, 8)])
def test_deal_two_players_seven_each_three_or_four_five_each(players: int, each: int, boneyard: int) -> None:
    rules = Rules(players=players)
    assert rules.hand_size == each
    hand = Hand.deal_random(rules, random.Random(players))
    assert [len(hand.held(s)) for s in range(players)] == [each] * players
    assert hand.boneyard_size() == len(hand.boneyard()) == boneyard


@pytest.mark.parametrize(("deal_name", "players", "each", "boneyard"), [
    ("7/5/5", 3, 5, 13), ("7/7/6", 2, 7, 14), ("7/7/6", 3, 7, 7), ("7/7/6", 4, 6, 4),
    ("8/7/5", 2, 8, 12), ("8/7/5", 3, 7, 7), ("8/7/5", 4, 5, 8),
])
def test_house_hand_sizes(deal_name: str, players: int, each: int, boneyard: int) -> None:
    assert HAND_SIZES[deal_name][players] == each
    rules = Rules(players=players, hand_size=HAND_SIZES[deal_name][players])
    hand = Hand.deal_random(rules, random.Random(each))
    assert [len(hand.held(s)) for s in range(players)] == [each] * players
    assert hand.boneyard_size() == boneyard


def test_a_deal_of_the_wrong_size_is_rejected() -> None:
    with pytest.raises(ValueError):
        deal(DRAW, "6-6 6-5 6-4 6-3 6-2 6-1", "5-5 5-4 5-3 5-2 5-1 5-0 4-4")


# -- who opens -----------------------------------------------------------------------------
def test_the_holder_of_six_six_opens_with_it() -> None:
    hand = deal(DRAW, P1, P0)  # player 1 holds 6-6
    assert (hand.opener, hand.required_tile, hand.turn) == (1, Tile(6, 6), 1)
    assert hand.legal_plays() == [Play(Tile(6, 6))]
    run(hand, "1 6-6")
    assert hand.turn == 0


def test_without_six_six_the_next_highest_double_opens() -> None:
    # 6-6 lies in the boneyard: the holder of 5-5 opens with it.
    hand = deal(DRAW, "5-4 4-3 3-3 3-2 2-0 0-0 1-1", "6-5 6-3 5-5 4-4 2-1 1-0 6-4")
    assert (hand.opener, hand.required_tile) == (1, Tile(5, 5))


def test_any_double_outranks_the_heaviest_plain_tile() -> None:
    hand = deal(DRAW, "6-5 6-4 6-3 5-4 5-3 6-2 5-2", "1-1 1-0 2-0 3-0 2-1 3-1 4-0")
    assert (hand.opener, hand.required_tile) == (1, Tile(1, 1))


def test_without_doubles_the_heaviest_tile_opens_and_6_3_beats_5_4() -> None:
    # Every double is in the boneyard; 6-3 and 5-4 both have 9 pips, 6-3 has the higher half.
    hand = deal(DRAW, "5-4 5-3 4-3 5-2 4-2 3-2 5-1", "6-3 6-2 6-1 6-0 4-1 3-1 2-1")
    assert (hand.opener, hand.required_tile) == (1, Tile(6, 3))
    assert refused(hand, "0 5-4") is Reason.WRONG_OPENING
    run(hand, "1 6-3")
    assert hand.open_ends() == {End.LEFT: 6, End.RIGHT: 3}


@pytest.mark.parametrize("step", [
    "0 6-5",  # the holder of 6-6 opens with another tile
    "1 5-4",  # another player opens
    "1 3-3",  # another player opens with a double of their own
])
def test_a_wrong_first_opening_is_wrong_opening(step: str) -> None:
    hand = drawing_hand()
    assert refused(hand, step) is Reason.WRONG_OPENING
    assert hand.table.size == 0
    run(hand, "0 6-6")


def test_turns_go_clockwise() -> None:
    hand = deal(Rules(players=3), "6-6 5-1 1-1 1-0 2-0", "6-5 5-5 5-4 5-3 5-2", "6-4 4-4 4-3 4-2 4-1")
    seen = []
    for step in ("0 6-6", "1 6-5 left", "2 6-4 right", "0 5-1 left"):
        seen.append(hand.turn)
        act(hand, step)
    assert seen == [0, 1, 2, 0]
    assert hand.turn == 1


def test_a_first_hand_opens_on_the_highest_double_and_a_later_one_on_any_tile() -> None:
    match = Match(DRAW)
    first = match.new_hand([tiles(t) for t in BLOCKED_DEAL])
    assert first.opens_on_double
    run(first, *BLOCKING_PLAY)
    match.finish_hand()
    assert not match.new_hand().opens_on_double  # the winner leads with any tile
    assert not Hand(Rules(first_player=1)).opens_on_double
    assert not Hand(DRAW, free_opening=True).opens_on_double


@pytest.mark.parametrize(("players", "size", "certain"), [
    (2, 7, False),  # 14 of the 21 tiles that are no double: a deal without one can happen
    (3, 7, False),  # 21 of 21: just possible
    (4, 6, True),   # 24 tiles dealt: at least three doubles among them
    (4, 7, True),
])
def test_a_double_is_certainly_dealt_only_when_more_tiles_are_dealt_than_are_not_doubles(
        players: int, size: int, certain: bool) -> None:
    assert Hand(Rules(players=players, hand_size=size)).double_dealt is certain


def test_later_hands_are_opened_by_the_previous_winner_with_any_tile() -> None:
    match = Match(DRAW)
    first = match.new_hand([tiles(t) for t in BLOCKED_DEAL])
    run(first, *BLOCKING_PLAY)
    assert match.finish_hand() == Outcome(Termination.BLOCKED, 0, (0,), 11)
    assert match.next_leader() == 0
    second = match.new_hand([tiles(P1), tiles(P0)])  # player 1 holds 6-6 this time
    assert (second.turn, second.required_tile) == (0, None)
    assert refused(second, "1 6-6") is Reason.OUT_OF_TURN
    run(second, "0 2-0")
    assert second.open_ends() == {End.LEFT: 2, End.RIGHT: 0}


def test_after_a_tied_hand_the_first_hand_rule_applies_again() -> None:
    match = Match(DRAW)
    first = match.new_hand([tiles(t) for t in TIED_DEAL])
    run(first, *BLOCKING_PLAY)
    assert match.finish_hand() == Outcome(Termination.BLOCKED, None, (), 0)
    assert match.scores == [0, 0]
    assert match.next_leader() is None
    second = match.new_hand([tiles(P1), tiles(P0)])
    assert (second.opener, second.required_tile) == (1, Tile(6, 6))
    assert refused(second, "0 2-0") is Reason.WRONG_OPENING
    run(second, "1 6-6")


# -- laying tiles --------------------------------------------------------------------------
def test_ends_2_and_5_laying_5_1_on_the_5_leaves_2_and_1() -> None:
    hand = deal(DRAW, "2-5 6-6 4-4 3-3 1-0 2-0 3-0", "5-1 6-5 6-4 5-5 4-3 4-1 3-2", leader=0)
    run(hand, "0 2-5")
    assert hand.open_ends() == {End.LEFT: 2, End.RIGHT: 5}
    run(hand, "1 5-1 right")
    assert hand.open_ends() == {End.LEFT: 2, End.RIGHT: 1}
    assert hand.line().to_dict()["line"] == ["2-5", "5-1"]


def test_a_tile_must_match_the_end_it_is_laid_at() -> None:
    hand = deal(DRAW, "2-5 6-6 4-4 3-3 1-0 2-0 3-0", "5-1 6-5 6-4 5-5 4-3 4-1 3-2", leader=0)
    run(hand, "0 2-5")
    assert refused(hand, "1 5-1 left") is Reason.MISMATCH
    assert refused(hand, "1 4-3") is Reason.MISMATCH


def test_a_blank_matches_only_a_blank() -> None:
    hand = deal(DRAW, "3-0 6-6 4-4 3-3 1-1 2-2 6-5", "1-0 0-0 5-5 4-3 6-1 5-1 2-1", leader=0)
    run(hand, "0 3-0")
    assert hand.open_ends() == {End.LEFT: 3, End.RIGHT: 0}
    assert refused(hand, "1 6-1 right") is Reason.MISMATCH
    assert refused(hand, "1 2-1 right") is Reason.MISMATCH
    run(hand, "1 1-0 right")
    assert hand.open_ends() == {End.LEFT: 3, End.RIGHT: 1}


def test_you_must_play_if_you_can() -> None:
    hand = drawing_hand()
    run(hand, "0 6-6", "1 draw 2-2", "1 draw 5-3", "1 draw 6-4", "1 6-4 right")
    assert refused(hand, "0 pass") is Reason.MUST_PLAY  # 0 holds 6-5, 6-3 and 4-4
    assert refused(hand, "0 draw") is Reason.MUST_PLAY


def test_a_double_lies_crosswise_and_takes_tiles_on_its_long_sides_only() -> None:
    # 3-3 laid on a 3 end: the next tile there must carry a 3 too, laid on its other side.
    hand = deal(DRAW, "6-3 6-6 4-4 2-2 1-0 2-0 1-1", "3-3 3-1 5-5 4-3 6-1 5-1 2-1", leader=0)
    run(hand, "0 6-3", "1 3-3 right")
    assert hand.open_ends() == {End.LEFT: 6, End.RIGHT: 3}
    assert refused(hand, "0 1-0 right") is Reason.MISMATCH
    assert refused(hand, "0 1-0 up") is Reason.NO_SUCH_END
    assert refused(hand, "0 1-0 down") is Reason.NO_SUCH_END


def test_a_double_that_opens_the_hand_has_both_long_sides_free() -> None:
    hand = drawing_hand()
    run(hand, "0 6-6", "1 draw 2-2", "1 draw 5-3", "1 draw 6-4", "1 6-4 left", "0 6-5 right")
    assert hand.open_ends() == {End.LEFT: 4, End.RIGHT: 5}
    assert hand.line().to_dict()["line"] == ["4-6", "6-6", "6-5"]


def test_in_the_draw_game_a_double_never_opens_up_or_down() -> None:
    hand = drawing_hand()
    run(hand, "0 6-6", "1 draw 2-2", "1 draw 5-3", "1 draw 6-4")
    assert refused(hand, "1 6-4 up") is Reason.NO_SUCH_END
    assert refused(hand, "1 6-4 down") is Reason.NO_SUCH_END
    run(hand, "1 6-4 left", "0 6-5 right")
    # both long sides of 6-6 are taken: its short ends stay closed all the same
    assert refused(hand, "1 5-4 up") is Reason.NO_SUCH_END
    assert refused(hand, "1 3-3 down") is Reason.NO_SUCH_END
    assert set(hand.open_ends()) == {End.LEFT, End.RIGHT}


# -- drawing -------------------------------------------------------------------------------
def test_draw_one_tile_at_a_time_until_one_fits_and_keep_those_that_did_not() -> None:
    hand = drawing_hand()
    run(hand, "0 6-6")
    assert hand.legal_plays() == []
    assert hand.draw(seat=1) is Tile(2, 2)  # does not fit: draw again
    assert hand.turn == 1
    assert hand.draw(seat=1) is Tile(5, 3)
    assert hand.draw(seat=1) is Tile(6, 4)  # fits
    assert refused(hand, "1 draw") is Reason.MUST_PLAY  # play it at once
    assert {p.tile for p in hand.legal_plays()} == {Tile(6, 4)}
    run(hand, "1 6-4 right")
    assert remaining(hand, 1) == {"5-4", "4-3", "3-3", "3-2", "2-0", "0-0", "1-1", "2-2", "5-3"}
    assert hand.boneyard_size() == 11
    assert hand.turn == 0


def test_passing_while_tiles_are_left_to_draw_is_must_draw() -> None:
    hand = drawing_hand()
    run(hand, "0 6-6")
    assert refused(hand, "1 pass") is Reason.MUST_DRAW
    run(hand, "1 draw")
    assert refused(hand, "1 pass") is Reason.MUST_DRAW


def test_with_an_empty_boneyard_you_pass() -> None:
    # Four players, six tiles each (the 7/7/6 deal): a boneyard of four tiles, none with a 6.
    rules = Rules(players=4, hand_size=6)
    hand = deal(rules, "6-6 6-5 0-0 1-0 2-0 3-0", "5-5 5-4 5-3 4-4 4-3 3-3", "6-4 6-3 4-0 4-1 5-0 5-1",
                "6-2 6-1 6-0 4-2 5-2 3-2", boneyard="2-1 1-1 2-2 3-1")
    run(hand, "0 6-6", "1 draw", "1 draw", "1 draw", "1 draw")
    assert hand.boneyard_size() == 0
    assert remaining(hand, 1) == {"5-5", "5-4", "5-3", "4-4", "4-3", "3-3", "2-1", "1-1", "2-2", "3-1"}
    assert refused(hand, "1 draw") is Reason.BONEYARD_EMPTY
    run(hand, "1 pass")
    assert hand.turn == 2 and not hand.is_over()
    run(hand, "2 6-4 right")


def test_drawing_while_able_to_play_is_must_play() -> None:
    hand = drawing_hand()
    assert refused(hand, "0 draw") is Reason.MUST_PLAY  # before the opening
    run(hand, "0 6-6", "1 draw", "1 draw", "1 draw", "1 6-4 right")
    assert refused(hand, "0 draw") is Reason.MUST_PLAY


def test_drawing_when_able_is_allowed_by_house_rule() -> None:
    hand = drawing_hand(Rules(draw_when_able=True))
    run(hand, "0 6-6", "1 draw", "1 draw", "1 draw", "1 6-4 right")
    assert run(hand, "0 draw", "0 draw") == [0, 0]  # 6-2 and 6-1, although 6-5 fits
    assert {"6-2", "6-1", "6-5"} <= remaining(hand, 0)
    assert hand.turn == 0
    assert refused(hand, "0 pass") is Reason.MUST_PLAY
    run(hand, "0 6-2 left")
    assert hand.turn == 1


# -- the block game ------------------------------------------------------------------------
def test_in_the_block_game_nobody_draws() -> None:
    hand = deal(BLOCK, P0, P1, boneyard=BONEYARD)
    run(hand, "0 6-6")
    assert refused(hand, "1 draw") is Reason.NO_DRAWING
    assert refused(hand, "1 draw 2-2") is Reason.NO_DRAWING
    assert hand.drawable() == 0
    run(hand, "1 pass")  # allowed with 14 tiles in the boneyard
    assert hand.turn == 0
    assert refused(hand, "0 pass") is Reason.MUST_PLAY  # 0 holds 6-5 and 6-3


def test_block_game_blocked_when_every_player_passes() -> None:
    # 0 opens 6-6; nobody has another 6 (they sleep in the boneyard), so both pass.
    hand = deal(BLOCK, "6-6 5-4 3-2 1-0 2-2 0-0 1-1", "5-5 4-4 3-3 5-3 4-3 5-2 4-1")
    run(hand, "0 6-6", "1 pass")
    assert not hand.is_over()
    run(hand, "0 pass")
    # 0 keeps 21 pips, 1 keeps 51: 0 wins 51 - 21.
    assert hand.outcome() == Outcome(Termination.BLOCKED, 0, (0,), 30)
    assert refused(hand, "1 pass") is Reason.HAND_OVER


# -- the end of a hand and its points --------------------------------------------------------
def test_three_players_the_winner_gets_11_plus_9() -> None:
    # The sheet: you lay your last tile, one player still holds 6-2 and 3-0 (11), the other
    # 5-4 (9): you score 20. Played out from the deal, with one draw on the way.
    rules = Rules(players=3)
    hand = deal(rules, "6-6 6-5 0-0 3-2 5-3", "3-0 6-2 2-0 6-0 6-3", "5-4 1-0 4-3 5-0 6-4",
                boneyard="4-1 3-1 5-5 4-0 5-1 4-4 4-2 2-2 3-3 5-2 2-1 6-1 1-1")
    run(hand, "0 6-6", "1 6-3 left", "2 4-3 left", "0 6-5 right", "1 draw 4-1", "1 4-1 left",
        "2 5-0 right", "0 0-0 right", "1 2-0 right", "2 1-0 left", "0 3-2 right", "1 6-0 left",
        "2 6-4 left")
    assert not hand.is_over()
    run(hand, "0 5-3 right")
    assert remaining(hand, 1) == {"6-2", "3-0"}
    assert remaining(hand, 2) == {"5-4"}
    assert hand.boneyard_size() == 12  # the boneyard does not count
    assert hand.outcome() == Outcome(Termination.DOMINO, 0, (0,), 20)
    assert refused(hand, "1 6-2 left") is Reason.HAND_OVER


def test_domino_award_is_the_others_pips() -> None:
    outcome = award(Rules(players=3), Termination.DOMINO, 0, [0, pips("6-2 3-0"), pips("5-4")], [0, 2, 1])
    assert outcome == Outcome(Termination.DOMINO, 0, (0,), 20)


def test_blocked_two_players_15_against_4_gives_11() -> None:
    hand = deal(DRAW, *BLOCKED_DEAL)
    run(hand, *BLOCKING_PLAY[:-1])
    assert not hand.is_over()
    run(hand, BLOCKING_PLAY[-1])
    # Every tile with a 0 is on the table: blocked, although 14 tiles are left to draw.
    assert hand.is_over()
    assert hand.boneyard_size() == 14
    assert hand.open_ends() == {End.LEFT: 0, End.RIGHT: 0}
    assert remaining(hand, 0) == {"3-1"} and remaining(hand, 1) == {"6-4", "3-2"}
    assert hand.outcome() == Outcome(Termination.BLOCKED, 0, (0,), 11)
    assert refused(hand, "1 draw") is Reason.HAND_OVER
    assert refused(hand, "1 3-2 left") is Reason.HAND_OVER


def test_blocked_award_is_the_others_pips_minus_the_winners() -> None:
    assert award(DRAW, Termination.BLOCKED, None, [15, 4], [2, 1]) == Outcome(Termination.BLOCKED, 1, (1,), 11)
    three = Rules(players=3)
    assert award(three, Termination.BLOCKED, None, [9, 4, 20], [2, 1, 3]) == Outcome(Termination.BLOCKED, 1, (1,), 25)


def test_blocked_tie_for_the_lowest_total_means_no_winner_and_no_points() -> None:
    hand = deal(DRAW, *TIED_DEAL)
    run(hand, *BLOCKING_PLAY)
    assert remaining(hand, 0) == {"6-4"} and remaining(hand, 1) == {"6-2", "1-1"}
    assert hand.outcome() == Outcome(Termination.BLOCKED, None, (), 0)
    three = Rules(players=3)
    assert award(three, Termination.BLOCKED, None, [7, 7, 20], [1, 2, 3]) == Outcome(Termination.BLOCKED, None, (), 0)


def test_the_match_goes_to_100() -> None:
    assert DRAW.target == 100
    match = Match(DRAW)
    for _ in range(9):  # nine hands of 11 points: 99 (player 0 wins and leads each time)
        run(match.new_hand([tiles(t) for t in BLOCKED_DEAL]), *BLOCKING_PLAY)
        match.finish_hand()
        assert not match.is_over()
    assert match.scores == [99, 0]
    hand = match.new_hand([tiles(t) for t in BLOCKED_DEAL])
    run(hand, *BLOCKING_PLAY)
    match.finish_hand()
    assert match.scores == [110, 0]
    assert match.is_over() and match.winner() == 0 and match.winners() == [0]
    with pytest.raises(ValueError):
        match.new_hand([tiles(t) for t in BLOCKED_DEAL])


@pytest.mark.parametrize(("target", "over"), [(11, True), (12, False)])
def test_the_match_ends_when_the_agreed_target_is_reached(target: int, over: bool) -> None:
    match = Match(Rules(target=target))
    run(match.new_hand([tiles(t) for t in BLOCKED_DEAL]), *BLOCKING_PLAY)
    match.finish_hand()
    assert match.scores == [11, 0]
    assert match.is_over() is over
    assert match.winner() == (0 if over else None)


@pytest.mark.parametrize("target", [61, 100, 200, 250])
def test_the_target_values_of_the_sheets(target: int) -> None:
    assert Rules(target=target).target == target
    assert Rules(variant=Variant.FIVES, target=target).target == target


# -- All Fives (domino piątkowe) ---------------------------------------------------------------
# 6-6 is in the boneyard, so 5-5 opens.
FIVES_P0 = "5-5 5-4 5-3 2-2 1-1 0-0 3-2"
FIVES_P1 = "5-1 5-0 4-4 3-3 4-1 4-0 2-1"


def test_fives_a_5_5_opening_scores_10_counted_once() -> None:
    hand = deal(FIVES, FIVES_P0, FIVES_P1)
    assert run(hand, "0 5-5") == [10]
    assert hand.points == [10, 0]


def test_fives_5_5_at_one_end_and_a_blank_at_the_other_scores_10() -> None:
    hand = deal(FIVES, FIVES_P0, FIVES_P1)
    assert run(hand, "0 5-5", "1 5-0 right") == [10, 10]
    assert hand.points == [10, 10]


def test_fives_a_double_at_an_end_counts_both_halves() -> None:
    hand = deal(FIVES, "6-6 5-4 3-2 1-0 2-2 0-0 4-4", "6-3 5-5 4-3 3-3 5-2 4-1 1-1")
    # 6-6 alone: 12. Then 6-6 (12) at one end and 3 at the other: 15.
    assert run(hand, "0 6-6", "1 6-3 right") == [0, 15]
    # Two doubles, one at each end, count both halves each.
    hand2 = deal(FIVES, "4-1 6-6 4-4 3-3 2-0 3-0 6-0", "1-1 6-5 5-5 5-4 3-1 5-0 2-1", leader=0)
    assert run(hand2, "0 4-1") == [5]  # 4 + 1
    assert run(hand2, "1 1-1 right") == [0]  # 4 + 2
    assert run(hand2, "0 4-4 left") == [10]  # 8 + 2
    assert hand2.points == [15, 0]


def test_fives_an_opening_plain_tile_scores_its_ends() -> None:
    hand = deal(FIVES, "6-4 5-3 3-2 1-0 2-2 0-0 3-1", "6-3 4-3 5-2 4-1 2-1 5-1 6-1", leader=0)
    assert run(hand, "0 6-4") == [10]


def test_fives_the_spinner_short_ends_open_once_both_long_sides_are_taken() -> None:
    hand = deal(FIVES, FIVES_P0, FIVES_P1)
    assert run(hand, "0 5-5", "1 5-1 right") == [10, 0]  # 10 + 1 = 11
    assert refused(hand, "0 5-4 up") is Reason.END_CLOSED
    assert refused(hand, "0 5-4 down") is Reason.END_CLOSED
    assert run(hand, "0 5-4 left") == [5]  # 4 + 1: the empty short ends do not count
    assert hand.open_ends() == {End.LEFT: 4, End.RIGHT: 1, End.UP: 5, End.DOWN: 5}
    assert run(hand, "1 5-0 up") == [5]  # 4 + 1 + 0: the empty down end does not count
    assert run(hand, "0 5-3 down") == [0]  # 4 + 1 + 0 + 3
    assert hand.points == [15, 5]
    line = hand.line()
    assert line.spinner == 1
    assert line.branches == {"up": ((5, 0),), "down": ((5, 3),)}
    assert line.open_ends == (4, 1, 0, 3)


def test_fives_a_spinner_laid_later_opens_the_same_way() -> None:
    hand = deal(FIVES, "6-5 5-0 5-3 2-2 1-1 0-0 3-2", "5-5 5-4 4-4 3-3 4-1 4-0 2-1", leader=0)
    assert run(hand, "0 6-5", "1 5-5 right") == [0, 0]  # 11, then 6 + 10 = 16
    assert refused(hand, "0 5-0 up") is Reason.END_CLOSED
    assert run(hand, "0 5-0 right") == [0]  # 6 + 0
    assert run(hand, "1 5-4 up") == [10]  # 6 + 0 + 4
    assert hand.line().spinner == 1


def test_fives_up_and_down_need_a_spinner() -> None:
    hand = deal(FIVES, "6-5 5-0 5-3 2-2 1-1 0-0 3-2", "5-5 5-4 4-4 3-3 4-1 4-0 2-1", leader=0)
    run(hand, "0 6-5")
    assert refused(hand, "1 5-4 up") is Reason.NO_SUCH_END


def test_fives_end_of_hand_points_are_rounded_to_the_nearest_five() -> None:
    assert round_to_five(12) == 10
    assert round_to_five(13) == 15
    assert [round_to_five(p) for p in (0, 2, 3, 5, 7, 8, 10)] == [0, 0, 5, 5, 5, 10, 10]
    assert award(FIVES, Termination.DOMINO, 0, [0, 12], [0, 2]).points == 10
    assert award(FIVES, Termination.DOMINO, 0, [0, 13], [0, 2]).points == 15
    # A blocked fives hand scores the difference, rounded: 21 - 4 = 17 -> 15.
    assert award(FIVES, Termination.BLOCKED, None, [4, 21], [1, 3]) == Outcome(Termination.BLOCKED, 0, (0,), 15)
    # The basic game does not round.
    assert award(DRAW, Termination.DOMINO, 0, [0, 13], [0, 2]).points == 13


def test_fives_is_played_with_the_boneyard_and_drawing() -> None:
    hand = deal(FIVES, P0, P1, boneyard=BONEYARD)
    run(hand, "0 6-6")
    assert refused(hand, "1 pass") is Reason.MUST_DRAW
    run(hand, "1 draw", "1 draw", "1 draw")
    assert run(hand, "1 6-4 right") == [0]  # 12 + 4


def test_fives_the_match_ends_the_moment_the_target_is_reached_mid_hand() -> None:
    hand = deal(FIVES, FIVES_P0, FIVES_P1, scores=[95, 0])
    assert run(hand, "0 5-5") == [10]
    assert hand.is_over()
    assert hand.outcome() == Outcome(Termination.TARGET, 0, (0,), 0)
    assert refused(hand, "1 5-0 right") is Reason.HAND_OVER


def test_fives_match_over_mid_hand() -> None:
    match = Match(Rules(variant=Variant.FIVES, target=10))
    hand = match.new_hand([tiles(FIVES_P0), tiles(FIVES_P1)])
    run(hand, "0 5-5")
    assert match.finish_hand() == Outcome(Termination.TARGET, 0, (0,), 0)
    assert match.scores == [10, 0]
    assert match.is_over() and match.winner() == 0


def test_fives_target_is_not_reached_by_points_short_of_it() -> None:
    hand = deal(FIVES, FIVES_P0, FIVES_P1, scores=[89, 0])
    run(hand, "0 5-5")
    assert not hand.is_over()


# -- partners ------------------------------------------------------------------------------
PARTNER_DEAL = (
    "6-2 6-1 5-2 4-3 4-2 2-0 1-0",
    "6-4 5-5 5-3 5-0 3-3 3-1 3-0",
    "6-6 6-5 6-3 5-1 4-0 1-1 0-0",
    "6-0 5-4 4-4 4-1 3-2 2-2 2-1",
)
# Player 2 holds 6-6 and opens; 25 actions later player 2 lays the last tile.
PARTNER_DOMINO = (
    "2 6-6", "3 6-0 right", "0 6-1 left", "1 3-0 right", "2 1-1 left", "3 3-2 right",
    "0 2-0 right", "1 5-0 right", "2 5-1 left", "3 5-4 right", "0 5-2 left", "1 6-4 right",
    "2 6-5 right", "3 2-2 left", "0 4-2 left", "1 5-3 right", "2 4-0 left", "3 pass",
    "0 4-3 right", "1 pass", "2 0-0 left", "3 4-4 right", "0 1-0 left", "1 3-1 left",
    "2 6-3 left",
)


def partner_hand(*hands: str) -> Hand:
    return deal(PARTNERS, *hands)


def test_partners_all_28_tiles_are_dealt_seven_each() -> None:
    assert PARTNERS.hand_size == 7
    hand = partner_hand(*PARTNER_DEAL)
    assert hand.boneyard_size() == 0
    assert [hand.held_count(s) for s in range(4)] == [7, 7, 7, 7]
    with pytest.raises(ValueError):
        Rules(variant=Variant.PARTNERS, players=3)


def test_partners_the_six_six_holder_opens_the_first_hand() -> None:
    hand = partner_hand(*PARTNER_DEAL)
    assert (hand.opener, hand.required_tile) == (2, Tile(6, 6))
    assert refused(hand, "0 6-2") is Reason.WRONG_OPENING
    assert refused(hand, "2 6-5") is Reason.WRONG_OPENING


def test_partners_nobody_draws_you_pass_when_you_cannot_play() -> None:
    hand = partner_hand(*PARTNER_DEAL)
    run(hand, *PARTNER_DOMINO[:17])
    assert hand.turn == 3
    assert refused(hand, "3 draw") is Reason.NO_DRAWING
    run(hand, "3 pass")
    assert hand.turn == 0


def test_partners_a_domino_wins_both_opponents_pips_for_the_pair() -> None:
    hand = partner_hand(*PARTNER_DEAL)
    run(hand, *PARTNER_DOMINO)
    assert [remaining(hand, s) for s in range(4)] == [{"6-2"}, {"3-3", "5-5"}, set(), {"2-1", "4-1"}]
    # 16 + 8 from the opponents; the partner's 6-2 is not subtracted.
    assert hand.outcome() == Outcome(Termination.DOMINO, 2, (0, 2), 24)


def test_partners_pairs_share_their_score_and_the_next_hand_is_opened_left_of_the_opener() -> None:
    match = Match(PARTNERS)
    first = match.new_hand([tiles(t) for t in PARTNER_DEAL])
    run(first, *PARTNER_DOMINO)
    match.finish_hand()
    assert match.scores == [24, 0, 24, 0]
    assert match.next_leader() == 3  # 2 opened the first hand
    second = match.new_hand([tiles(t) for t in PARTNER_DEAL])
    assert (second.turn, second.required_tile) == (3, None)
    assert refused(second, "2 6-6") is Reason.OUT_OF_TURN
    run(second, "3 2-1")  # any tile
    run(second, "0 2-0 left")
    match.finish_hand()
    assert match.next_leader() == 0  # 3 opened the second


# Ten tiles end with 6 at both ends and every 6 on the table.
PARTNER_BLOCK = (
    "0 6-6", "1 6-1 left", "2 6-2 right", "3 1-0 left", "0 3-2 right", "1 6-3 right",
    "2 6-0 left", "3 6-4 right", "0 5-4 right", "1 6-5 right",
)


def test_partners_blocked_the_lower_pair_wins_the_opponents_pips() -> None:
    hand = partner_hand("6-6 3-2 5-4 0-0 1-1 2-0 2-1", "6-1 6-3 6-5 5-5 4-4 5-3 4-3",
                        "6-2 6-0 2-2 3-0 3-1 4-0 4-1", "1-0 6-4 3-3 4-2 5-0 5-1 5-2")
    run(hand, *PARTNER_BLOCK)
    assert hand.is_over()
    # Pair 0 and 2 keep 7 + 20 = 27, pair 1 and 3 keep 33 + 30 = 63: 63 points, nothing subtracted.
    assert hand.outcome() == Outcome(Termination.BLOCKED, 0, (0, 2), 63)


def test_partners_blocked_with_equal_pair_totals_scores_nothing() -> None:
    hand = partner_hand("6-6 3-2 5-4 0-0 1-1 2-0 2-1", "6-1 6-3 6-5 2-2 3-0 3-1 4-0",
                        "6-2 6-0 3-3 4-2 4-4 5-3 5-5", "1-0 6-4 4-1 4-3 5-0 5-1 5-2")
    run(hand, *PARTNER_BLOCK)
    assert hand.outcome() == Outcome(Termination.BLOCKED, None, (), 0)


def test_partners_award_arithmetic() -> None:
    assert award(PARTNERS, Termination.DOMINO, 1, [5, 0, 7, 3], [1, 0, 2, 1]) == \
        Outcome(Termination.DOMINO, 1, (1, 3), 12)
    # pair 0 and 2 keep 5 + 7 = 12, pair 1 and 3 keep 10 + 3 = 13
    assert award(PARTNERS, Termination.BLOCKED, None, [5, 10, 7, 3], [1, 2, 2, 1]) == \
        Outcome(Termination.BLOCKED, 0, (0, 2), 13)
    assert award(PARTNERS, Termination.BLOCKED, None, [5, 10, 7, 2], [1, 2, 2, 1]) == \
        Outcome(Termination.BLOCKED, None, (), 0)


def test_partners_match_goes_to_100_for_the_pair() -> None:
    assert PARTNERS.target == 100
    match = Match(Rules(variant=Variant.PARTNERS, players=4, target=24))
    run(match.new_hand([tiles(t) for t in PARTNER_DEAL]), *PARTNER_DOMINO)
    match.finish_hand()
    assert match.is_over()
    assert match.winners() == [0, 2]
    assert match.winner() is None


# -- house rules ---------------------------------------------------------------------------
def test_keep_two_in_the_boneyard_pass_then_blocked() -> None:
    # Four players with six tiles (7/7/6) leave four in the boneyard; the last two stay there.
    rules = Rules(players=4, hand_size=6, keep_in_boneyard=2)
    hand = deal(rules, "0-0 4-3 6-6 5-5 6-5 6-4", "2-0 1-0 1-1 2-2 3-1 3-2", "3-0 4-0 3-3 4-1 4-2 4-4",
                "2-1 5-1 5-2 5-3 5-4 6-1", boneyard="6-2 6-3 5-0 6-0", leader=0)
    run(hand, "0 0-0", "1 2-0 left", "2 3-0 right", "3 2-1 left", "0 4-3 right", "1 1-0 left",
        "2 4-0 right")
    assert hand.open_ends() == {End.LEFT: 0, End.RIGHT: 0}
    assert not hand.is_over()  # 5-0 and 6-0 are still in the boneyard
    assert hand.drawable() == 2
    assert refused(hand, "3 pass") is Reason.MUST_DRAW
    run(hand, "3 draw", "3 draw")
    assert remaining(hand, 3) >= {"6-2", "6-3"}
    assert hand.boneyard_size() == 2 and hand.drawable() == 0
    assert refused(hand, "3 draw") is Reason.BONEYARD_EMPTY
    run(hand, "3 pass", "0 pass", "1 pass")
    assert not hand.is_over()
    run(hand, "2 pass")
    # Left: 0 has 43 pips, 1 has 15, 2 has 25, 3 has 54 (the two boneyard tiles do not count).
    assert hand.outcome() == Outcome(Termination.BLOCKED, 1, (1,), 43 + 25 + 54 - 15)


def test_draw_two_tiles_at_a_time() -> None:
    hand = drawing_hand(Rules(draw_count=2))
    run(hand, "0 6-6", "1 draw", "1 draw", "1 draw")  # 2-2, 5-3, then 6-4 fits
    assert hand.legal_plays() == []
    assert refused(hand, "1 6-4 right") is Reason.MUST_DRAW  # the second tile of the pair first
    run(hand, "1 draw")  # 6-2
    assert {p.tile for p in hand.legal_plays()} == {Tile(6, 4), Tile(6, 2)}
    run(hand, "1 6-2 right")
    assert hand.held_count(1) == 7 + 4 - 1


@pytest.mark.parametrize(("scoring", "points"), [
    (BlockedScoring.DIFFERENCE, 11),  # 15 - 4
    (BlockedScoring.OPPONENTS, 15),  # the others' pips, nothing subtracted (Swedish sheet)
    (BlockedScoring.FEWEST_TILES, 15),  # 1 tile against 2; the others' pips (beginners' sheet)
])
def test_blocked_scoring_house_rules(scoring: BlockedScoring, points: int) -> None:
    hand = deal(Rules(blocked_scoring=scoring), *BLOCKED_DEAL)
    run(hand, *BLOCKING_PLAY)
    assert hand.outcome() == Outcome(Termination.BLOCKED, 0, (0,), points)


def test_default_blocked_scoring_is_the_difference() -> None:
    assert DRAW.blocked_scoring is BlockedScoring.DIFFERENCE
    assert FIVES.blocked_scoring is BlockedScoring.DIFFERENCE
    assert BLOCK.blocked_scoring is BlockedScoring.DIFFERENCE


def test_fewest_tiles_wins_then_fewest_pips() -> None:
    rules = Rules(blocked_scoring=BlockedScoring.FEWEST_TILES)
    # fewer tiles wins even with more pips
    assert award(rules, Termination.BLOCKED, None, [10, 5], [1, 2]) == Outcome(Termination.BLOCKED, 0, (0,), 5)
    # equal tiles: fewer pips wins
    assert award(rules, Termination.BLOCKED, None, [10, 8], [2, 2]) == Outcome(Termination.BLOCKED, 1, (1,), 10)
    # equal tiles and pips: nobody
    assert award(rules, Termination.BLOCKED, None, [8, 8], [2, 2]) == Outcome(Termination.BLOCKED, None, (), 0)
    # The tied hand of the draw game is won by the player with one tile left.
    hand = deal(rules, *TIED_DEAL)
    run(hand, *BLOCKING_PLAY)
    assert hand.outcome() == Outcome(Termination.BLOCKED, 0, (0,), 10)


def test_the_table_chooses_the_first_player_who_opens_with_any_tile() -> None:
    hand = deal(Rules(first_player=1), P0, P1)  # player 0 holds 6-6
    assert (hand.turn, hand.required_tile) == (1, None)
    assert refused(hand, "0 6-6") is Reason.WRONG_OPENING
    run(hand, "1 2-0")
    assert hand.open_ends() == {End.LEFT: 2, End.RIGHT: 0}
    assert hand.turn == 0


def test_first_player_must_be_a_seat() -> None:
    with pytest.raises(ValueError):
        Rules(first_player=2)


@pytest.mark.parametrize("make", [
    lambda: Rules(target=0),
    lambda: Rules(hand_size=15),  # 30 tiles from a set of 28
    lambda: Rules(keep_in_boneyard=-1),
    lambda: Rules(draw_count=0),
    lambda: Rules(max_pips=19),
    lambda: Rules(variant="dominoes"),  # type: ignore[arg-type]
])
def test_impossible_rules_are_rejected(make: Callable[[], Rules]) -> None:
    with pytest.raises(ValueError):
        make()
