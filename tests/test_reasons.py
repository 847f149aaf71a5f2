"""Game records through ``parse_record`` and ``check_record``: one test per reason code, the
order in which reasons are reported, what an illegal action leaves behind, omitted ends,
records without a deal, the shape of the verdict JSON, and malformed records.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from referee.rules import RecordError
from referee.rules.check import check_record
from referee.rules.record import load_record, parse_record

# A two-player deal: 0 holds 6-6 and opens; 1 holds no 6; the boneyard gives 2-2, then 6-4.
P0 = ["6-6", "6-5", "6-3", "5-5", "4-4", "2-1", "1-0"]
P1 = ["5-4", "4-3", "3-3", "3-2", "2-0", "0-0", "1-1"]
BONEYARD = ["2-2", "6-4", "6-2", "6-1", "6-0", "5-3", "5-2", "5-1", "5-0", "4-2", "4-1", "4-0", "3-1", "3-0"]
DEAL = [P0, P1]
# Fives: 6-6 is in the boneyard, so 0 opens with 5-5.
FIVES_DEAL = [["5-5", "5-4", "5-3", "2-2", "1-1", "0-0", "3-2"], ["5-1", "5-0", "4-4", "3-3", "4-1", "4-0", "2-1"]]
OPEN_AND_DRAW_6_4 = ("0 6-6", "1 draw 2-2", "1 draw 6-4")  # 1 now holds 6-4, which fits

# The rule sheet's blocked hand: after these eleven plays every 0 is on the table, both ends show
# 0; 0 keeps 3-1 (4), 1 keeps 6-4 and 3-2 (15): 0 wins 11.
BLOCKED_DEAL = [["5-5", "6-5", "0-0", "4-3", "2-0", "1-0", "3-1"], ["5-0", "6-0", "4-0", "3-0", "2-1", "6-4", "3-2"]]
TIED_DEAL = [["5-5", "6-5", "0-0", "4-3", "2-0", "1-0", "6-4"], ["5-0", "6-0", "4-0", "3-0", "2-1", "6-2", "1-1"]]
BLOCKING_PLAY = (
    "0 5-5", "1 5-0 left", "0 6-5 right", "1 6-0 right", "0 0-0 left", "1 4-0 left",
    "0 4-3 left", "1 3-0 left", "0 2-0 left", "1 2-1 left", "0 1-0 left",
)

# Three players: 0 lays the last tile while 1 holds 6-2 and 3-0, and 2 holds 5-4: 20 points.
THREE_DEAL = [["6-6", "6-5", "0-0", "3-2", "5-3"], ["3-0", "6-2", "2-0", "6-0", "6-3"],
              ["5-4", "1-0", "4-3", "5-0", "6-4"]]
THREE_BONEYARD = ["4-1", "3-1", "5-5", "4-0", "5-1", "4-4", "4-2", "2-2", "3-3", "5-2", "2-1", "6-1", "1-1"]
THREE_DOMINO = (
    "0 6-6", "1 6-3 left", "2 4-3 left", "0 6-5 right", "1 draw 4-1", "1 4-1 left",
    "2 5-0 right", "0 0-0 right", "1 2-0 right", "2 1-0 left", "0 3-2 right", "1 6-0 left",
    "2 6-4 left", "0 5-3 right",
)

# Partners: 2 holds 6-6 and opens, and lays the last tile; the opponents keep 3-3, 5-5 (16) and
# 2-1, 4-1 (8); 2's partner keeps 6-2, which is not subtracted: 24 for the pair 0 and 2.
PARTNER_DEAL = [
    ["6-2", "6-1", "5-2", "4-3", "4-2", "2-0", "1-0"],
    ["6-4", "5-5", "5-3", "5-0", "3-3", "3-1", "3-0"],
    ["6-6", "6-5", "6-3", "5-1", "4-0", "1-1", "0-0"],
    ["6-0", "5-4", "4-4", "4-1", "3-2", "2-2", "2-1"],
]
PARTNER_DOMINO = (
    "2 6-6", "3 6-0 right", "0 6-1 left", "1 3-0 right", "2 1-1 left", "3 3-2 right",
    "0 2-0 right", "1 5-0 right", "2 5-1 left", "3 5-4 right", "0 5-2 left", "1 6-4 right",
    "2 6-5 right", "3 2-2 left", "0 4-2 left", "1 5-3 right", "2 4-0 left", "3 pass",
    "0 4-3 right", "1 pass", "2 0-0 left", "3 4-4 right", "0 1-0 left", "1 3-1 left",
    "2 6-3 left",
)


# -- helpers -------------------------------------------------------------------------------
def action(step: str) -> dict[str, Any]:
    """``"1 6-4 right"`` -> ``{"player": 1, "play": "6-4", "end": "right"}``; also
    ``"1 draw"`` (an unseen draw), ``"1 draw 2-2"`` and ``"1 pass"``."""
    seat, *words = step.split()
    out: dict[str, Any] = {"player": int(seat)}
    if words == ["pass"]:
        out["pass"] = True
    elif words[0] == "draw":
        out["draw"] = words[1] if len(words) > 1 else None
    else:
        out["play"] = words[0]
        if len(words) > 1:
            out["end"] = words[1]
    return out


def hand(*steps: str, deal: list[list[str]] | None = None, boneyard: list[str] | None = None,
         reveal: list[list[str] | None] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if deal is not None:
        out["deal"] = deal
    if boneyard is not None:
        out["boneyard"] = boneyard
    out["actions"] = [action(s) for s in steps]
    if reveal is not None:
        out["reveal"] = reveal
    return out


def record(*hands: dict[str, Any], variant: str = "draw", players: int = 2, **rules: Any) -> dict[str, Any]:
    return {"variant": variant, "players": players, "rules": rules, "hands": list(hands)}


def check(data: dict[str, Any]) -> dict[str, Any]:
    """The verdict JSON of ``referee check --json``."""
    return check_record(parse_record(data)).to_json()


def verdicts(*steps: str, variant: str = "draw", deal: list[list[str]] | None = DEAL,
             boneyard: list[str] | None = BONEYARD, players: int = 2, **rules: Any) -> list[dict[str, Any]]:
    """The verdicts of a one-hand record (by default the two-player deal above)."""
    report = check(record(hand(*steps, deal=deal, boneyard=boneyard), variant=variant, players=players, **rules))
    return report["hands"][0]["actions"]  # type: ignore[no-any-return]


def last(*steps: str, **kwargs: Any) -> dict[str, Any]:
    return verdicts(*steps, **kwargs)[-1]


def line(data: dict[str, Any], number: int = 0) -> list[str]:
    """The line of play at the end of hand ``number``."""
    return check_record(parse_record(data)).hands[number].line.to_dict()["line"]  # type: ignore[return-value]


def illegal(reason: str) -> dict[str, Any]:
    return {"legal": False, "reason": reason}


def legal(points: int = 0) -> dict[str, Any]:
    return {"legal": True, "points": points}


# -- one test per reason -------------------------------------------------------------------
def test_hand_over_after_the_hand_ended() -> None:
    report = check(record(hand(*BLOCKING_PLAY, "1 pass", "1 3-2 left", deal=BLOCKED_DEAL)))
    assert report["hands"][0]["actions"][-3:] == [legal(), illegal("hand_over"), illegal("hand_over")]
    assert report["hands"][0]["result"] == "blocked"


def test_hand_over_for_every_hand_after_the_match_is_won() -> None:
    report = check(record(hand(*BLOCKING_PLAY, deal=BLOCKED_DEAL), hand("0 6-6", "1 6-5 left", deal=DEAL),
                          target=11))
    assert report["hands"][1]["actions"] == [illegal("hand_over"), illegal("hand_over")]
    assert report["scores"] == [11, 0]
    assert report["match_winner"] == 0


def test_out_of_turn() -> None:
    assert verdicts("0 6-6", "0 6-5 left") == [legal(), illegal("out_of_turn")]
    assert last(*OPEN_AND_DRAW_6_4, "0 6-5 left") == illegal("out_of_turn")
    assert last("0 6-6", "0 draw") == illegal("out_of_turn")
    assert last("0 6-6", "0 pass") == illegal("out_of_turn")


def test_out_of_turn_when_a_later_hand_is_opened_by_anyone_but_the_previous_winner() -> None:
    report = check(record(hand(*BLOCKING_PLAY, deal=BLOCKED_DEAL), hand("1 6-6", "0 2-0", deal=[P1, P0])))
    assert report["hands"][0]["winner"] == 0
    assert report["hands"][1]["actions"] == [illegal("out_of_turn"), legal()]


def test_out_of_turn_before_the_opening_of_a_first_hand() -> None:
    # 0 holds 6-6 and must open: 1 is not to move, so 1's draw or pass is out of turn.
    assert last("1 draw") == illegal("out_of_turn")
    assert last("1 draw 2-2") == illegal("out_of_turn")
    assert last("1 pass") == illegal("out_of_turn")


def test_not_in_set() -> None:
    assert last("0 6-6", "1 7-6 right") == illegal("not_in_set")
    assert last("0 6-6", "1 draw 7-7") == illegal("not_in_set")
    assert last("0 10-10", deal=None, boneyard=None) == illegal("not_in_set")


def test_not_in_set_depends_on_the_set() -> None:
    deal = [["9-9", "9-8", "7-7", "6-6", "5-0", "4-0", "3-0"], ["9-7", "8-8", "8-7", "5-5", "4-4", "3-3", "2-2"]]
    assert verdicts("0 9-9", "1 9-7 right", deal=deal, boneyard=None, max_pips=9) == [legal(), legal()]


def test_duplicate() -> None:
    assert last(*OPEN_AND_DRAW_6_4, "1 6-4 right", "0 6-4 right") == illegal("duplicate")
    assert last(*OPEN_AND_DRAW_6_4, "1 6-4 right", "0 draw 6-4") == illegal("duplicate")


def test_not_in_hand() -> None:
    assert last("0 6-6", "1 6-5 right") == illegal("not_in_hand")  # in 0's hand
    assert last("0 6-6", "1 6-4 right") == illegal("not_in_hand")  # in the boneyard


def test_wrong_opening() -> None:
    assert last("0 5-5") == illegal("wrong_opening")  # not the highest double
    assert last("0 6-5") == illegal("wrong_opening")  # the holder of 6-6, another tile
    assert last("1 3-3") == illegal("wrong_opening")  # a player without 6-6
    # without doubles in the hands the heaviest tile opens: 6-3 beats 5-4
    deal = [["5-4", "5-3", "4-3", "5-2", "4-2", "3-2", "5-1"], ["6-3", "6-2", "6-1", "6-0", "4-1", "3-1", "2-1"]]
    assert verdicts("0 5-4", "1 6-3", deal=deal, boneyard=None) == [illegal("wrong_opening"), legal()]
    # partners without a deal: every tile is dealt, so whoever opens must open with 6-6
    assert verdicts("0 6-5", "1 6-6", variant="partners", players=4, deal=None, boneyard=None) == \
        [illegal("wrong_opening"), legal()]


def test_wrong_opening_after_a_tied_hand() -> None:
    # After a tie the first-hand rule applies again: 1 holds 6-6 and must open with it.
    report = check(record(hand(*BLOCKING_PLAY, deal=TIED_DEAL), hand("0 2-0", "1 6-6", deal=[P1, P0])))
    assert report["hands"][0]["winner"] is None
    assert report["hands"][1]["actions"] == [illegal("wrong_opening"), legal()]


def test_no_such_end() -> None:
    assert last(*OPEN_AND_DRAW_6_4, "1 6-4 up") == illegal("no_such_end")
    assert last(*OPEN_AND_DRAW_6_4, "1 6-4 down") == illegal("no_such_end")
    assert last("0 6-6 up") == illegal("no_such_end")  # the opening has no up end either
    # fives: no double on the table yet, so no spinner
    fives = [["6-5", "5-0", "5-3", "2-2", "1-1", "0-0", "3-2"], ["5-5", "5-4", "4-4", "3-3", "4-1", "4-0", "2-1"]]
    assert verdicts("0 6-5", "1 5-4 up", variant="fives", deal=fives, boneyard=None, first_player=0) == \
        [legal(), illegal("no_such_end")]  # 6 + 5 = 11 scores nothing


def test_end_closed() -> None:
    # fives: 5-5 opens and is the spinner; its short ends open once both long sides are taken
    steps = ("0 5-5", "1 5-1 up", "1 5-1 right", "0 5-4 down", "0 5-4 left", "1 5-0 up", "0 5-3 down")
    assert verdicts(*steps, variant="fives", deal=FIVES_DEAL, boneyard=None) == [
        legal(10),  # 5-5 alone counts once
        illegal("end_closed"),
        legal(),  # 10 + 1
        illegal("end_closed"),  # one long side is still free
        legal(5),  # 4 + 1: the open short ends hold nothing yet
        legal(5),  # 4 + 1 + 0
        legal(),  # 4 + 1 + 0 + 3
    ]


def test_ambiguous_end() -> None:
    # ends 5 and 4: 5-4 fits both
    steps = (*OPEN_AND_DRAW_6_4, "1 6-4 right", "0 6-5 left", "1 5-4")
    assert last(*steps) == illegal("ambiguous_end")
    assert last(*steps[:-1], "1 5-4 left") == legal()


def test_mismatch() -> None:
    assert last("0 6-6", "1 5-4 right") == illegal("mismatch")
    assert last("0 6-6", "1 5-4") == illegal("mismatch")  # no end fits


def test_no_drawing() -> None:
    assert last("0 6-6", "1 draw", variant="block") == illegal("no_drawing")
    assert last("0 6-6", "1 draw 2-2", variant="block") == illegal("no_drawing")
    assert verdicts("0 6-6", "1 draw 2-2", "1 pass", variant="block") == [legal(), illegal("no_drawing"), legal()]
    assert last("2 6-6", "3 draw", variant="partners", players=4, deal=PARTNER_DEAL, boneyard=None) == \
        illegal("no_drawing")


def test_boneyard_empty() -> None:
    # no deal: 1 draws the 14 tiles nobody saw, then there is nothing left to draw
    steps = ("0 6-6", *["1 draw"] * 14, "1 draw", "1 pass")
    assert verdicts(*steps, deal=None, boneyard=None) == [legal()] * 15 + [illegal("boneyard_empty"), legal()]


def test_boneyard_empty_when_the_rest_must_stay() -> None:
    # 12 of the 14 boneyard tiles stay: after two draws there is nothing left to draw
    steps = ("0 6-6", "1 draw 2-2", "1 draw 5-3", "1 draw", "1 pass")
    assert verdicts(*steps, keep_in_boneyard=12) == [legal(), legal(), legal(), illegal("boneyard_empty"), legal()]


def test_not_in_boneyard() -> None:
    assert last("0 6-6", "1 draw 6-5") == illegal("not_in_boneyard")  # in 0's hand
    assert last("0 6-6", "1 draw 3-3") == illegal("not_in_boneyard")  # in 1's own hand
    assert last("0 6-6", "1 draw 6-2") == legal()  # any boneyard tile may be drawn


def test_must_play() -> None:
    assert last(*OPEN_AND_DRAW_6_4, "1 draw") == illegal("must_play")
    assert last(*OPEN_AND_DRAW_6_4, "1 pass") == illegal("must_play")
    assert last("0 draw") == illegal("must_play")  # the opener must open


def test_drawing_when_able_by_house_rule() -> None:
    assert last(*OPEN_AND_DRAW_6_4, "1 draw", draw_when_able=True) == legal()


def test_must_draw() -> None:
    assert verdicts("0 6-6", "1 pass", "1 draw") == [legal(), illegal("must_draw"), legal()]


# -- which reason wins ---------------------------------------------------------------------
@pytest.mark.parametrize(("steps", "options", "reason"), [
    # hand_over before out_of_turn: 0 acts after 0's blocking play ended the hand
    ((*BLOCKING_PLAY, "0 draw"), {"deal": BLOCKED_DEAL, "boneyard": None}, "hand_over"),
    # out_of_turn before not_in_set, duplicate, not_in_hand and mismatch
    (("0 6-6", "0 7-7 left"), {}, "out_of_turn"),
    (("0 6-6", "0 6-6 left"), {}, "out_of_turn"),
    (("0 6-6", "0 5-4 up"), {}, "out_of_turn"),
    # not_in_set before not_in_hand, no_such_end and mismatch
    (("0 6-6", "1 9-9 up"), {}, "not_in_set"),
    # duplicate before not_in_hand and mismatch
    (("0 6-6", "1 6-6 left"), {}, "duplicate"),
    # not_in_hand before wrong_opening (the tile is someone else's, or in the boneyard)
    (("1 6-6",), {}, "not_in_hand"),
    (("0 2-2",), {}, "not_in_hand"),
    # not_in_hand before no_such_end and mismatch
    (("0 6-6", "1 6-2 up"), {}, "not_in_hand"),
    # wrong_opening before no_such_end
    (("0 5-5 up",), {}, "wrong_opening"),
    # no_such_end before mismatch
    (("0 6-6", "1 5-4 up"), {}, "no_such_end"),
    # end_closed before mismatch
    (("0 6-6", "1 5-4 up"), {"variant": "fives"}, "end_closed"),
    # not_in_set and duplicate before no_drawing
    (("0 6-6", "1 draw 7-7"), {"variant": "block"}, "not_in_set"),
    (("0 6-6", "1 draw 6-6"), {"variant": "block"}, "duplicate"),
    # no_drawing before boneyard_empty (partners have no boneyard at all)
    (("2 6-6", "3 draw 6-5"), {"variant": "partners", "players": 4, "deal": PARTNER_DEAL, "boneyard": None},
     "no_drawing"),
    # boneyard_empty before not_in_boneyard
    (("0 6-6", *["1 draw"] * 14, "1 draw 2-2"), {"deal": None, "boneyard": None}, "boneyard_empty"),
    # not_in_boneyard before must_play
    ((*OPEN_AND_DRAW_6_4, "1 draw 6-5"), {}, "not_in_boneyard"),
    # must_play before must_draw
    ((*OPEN_AND_DRAW_6_4, "1 pass"), {}, "must_play"),
])
def test_the_first_reason_in_priority_order_is_reported(steps: tuple[str, ...], options: dict[str, Any],
                                                        reason: str) -> None:
    assert last(*steps, **options) == illegal(reason)


# -- illegal actions are not applied ---------------------------------------------------------
def test_an_illegal_action_is_taken_back_and_the_same_player_is_still_to_move() -> None:
    steps = ("0 6-6", "1 5-4 right", "0 6-5 left", "1 draw 2-2", "1 draw 6-4", "1 6-4 right", "0 4-4")
    data = record(hand(*steps, deal=DEAL, boneyard=BONEYARD))
    assert check(data)["hands"][0]["actions"] == [
        legal(), illegal("mismatch"), illegal("out_of_turn"), legal(), legal(), legal(), legal(),
    ]
    assert line(data) == ["6-6", "6-4", "4-4"]


def test_an_illegal_opening_leaves_the_table_empty() -> None:
    data = record(hand("0 5-5", "1 3-3", "0 6-6", "1 5-4", deal=DEAL, boneyard=BONEYARD))
    assert check(data)["hands"][0]["actions"] == [
        illegal("wrong_opening"), illegal("wrong_opening"), legal(), illegal("mismatch"),
    ]
    assert line(data) == ["6-6"]


# -- omitted ends and the opening as written ---------------------------------------------------
def test_end_omitted_with_one_fitting_end() -> None:
    data = record(hand(*OPEN_AND_DRAW_6_4, "1 6-4 right", "0 4-4", deal=DEAL, boneyard=BONEYARD))
    assert check(data)["hands"][0]["actions"][-1] == legal()
    assert line(data) == ["6-6", "6-4", "4-4"]


def test_end_omitted_on_a_lone_double_opening_takes_the_left() -> None:
    data = record(hand(*OPEN_AND_DRAW_6_4, "1 6-4", deal=DEAL, boneyard=BONEYARD))
    assert check(data)["hands"][0]["actions"][-1] == legal()
    assert line(data) == ["4-6", "6-6"]
    # in fives too: 4 + 12 at the 6-6 = 16
    fives = record(hand(*OPEN_AND_DRAW_6_4, "1 6-4", deal=DEAL, boneyard=BONEYARD), variant="fives")
    assert check(fives)["hands"][0]["actions"][-1] == legal()
    assert line(fives) == ["4-6", "6-6"]


def test_end_omitted_with_several_fitting_ends_on_a_spinner_is_ambiguous() -> None:
    # fives: 5-5 opens (the spinner), both long sides are taken, then 5-1 fits up and down
    steps = ("0 5-5", "1 5-0 right", "0 5-3 left")
    options: dict[str, Any] = {"variant": "fives", "deal": FIVES_DEAL, "boneyard": None}
    assert verdicts(*steps, "1 5-1", **options) == [legal(10), legal(10), legal(), illegal("ambiguous_end")]
    assert last(*steps, "1 5-1 up", **options) == legal()  # 3 + 0 + 1
    assert last(*steps, "1 4-0", **options) == legal()  # only the 0 fits


@pytest.mark.parametrize(("opening", "expected"), [("2-5", ["2-5", "5-1"]), ("5-2", ["1-5", "5-2"])])
def test_the_opening_shows_its_first_half_at_the_left(opening: str, expected: list[str]) -> None:
    data = record(hand(f"0 {opening}", "1 5-1"))  # no deal: any opening
    assert check(data)["hands"][0]["actions"] == [legal(), legal()]
    assert line(data) == expected


def test_tiles_may_be_written_in_either_order() -> None:
    assert verdicts("0 6-6", "1 draw 2-2", "1 draw 4-6", "1 4-6 right", "0 4-4 right") == [legal()] * 5


# -- records without a deal ------------------------------------------------------------------
def test_without_a_deal_placements_are_judged() -> None:
    assert verdicts("0 6-6", "1 5-4 right", "1 6-4 up", "1 6-4 right", "0 4-1 left", deal=None, boneyard=None) == [
        legal(), illegal("mismatch"), illegal("no_such_end"), legal(), illegal("mismatch"),
    ]


def test_without_a_deal_fives_points() -> None:
    steps = ("0 5-5", "1 5-0 right", "0 5-1 left", "1 5-4 up", "0 5-3 down", "1 3-2 down")
    assert verdicts(*steps, variant="fives", deal=None, boneyard=None) == [
        legal(10),  # 5-5 alone
        legal(10),  # 5-5 (10) and 0
        legal(),  # 1 and 0; the open short ends hold nothing yet
        legal(5),  # 1 + 0 + 4
        legal(),  # 1 + 0 + 4 + 3
        legal(),  # 1 + 0 + 4 + 2
    ]


def test_without_a_deal_a_certain_block_ends_the_hand() -> None:
    report = check(record(hand(*BLOCKING_PLAY, "1 pass")))
    assert report["hands"][0]["actions"] == [legal()] * 11 + [illegal("hand_over")]
    assert report["hands"][0]["result"] == "blocked"
    # nobody's tiles are known: the winner and the points cannot be
    assert (report["hands"][0]["winner"], report["hands"][0]["points"]) == (None, None)
    assert report["scores"] == [0, 0]


def test_without_a_deal_the_reveal_scores_a_blocked_hand() -> None:
    report = check(record(hand(*BLOCKING_PLAY, reveal=[["3-1"], ["4-6", "3-2"]])))
    assert report["hands"][0]["result"] == "blocked"
    assert (report["hands"][0]["winner"], report["hands"][0]["winners"], report["hands"][0]["points"]) == \
        (0, [0], 11)
    assert report["scores"] == [11, 0]


def test_without_a_deal_a_domino_is_seen_and_the_reveal_scores_it() -> None:
    report = check(record(hand(*THREE_DOMINO), players=3))
    assert report["hands"][0]["actions"] == [legal()] * 14
    assert report["hands"][0]["result"] == "domino"
    assert (report["hands"][0]["winner"], report["hands"][0]["winners"]) == (0, [0])
    revealed = check(record(hand(*THREE_DOMINO, reveal=[[], ["6-2", "3-0"], ["5-4"]]), players=3))
    assert revealed["hands"][0]["points"] == 20
    assert revealed["scores"] == [20, 0, 0]


def test_without_a_deal_what_is_known_is_checked() -> None:
    # 1 was seen drawing 4-1: 0 cannot hold it
    steps = ("0 6-6", "1 draw 4-1", "1 draw", "1 6-1 right", "0 4-1 right", "0 1-1 right")
    assert verdicts(*steps, deal=None, boneyard=None) == [
        legal(), legal(), legal(), legal(), illegal("not_in_hand"), legal(),
    ]


# -- the shape of the verdict ----------------------------------------------------------------
def test_the_whole_verdict_of_a_blocked_hand() -> None:
    assert check(record(hand(*BLOCKING_PLAY, deal=BLOCKED_DEAL))) == {
        "hands": [{"actions": [legal()] * 11, "result": "blocked", "winner": 0, "winners": [0], "points": 11}],
        "scores": [11, 0],
        "match_winner": None,
        "match_winners": [],
    }


def test_every_legal_action_has_points_draws_and_passes_too() -> None:
    steps = ("2 6-6", "3 draw", "3 draw", "3 draw", "3 draw", "3 pass", "0 6-4 right")
    deal = [["6-4", "6-3", "4-0", "4-1", "5-0", "5-1"], ["6-2", "6-1", "6-0", "4-2", "5-2", "3-2"],
            ["6-6", "6-5", "0-0", "1-0", "2-0", "3-0"], ["5-5", "5-4", "5-3", "4-4", "4-3", "3-3"]]
    result = verdicts(*steps, players=4, deal=deal, boneyard=["2-1", "1-1", "2-2", "3-1"], hand_size=6)
    assert result == [legal()] * 7
    assert all(v["points"] == 0 for v in result)


def test_a_domino_hand() -> None:
    report = check(record(hand(*THREE_DOMINO, deal=THREE_DEAL, boneyard=THREE_BONEYARD), players=3))
    assert report["hands"][0] == {"actions": [legal()] * 14, "result": "domino", "winner": 0, "winners": [0],
                                  "points": 20}
    assert report["scores"] == [20, 0, 0]


def test_a_tied_hand_has_no_winner_and_no_points() -> None:
    report = check(record(hand(*BLOCKING_PLAY, deal=TIED_DEAL)))
    assert report["hands"][0] == {"actions": [legal()] * 11, "result": "blocked", "winner": None, "winners": [],
                                  "points": 0}
    assert report["scores"] == [0, 0]


def test_an_unfinished_hand_is_open() -> None:
    report = check(record(hand("0 6-6", deal=DEAL, boneyard=BONEYARD)))
    assert report["hands"][0] == {"actions": [legal()], "result": "open", "winner": None, "winners": [],
                                  "points": 0}


def test_scores_list_every_player_and_partners_share_the_pair_score() -> None:
    report = check(record(hand(*PARTNER_DOMINO, deal=PARTNER_DEAL), variant="partners", players=4))
    assert report["hands"][0] == {
        "actions": [legal()] * 25, "result": "domino", "winner": 2, "winners": [0, 2], "points": 24,
    }
    assert report["scores"] == [24, 0, 24, 0]
    assert (report["match_winner"], report["match_winners"]) == (None, [])


def test_partners_match_winners_is_the_pair() -> None:
    report = check(record(hand(*PARTNER_DOMINO, deal=PARTNER_DEAL), variant="partners", players=4, target=20))
    assert report["match_winners"] == [0, 2]
    assert report["match_winner"] is None


def test_singles_match_winner() -> None:
    report = check(record(hand(*BLOCKING_PLAY, deal=BLOCKED_DEAL), target=11))
    assert (report["match_winner"], report["match_winners"]) == (0, [0])


def test_a_second_hand_adds_to_the_scores_and_is_opened_by_the_winner() -> None:
    report = check(record(hand(*BLOCKING_PLAY, deal=BLOCKED_DEAL), hand(*BLOCKING_PLAY, deal=BLOCKED_DEAL)))
    assert [h["points"] for h in report["hands"]] == [11, 11]
    assert report["scores"] == [22, 0]


def test_fives_points_go_to_the_scores_not_to_the_hand_points() -> None:
    steps = ("0 5-5", "1 5-0 right", "0 5-4 left", "1 5-1 up")
    report = check(record(hand(*steps, deal=FIVES_DEAL), variant="fives"))
    assert report["hands"][0] == {
        "actions": [legal(10), legal(10), legal(), legal(5)],  # 10; 10 + 0; 4 + 0; 4 + 0 + 1
        "result": "open", "winner": None, "winners": [], "points": 0,
    }
    assert report["scores"] == [10, 15]


def test_fives_target_reached_mid_hand_ends_the_match() -> None:
    steps = ("0 5-5", "1 5-0 right", "0 5-4 left", "1 4-4 left")
    report = check(record(hand(*steps, deal=FIVES_DEAL), hand("0 6-6", "1 6-5 left"), variant="fives", target=10))
    assert report["hands"][0] == {
        "actions": [legal(10), illegal("hand_over"), illegal("hand_over"), illegal("hand_over")],
        "result": "target", "winner": 0, "winners": [0], "points": 0,
    }
    assert report["hands"][1]["actions"] == [illegal("hand_over"), illegal("hand_over")]
    assert report["scores"] == [10, 0]
    assert (report["match_winner"], report["match_winners"]) == (0, [0])


# -- malformed records -----------------------------------------------------------------------
def good() -> dict[str, Any]:
    return record(hand("0 6-6", "1 6-5 right", deal=None, boneyard=None))


def edit(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    data = copy.deepcopy(good())
    change(data)
    return data


def first_action(data: dict[str, Any]) -> dict[str, Any]:
    return data["hands"][0]["actions"][1]  # type: ignore[no-any-return]


@pytest.mark.parametrize(("change", "path"), [
    (lambda d: first_action(d).update(play="6-x"), "$.hands[0].actions[1].play"),
    (lambda d: first_action(d).update(play=65), "$.hands[0].actions[1].play"),
    (lambda d: first_action(d).update(end="middle"), "$.hands[0].actions[1].end"),
    (lambda d: first_action(d).pop("player"), "$.hands[0].actions[1].player"),
    (lambda d: first_action(d).update(player=2), "$.hands[0].actions[1].player"),
    (lambda d: first_action(d).update(draw="2-2"), "$.hands[0].actions[1]"),
    (lambda d: first_action(d).update({"pass": True}), "$.hands[0].actions[1]"),
    (lambda d: first_action(d).pop("play"), "$.hands[0].actions[1]"),
    (lambda d: first_action(d).update(tile="6-5"), "$.hands[0].actions[1].tile"),
    (lambda d: d["hands"][0]["actions"].append({"player": 1, "pass": False}), "$.hands[0].actions[2].pass"),
    (lambda d: d["hands"][0]["actions"].append({"player": 1, "draw": 5}), "$.hands[0].actions[2].draw"),
    (lambda d: d["hands"][0]["actions"].append({"player": 1, "draw": None, "end": "left"}),
     "$.hands[0].actions[2].end"),
    (lambda d: d["hands"][0]["actions"].append("6-6"), "$.hands[0].actions[2]"),
    (lambda d: d["hands"][0].update(actions={}), "$.hands[0].actions"),
    (lambda d: d["hands"][0].update(moves=[]), "$.hands[0].moves"),
    (lambda d: d["hands"][0].update(deal=[["6-6"], ["5-5"]]), "$.hands[0].deal"),
    (lambda d: d["hands"][0].update(deal=[P0, P0]), "$.hands[0].deal"),
    (lambda d: d["hands"][0].update(deal=[P0, P1, P1]), "$.hands[0].deal"),
    (lambda d: d["hands"][0].update(deal=[P0, ["7-6", *P1[1:]]]), "$.hands[0].deal[1][0]"),
    (lambda d: d["hands"][0].update(boneyard=["6-6"]), "$.hands[0].boneyard"),
    (lambda d: d["hands"][0].update(reveal=[["x"], []]), "$.hands[0].reveal[0][0]"),
    (lambda d: d.pop("hands"), "$.hands"),
    (lambda d: d.update(players=1), "$.players"),
    (lambda d: d.update(players="two"), "$.players"),
    (lambda d: d.update(variant="mexican train"), "$.variant"),
    (lambda d: d.update(rules=[]), "$.rules"),
    (lambda d: d["rules"].update(target="100"), "$.rules.target"),
    (lambda d: d["rules"].update(target=True), "$.rules.target"),
    (lambda d: d["rules"].update(draw_when_able=1), "$.rules.draw_when_able"),
    (lambda d: d["rules"].update(blocked_scoring="lowest"), "$.rules.blocked_scoring"),
    (lambda d: d["rules"].update(house_rule=True), "$.rules.house_rule"),
    (lambda d: d.update(names=["Ala"]), "$.names"),
])
def test_a_malformed_record_names_the_json_path(change: Callable[[dict[str, Any]], object], path: str) -> None:
    with pytest.raises(RecordError) as caught:
        parse_record(edit(change))
    assert caught.value.path == path
    assert str(caught.value).startswith(f"{path}: ")


@pytest.mark.parametrize(("key", "value"), [
    ("target", 0), ("keep_in_boneyard", -1), ("draw_count", 0), ("max_pips", 30), ("first_player", 5),
])
def test_a_rule_value_out_of_range_names_its_own_path(key: str, value: int) -> None:
    with pytest.raises(RecordError) as caught:
        parse_record(edit(lambda d: d["rules"].update({key: value})))
    assert caught.value.path == f"$.rules.{key}"


def test_a_record_that_is_not_an_object_or_not_json() -> None:
    with pytest.raises(RecordError) as caught:
        parse_record([])
    assert caught.value.path == "$"
    with pytest.raises(RecordError) as caught:
        load_record("{\"variant\": ")
    assert caught.value.path == "$"


def test_a_good_record_parses() -> None:
    parsed = parse_record(good())
    assert len(parsed.hands) == 1 and len(parsed.hands[0].actions) == 2
    assert parsed.rules.players == 2 and parsed.variant.value == "draw"
