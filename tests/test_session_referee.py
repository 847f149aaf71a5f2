"""The session pieces one hand-built case at a time: the stabiliser (frames -> stable states),
the referee (stable states and manual input -> events), the reveal's seat matching and the
spinner's up and down ends. Every tile is laid with exact geometry, so each test says precisely
what the table shows; whole planned hands are covered by test_session_hands.py."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from referee.layout.geometry import contacts, piece
from referee.rules import Hand, Play, Rules, Tile, Variant
from referee.rules.table import End
from referee.session.ends import place
from referee.session.eventlog import EventLog
from referee.session.events import Event, Kind
from referee.session.loop import Input, Session, restore
from referee.session.referee import Referee, RefereeConfig
from referee.session.reveal import assign_seats, groups
from referee.session.stabilise import Stabiliser, StabiliserConfig, StableState, StableTile
from referee.vision.types import Detection, FaceDown, TileReading, point, quad

W = 40.0  # tile width in pixels; a tile is 2W long
SIZE = (800, 600)
# The table names seat 0 to open the first hand with any tile, so these tables may open on any
# tile; FIRST_HAND keeps the rule sheet's first hand, opened on the highest double dealt.
FIVES = Rules(Variant.FIVES, players=2, first_player=0)
BLOCK = Rules(Variant.BLOCK, players=2, first_player=0)
FIRST_HAND = Rules(Variant.FIVES, players=2)


# -- building what the camera sees -------------------------------------------------------------
def tile(a: int, b: int, x: float, y: float, theta: float = 0.0, *, uncertain: bool = False) -> TileReading:
    """A reading of the tile a-b centred at (x, y), its axis ``theta`` degrees from +x (y points
    down): the half showing ``a`` at centre - axis*W/2, the half showing ``b`` at centre + axis*W/2."""
    ax, ay = math.cos(math.radians(theta)), math.sin(math.radians(theta))
    nx, ny = -ay, ax
    h0 = (x - ax * W / 2, y - ay * W / 2)
    h1 = (x + ax * W / 2, y + ay * W / 2)
    corners = [(x + sa * ax * W + sn * nx * W / 2, y + sa * ay * W + sn * ny * W / 2)
               for sa, sn in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    return TileReading((a, b), (point(h0), point(h1)), quad(corners), point((x, y)), 0.9, uncertain)


def across(a: int, x: float, y: float) -> TileReading:
    """The double a-a lying across a line that runs along x."""
    return tile(a, a, x, y, 90.0)


def face_down(n: int) -> tuple[FaceDown, ...]:
    """``n`` face-down tiles in a column at the left edge, well away from the line."""
    out = []
    for i in range(n):
        x, y = 40.0, 40.0 + 45.0 * i
        out.append(FaceDown(point((x, y)), quad([(x - 20, y - 40), (x + 20, y - 40), (x + 20, y + 40),
                                                (x - 20, y + 40)])))
    return tuple(out)


def detection(*tiles: TileReading, down: int = 0) -> Detection:
    return Detection(SIZE[0], SIZE[1], False, tuple(tiles), face_down(down))


OCCLUDED = Detection(SIZE[0], SIZE[1], True)


def boneyard(count: int) -> tuple[tuple[float, float], ...]:
    """Where ``count`` face-down tiles lie: a row along the top; drawing takes the last ones."""
    return tuple((60.0 + 50.0 * k, 60.0) for k in range(count))


def state(frame: int, *tiles: TileReading, down: int = 0) -> StableState:
    """A stable state as the stabiliser gives it: uncertain readings are undecided tiles."""
    stable = tuple(StableTile(t, not t.uncertain, 0 if t.uncertain else 2) for t in tiles)
    return StableState(frame, frame + 1, 2, SIZE[0], SIZE[1], stable, down, boneyard(down))


def never(image: Any) -> Detection:
    raise AssertionError("these tests feed detections")


def kinds(events: list[Event]) -> list[Kind]:
    return [e.kind for e in events]


# -- a line growing along x from an opener at (400, 300) --------------------------------------
# The opener 6-3 lengthwise: its 6 half at x=380, its 3 half at x=420 (ends at x=360 and x=440).
OPEN_63 = tile(6, 3, 400, 300)
RIGHT_34 = tile(3, 4, 480, 300)  # its 3 half against the opener's 3 end
WRONG_43 = tile(4, 3, 480, 300)  # the same place, turned round: its 4 half against the 3 end
LEFT_26 = tile(2, 6, 320, 300)  # its 6 half against the opener's 6 end
LEFT_16 = tile(1, 6, 320, 300)
MIDDLE_61 = tile(6, 1, 400, 360, 90.0)  # upright below the opener, its end against the middle of its long side


def opened(rules: Rules = FIVES, config: RefereeConfig | None = None) -> Referee:
    """A referee that has seen the 6-3 opening by seat 0 (no face-down tiles in view)."""
    ref = Referee(rules, config)
    events = ref.observe(state(0, OPEN_63))
    assert [(e.kind, e.tile, e.player) for e in events] == [(Kind.PLAY, "6-3", 0)]
    return ref


def line(ref: Referee) -> list[str]:
    return [f"{a}-{b}" for a, b in ref.hand.line().line]


# == the stabiliser ===========================================================================
def test_a_state_needs_stable_frames_agreeing_frames_and_is_dated_by_its_first() -> None:
    stab = Stabiliser(StabiliserConfig(stable_frames=3))
    det = detection(OPEN_63)
    assert stab.feed(10, det) is None
    assert stab.feed(11, det) is None
    got = stab.feed(12, det)
    assert got is not None
    assert (got.frame, got.last, got.frames) == (10, 12, 3)
    assert got.names() == {"6-3"}
    assert stab.feed(13, det) is None  # the same state is reported once


def test_a_tile_the_first_frame_after_an_arm_misses_does_not_hold_the_state_back() -> None:
    """Rendered hand 9301-007: two tiles on a plank's seam were missed in every first frame
    after an arm and read in the second; the run broke at the second, and the table's state
    (the new tile with them) came only with the next arm, three plays late. A tile read before
    the run began where it lies is no new tile: the state comes with the second frame. A tile
    never read there before still starts a new run."""
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    stab.feed(0, detection(OPEN_63, RIGHT_34))
    assert stab.feed(1, detection(OPEN_63, RIGHT_34)) is not None
    stab.feed(2, OCCLUDED)
    assert stab.feed(3, detection(OPEN_63, LEFT_26)) is None  # 4-3 missed
    got = stab.feed(4, detection(OPEN_63, LEFT_26, RIGHT_34))
    assert got is not None and (got.frame, got.last) == (3, 4)
    assert got.names() == {"6-3", "6-2", "4-3"}
    stab.feed(5, OCCLUDED)
    assert stab.feed(6, detection(OPEN_63, RIGHT_34)) is None
    assert stab.feed(7, detection(OPEN_63, RIGHT_34, LEFT_16)) is None  # new here: a new run
    got = stab.feed(8, detection(OPEN_63, RIGHT_34, LEFT_16))
    assert got is not None and (got.frame, got.names()) == (7, {"6-3", "4-3", "6-1"})


def test_a_state_is_given_again_when_a_tile_reaches_confirm_votes_sure_readings() -> None:
    stab = Stabiliser(StabiliserConfig(stable_frames=2, confirm_votes=2))
    sure, doubtful = RIGHT_34, dataclasses.replace(RIGHT_34, confidence=0.3, uncertain=True)
    assert stab.feed(0, detection(OPEN_63, sure)) is None
    first = stab.feed(1, detection(OPEN_63, doubtful))
    assert first is not None and {t.name: t.votes for t in first.tiles}["4-3"] == 1
    assert stab.feed(2, detection(OPEN_63, doubtful)) is None  # nothing new
    again = stab.feed(3, detection(OPEN_63, sure))
    assert again is not None and {t.name: t.votes for t in again.tiles}["4-3"] == 2
    assert stab.feed(4, detection(OPEN_63, sure)) is None  # given once more, not every frame
    with pytest.raises(ValueError, match="confirm_votes"):
        StabiliserConfig(confirm_votes=0)


def test_an_illegal_tile_read_surely_once_then_doubtfully_is_flagged_when_read_surely_again() -> None:
    # A rendered hand (9301-003): the illegal 4-2 lay four frames, read surely in the first and
    # the last. The first state held it with one sure reading (too few to call it illegal), and
    # no state came again while it lay there: the illegal placement went unflagged.
    session = Session(FIVES, never, referee_config=RefereeConfig(opener=0))
    doubtful = dataclasses.replace(WRONG_43, confidence=0.3, uncertain=True)
    for frame, det in enumerate([detection(OPEN_63), detection(OPEN_63), OCCLUDED, detection(OPEN_63, WRONG_43),
                                 detection(OPEN_63, doubtful), detection(OPEN_63, doubtful),
                                 detection(OPEN_63, WRONG_43)]):
        session.frame(frame, detection=det)
    assert [(e.kind, e.tile, e.reason) for e in session.events] == [(Kind.PLAY, "6-3", None),
                                                                  (Kind.ILLEGAL, "4-3", "mismatch")]


def test_an_occluded_frame_breaks_the_run() -> None:
    stab = Stabiliser(StabiliserConfig(stable_frames=3))
    det = detection(OPEN_63)
    frames = [det, det, OCCLUDED, det, det]
    assert [stab.feed(i, d) for i, d in enumerate(frames)] == [None] * 5
    got = stab.feed(5, det)
    assert got is not None and got.frame == 3


def test_a_frame_in_which_vision_found_nothing_is_skipped() -> None:
    """Vision that finds nothing at all in every other frame (its face colour flipping to a
    patch of the table) must not keep the table from ever being stable."""
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    det, blank = detection(OPEN_63, down=14), detection()
    assert stab.feed(0, det) is None
    assert stab.feed(1, blank) is None
    got = stab.feed(2, det)
    assert got is not None and (got.frame, got.last, got.frames) == (0, 2, 2)
    assert got.names() == {"6-3"} and got.face_down == 14


def test_a_tile_vision_loses_in_one_frame_among_many_does_not_break_the_run() -> None:
    """A crowded line: vision loses one of four tiles in one frame of three. The state still
    comes after three frames, dated by the first, with all four tiles."""
    stab = Stabiliser(StabiliserConfig(stable_frames=3))
    full = detection(OPEN_63, RIGHT_34, LEFT_26, tile(4, 1, 560, 300))
    lapse = detection(OPEN_63, RIGHT_34, tile(4, 1, 560, 300))
    assert [stab.feed(i, d) for i, d in enumerate([full, lapse])] == [None, None]
    got = stab.feed(2, full)
    assert got is not None and (got.frame, got.last) == (0, 2)
    assert got.names() == {"6-3", "4-3", "6-2", "4-1"}


def test_a_tile_gone_for_stable_frames_frames_or_many_at_once_is_a_new_table() -> None:
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    line = (OPEN_63, RIGHT_34, LEFT_26, tile(4, 1, 560, 300))
    stab.feed(0, detection(*line))
    assert stab.feed(1, detection(*line)) is not None
    taken = detection(*line[:3])  # 4-1 taken back
    assert stab.feed(2, taken) is None  # one frame: a lapse, the run goes on
    assert stab.feed(3, taken) is None  # the second in a row: gone, a new run from here
    got = stab.feed(4, taken)
    assert got is not None and got.frame == 3 and got.names() == {"6-3", "4-3", "6-2"}
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    stab.feed(0, detection(*line))
    stab.feed(1, detection(*line))
    assert stab.feed(2, detection(*line[:2])) is None  # two of four gone at once: a new run
    got = stab.feed(3, detection(*line[:2]))
    assert got is not None and got.frame == 2 and got.names() == {"6-3", "4-3"}


def test_an_unsure_tiles_halves_read_surely_over_the_run_are_kept() -> None:
    """A 4-3 read unsure in every frame: its 3 half surely each time, its 4 half as 4, 5 and 6
    unsurely. The stable tile keeps the 3 as that half's sure number, and no number for the
    other; a half read surely as two numbers has none either."""
    stab = Stabiliser(StabiliserConfig(stable_frames=3))
    frames = []
    for other in (4, 5, 6):
        t = dataclasses.replace(tile(3, other, 480, 300, uncertain=True), half_confidence=(0.9, 0.1))
        frames.append(detection(OPEN_63, t))
    got = [stab.feed(i, d) for i, d in enumerate(frames)][-1]
    assert got is not None
    (unsure,) = [t for t in got.tiles if not t.decided]
    assert unsure.sure_halves == (3, None)
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    for i, near in enumerate((3, 2)):
        t = dataclasses.replace(tile(near, 4, 480, 300, uncertain=True), half_confidence=(0.9, 0.1))
        last = stab.feed(i, detection(OPEN_63, t))
    assert last is not None and [t.sure_halves for t in last.tiles if not t.decided] == [(None, None)]


def test_an_unread_tile_whose_far_half_is_read_surely_is_pinned_down_at_its_end() -> None:
    """4-3 laid at the right end (3 against the opener's 3), read unsure in every frame: its
    near half flickers, its far half reads 4 surely. The rules give the near half (3), vision the
    far one: 4-3, played marked inferred. A far half read surely as blank is not enough (a box
    slid off the tile's end reads the table as a blank half), nor as the end's number."""
    def seen(far: int) -> StableState:
        reading = tile(5, far, 480, 300, uncertain=True)
        stable = (StableTile(OPEN_63, True, 2), StableTile(reading, False, 0, (None, far)))
        return StableState(2, 3, 2, SIZE[0], SIZE[1], stable, 0)

    ref = opened()
    (play,) = ref.observe(seen(4))
    assert (play.tile, play.end, play.player, play.inferred) == ("4-3", "right", 1, True)
    for far in (0, 3):  # blank, or the end's own number (a double in line: a straddling box)
        ref = opened()
        assert ref.observe(seen(far)) == [] and ref.on_table() == ["6-3"]


def test_miss_share_must_be_a_share_below_one() -> None:
    for bad in (-0.1, 1.0, "a third"):
        with pytest.raises(ValueError, match="miss_share"):
            StabiliserConfig(miss_share=bad)  # type: ignore[arg-type]
    for bad in (0, 1.5, None):
        with pytest.raises(ValueError, match="half_sure"):
            StabiliserConfig(half_sure=bad)  # type: ignore[arg-type]
    for bad in (0.2, 1.0, "half"):  # below miss_share (a third), or all
        with pytest.raises(ValueError, match="lapse_share"):
            StabiliserConfig(lapse_share=bad)  # type: ignore[arg-type]


def test_a_table_cleared_for_stable_frames_frames_is_empty() -> None:
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    det, blank = detection(OPEN_63), detection()
    stab.feed(0, det)
    assert stab.feed(1, det) is not None
    assert stab.feed(2, blank) is None  # one could be a dropout
    got = stab.feed(3, blank)  # two are not: the empty table is seen from the first of them
    assert got is not None and got.tiles == () and got.face_down == 0 and got.frame == 2


def test_a_state_tells_the_last_frame_no_state_took_in() -> None:
    # A hand over the table shows as an occluded frame, or as frames that never settle (an arm
    # vision missed); a table vision goes blind on for stable_frames frames settles, and says
    # nothing came over it.
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    det, blank = detection(OPEN_63), detection()
    stab.feed(0, det)
    first = stab.feed(1, det)
    assert first is not None and first.unsettled == -1
    stab.feed(2, OCCLUDED)
    stab.feed(3, det)
    again = stab.feed(4, det)  # the table after the arm: given again
    assert again is not None and again.unsettled == 2
    stab.feed(5, detection(OPEN_63, RIGHT_34))
    got = stab.feed(6, detection(OPEN_63, RIGHT_34))
    assert got is not None and got.unsettled == 2
    stab.feed(7, blank)  # a lapse of one frame, then the table again: frame 7 never settled
    stab.feed(8, detection(OPEN_63, RIGHT_34, LEFT_26))
    got = stab.feed(9, detection(OPEN_63, RIGHT_34, LEFT_26))
    assert got is not None and got.unsettled == 7
    stab.feed(10, blank)
    blind = stab.feed(11, blank)  # two blank frames settle: vision lost the table, no hand came
    assert blind is not None and blind.tiles == () and blind.unsettled == 7
    stab.feed(12, detection(OPEN_63))  # a run of one frame, broken by the next: unsettled
    stab.feed(13, detection(OPEN_63, LEFT_26))
    got = stab.feed(14, detection(OPEN_63, LEFT_26))
    assert got is not None and got.unsettled == 12


def test_a_state_tells_since_when_no_frame_showed_more_face_down_tiles() -> None:
    # Rendered hand 9309-000: a back drawn in a frame between arms that never settled (one
    # frame), the drawer's tile laid in frames that never agreed; the state after shows both.
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    stab.feed(0, detection(OPEN_63, down=14))
    first = stab.feed(1, detection(OPEN_63, down=14))
    assert first is not None and first.down_since == 0
    stab.feed(2, OCCLUDED)
    stab.feed(3, detection(OPEN_63, down=13))  # one frame: no state
    stab.feed(4, OCCLUDED)
    stab.feed(5, detection(OPEN_63, down=12))  # a run of one frame, reading the pile short
    stab.feed(6, detection(OPEN_63, RIGHT_34, down=13))
    got = stab.feed(7, detection(OPEN_63, RIGHT_34, down=13))
    assert got is not None and got.frame == 6 and got.face_down == 13 and got.down_since == 3
    stab.feed(8, OCCLUDED)
    stab.feed(9, detection(OPEN_63, RIGHT_34, down=14))  # one more: it cannot be told that
    stab.feed(10, detection(OPEN_63, RIGHT_34, down=13))  # the backs went before this state
    got = stab.feed(11, detection(OPEN_63, RIGHT_34, down=13))
    assert got is not None and got.frame == 9 and got.down_since == 9


def test_stills_one_frame_a_state_do_not_tell_when_a_hand_came_until_an_arm_shows() -> None:
    # Stills taken between moves (one frame makes a state) show no arm: nothing tells when a
    # hand came, so the states say so (a take-back is then judged as before); once an arm
    # shows, they do.
    stab = Stabiliser(StabiliserConfig(stable_frames=1))
    first = stab.feed(0, detection(OPEN_63))
    assert first is not None and first.unsettled is None
    later = stab.feed(1, detection(OPEN_63, RIGHT_34))
    assert later is not None and later.unsettled is None
    stab.feed(2, OCCLUDED)
    after = stab.feed(3, detection(OPEN_63))
    assert after is not None and after.unsettled == 2


def test_a_frame_losing_most_tiles_is_a_lapse_of_vision_not_a_new_table() -> None:
    # An arm vision did not see: the frame shows one tile of the line's four, and the boneyard
    # taken for a dozen tiles. It is skipped; the frames either side agree, and the table that
    # follows is read as a state (before, that frame started a new run and the next play's
    # state came a frame late, or never, with an arm over the table every few frames).
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    line = (OPEN_63, RIGHT_34, LEFT_26, tile(5, 5, 560, 300, 90.0))
    stab.feed(0, detection(*line, down=5))
    assert stab.feed(1, detection(*line, down=5)) is not None
    stab.feed(2, OCCLUDED)
    stab.feed(3, detection(*line, tile(1, 2, 240, 300), down=5))
    assert stab.feed(4, detection(LEFT_26, down=12)) is None  # the arm vision missed
    got = stab.feed(5, detection(*line, tile(1, 2, 240, 300), down=5))
    assert got is not None and got.names() == {"6-3", "4-3", "6-2", "5-5", "2-1"} and got.frame == 3


def test_a_lapse_that_lasts_is_the_table_now() -> None:
    # The line pushed aside: every tile moved at once. Held as a lapse for one frame, then the
    # frames that agree on the moved table are a state, from the first of them.
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    line = (OPEN_63, RIGHT_34, LEFT_26)
    stab.feed(0, detection(*line))
    assert stab.feed(1, detection(*line)) is not None
    moved = tuple(dataclasses.replace(t, center=point((t.center[0], t.center[1] + 3 * W)),
                                      halves=(point((t.halves[0][0], t.halves[0][1] + 3 * W)),
                                              point((t.halves[1][0], t.halves[1][1] + 3 * W))),
                                      corners=quad([(x, y + 3 * W) for x, y in t.corners])) for t in line)
    assert stab.feed(2, detection(*moved)) is None
    got = stab.feed(3, detection(*moved))
    assert got is not None and got.frame == 2 and got.names() == {"6-3", "4-3", "6-2"}


def test_a_flickering_value_is_voted() -> None:
    stab = Stabiliser(StabiliserConfig(stable_frames=3))
    stab.feed(0, detection(tile(6, 3, 400, 300)))
    stab.feed(1, detection(tile(3, 6, 400, 300, 180.0)))
    got = stab.feed(2, detection(tile(6, 5, 400, 300)))
    assert got is not None
    (only,) = got.tiles
    assert only.decided and only.name == "6-3" and only.votes == 2
    assert only.reading.pips in ((6, 3), (3, 6))  # the geometry of a reading that said 6-3
    assert got.names() == {"6-3"}


def test_a_tie_between_two_confident_readings_is_undecided() -> None:
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    stab.feed(0, detection(tile(6, 3, 400, 300)))
    got = stab.feed(1, detection(tile(6, 5, 400, 300)))
    assert got is not None
    (only,) = got.tiles
    assert not only.decided and only.votes == 1
    assert got.names() == set()
    assert got.detection().tiles[0].uncertain  # handed on to the layout as uncertain


def test_uncertain_readings_do_not_vote() -> None:
    stab = Stabiliser(StabiliserConfig(stable_frames=3))
    stab.feed(0, detection(tile(6, 3, 400, 300)))
    stab.feed(1, detection(tile(6, 5, 400, 300, uncertain=True)))
    got = stab.feed(2, detection(tile(6, 5, 400, 300, uncertain=True)))
    assert got is not None
    (only,) = got.tiles
    assert only.decided and only.name == "6-3" and only.votes == 1

    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    stab.feed(0, detection(tile(6, 5, 400, 300, uncertain=True)))
    got = stab.feed(1, detection(tile(6, 5, 400, 300, uncertain=True)))
    assert got is not None
    assert not got.tiles[0].decided and got.tiles[0].votes == 0


def test_the_face_down_count_is_the_median_over_the_frames() -> None:
    stab = Stabiliser(StabiliserConfig(stable_frames=3))
    stab.feed(0, detection(OPEN_63, down=5))
    stab.feed(1, detection(OPEN_63, down=4))  # one face-down tile missed in one frame
    got = stab.feed(2, detection(OPEN_63, down=5))
    assert got is not None and got.face_down == 5


def test_a_tile_moving_a_little_is_the_same_tile() -> None:
    stab = Stabiliser(StabiliserConfig(stable_frames=2))  # match: half a tile width
    assert stab.feed(0, detection(tile(6, 3, 400, 300))) is None
    got = stab.feed(1, detection(tile(6, 3, 400 + 0.3 * W, 300 - 0.2 * W)))
    assert got is not None and got.frame == 0 and got.names() == {"6-3"}


def test_a_tile_moving_far_starts_a_new_run() -> None:
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    assert stab.feed(0, detection(tile(6, 3, 400, 300))) is None
    assert stab.feed(1, detection(tile(6, 3, 400 + W, 300))) is None
    got = stab.feed(2, detection(tile(6, 3, 400 + W, 300)))
    assert got is not None and got.frame == 1


def test_a_tile_read_surely_a_little_off_a_doubtful_box_is_that_tile() -> None:
    """Vision boxed a tile of a run 0.6 of a width along it and read nothing surely there; the
    next frame reads it surely in its place: the same tile, and the run goes on (in the sample
    hand the new play's state came three frames late, together with the next play)."""
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    assert stab.feed(0, detection(OPEN_63, tile(0, 0, 480 - 0.6 * W, 300, uncertain=True))) is None
    got = stab.feed(1, detection(OPEN_63, RIGHT_34))
    assert got is not None and got.frame == 0 and got.names() == {"6-3", "4-3"}
    # A tile read surely where the run had nothing, or only a sure tile, is new: a new run.
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    assert stab.feed(0, detection(OPEN_63, tile(0, 0, 480 - 1.2 * W, 300, uncertain=True))) is None
    assert stab.feed(1, detection(OPEN_63, RIGHT_34)) is None


def test_unsure_match_reaches_at_least_as_far_as_match() -> None:
    with pytest.raises(ValueError, match="unsure_match must be a number of tile widths from match to below 2"):
        StabiliserConfig(match=0.5, unsure_match=0.4)


@pytest.mark.parametrize(("second", "names"), [((OPEN_63, RIGHT_34), {"6-3", "4-3"}), ((), set())],
                         ids=["appears", "disappears"])
def test_a_tile_appearing_or_disappearing_starts_a_new_run(second: tuple[TileReading, ...], names: set[str]) -> None:
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    # (the boneyard stays in view: a frame in which nothing at all is found is a dropout, below)
    assert stab.feed(0, detection(OPEN_63, down=3)) is None
    assert stab.feed(1, detection(*second, down=3)) is None
    got = stab.feed(2, detection(*second, down=3))
    assert got is not None and got.frame == 1
    assert got.names() == names


# == the referee: plays ========================================================================
def test_the_opening_and_a_play_score_fives_points() -> None:
    ref = Referee(FIVES)
    (opening,) = ref.observe(state(0, OPEN_63))
    assert opening == Event(0, Kind.PLAY, tile="6-3", player=0, points=0)  # 6 + 3 = 9: nothing
    (play,) = ref.observe(state(4, OPEN_63, RIGHT_34))
    assert play == Event(4, Kind.PLAY, tile="4-3", end="right", player=1, points=10)  # 6 + 4
    assert ref.match.scores == [0, 0] and ref.hand.points == [0, 10]
    assert line(ref) == ["6-3", "3-4"]
    assert ref.hand.turn == 0


def test_a_double_opener_scores_both_halves() -> None:
    """5-5 across the line then 5-0 beside it: 5 + 5 = 10, then 0 + 2 * 5 = 10. The first tile
    beside a lone double opens its "left" arm, whichever side of the double it lies on."""
    ref = Referee(FIVES)
    assert ref.observe(state(0, across(5, 400, 300))) == [Event(0, Kind.PLAY, tile="5-5", player=0, points=10)]
    got = ref.observe(state(2, across(5, 400, 300), tile(5, 0, 460, 300)))
    assert got == [Event(2, Kind.PLAY, tile="5-0", end="left", player=1, points=10)]
    assert ref.hand.points == [10, 10]


def test_a_play_through_the_session_is_dated_by_the_first_frame_showing_it() -> None:
    session = Session(FIVES, never)
    assert session.frame(0, detection=detection(OPEN_63)) == []
    assert kinds(session.frame(1, detection=detection(OPEN_63))) == [Kind.PLAY]
    session.frame(2, detection=OCCLUDED)
    assert session.frame(3, detection=detection(OPEN_63, RIGHT_34)) == []
    (play,) = session.frame(4, detection=detection(OPEN_63, RIGHT_34))
    assert (play.frame, play.tile, play.end, play.player, play.points) == (3, "4-3", "right", 1, 10)
    assert session.events[-1] is play


def test_a_tile_laid_the_wrong_way_round_is_illegal_until_laid_right() -> None:
    ref = opened()
    (illegal,) = ref.observe(state(2, OPEN_63, WRONG_43))
    assert illegal == Event(2, Kind.ILLEGAL, tile="4-3", end="right", reason="mismatch", player=1)
    assert ref.observe(state(3, OPEN_63, WRONG_43)) == []  # still there: reported once
    assert ref.observe(state(4, OPEN_63)) == []  # taken away
    assert line(ref) == ["6-3"]
    (play,) = ref.observe(state(6, OPEN_63, RIGHT_34))
    assert (play.kind, play.tile, play.end, play.player) == (Kind.PLAY, "4-3", "right", 1)


def test_a_tile_that_looks_illegal_after_vision_lost_the_line_is_not_called_illegal() -> None:
    # A state lost sight of the line after the last move (a close lamp blinded vision): a play
    # it missed may have changed the end the new tile went to, so the referee says it cannot
    # follow. Once a move is seen with the line in view, a wrong tile is illegal again.
    ref = opened()
    assert ref.observe(state(2)) == []  # nothing read: the opener unseen
    (unfollowed,) = ref.observe(state(4, OPEN_63, WRONG_43))
    assert (unfollowed.kind, unfollowed.reason, unfollowed.tiles) == (Kind.UNFOLLOWED, "line_unseen", ("4-3",))
    assert ref.observe(state(6, OPEN_63)) == []
    (play,) = ref.observe(state(8, OPEN_63, RIGHT_34))
    assert (play.kind, play.tile, play.end, play.player) == (Kind.PLAY, "4-3", "right", 1)
    (illegal,) = ref.observe(state(10, OPEN_63, RIGHT_34, tile(1, 5, 320, 300)))  # its 5 against the 6
    assert (illegal.kind, illegal.tile, illegal.reason, illegal.player) == (Kind.ILLEGAL, "5-1", "mismatch", 0)


def test_an_illegal_placement_read_surely_only_once_waits_for_a_second_reading() -> None:
    # One sure reading among unsure ones (glare over half a tile) can be a misread, and a
    # misread makes a legal play look illegal: the referee waits for a second sure reading.
    ref = opened()
    once = StableState(2, 3, 2, SIZE[0], SIZE[1], (StableTile(OPEN_63, True, 2), StableTile(WRONG_43, True, 1)), 0)
    assert ref.observe(once) == []
    twice = StableState(4, 5, 2, SIZE[0], SIZE[1], (StableTile(OPEN_63, True, 2), StableTile(WRONG_43, True, 2)), 0)
    (illegal,) = ref.observe(twice)
    assert (illegal.kind, illegal.tile, illegal.reason) == (Kind.ILLEGAL, "4-3", "mismatch")


def test_an_illegal_placement_read_only_just_surely_is_not_called_until_read_more_surely() -> None:
    # Vision's sure readings just above its bar are its least reliable (on rendered hands 7 of
    # its 9 wrong sure readings were below 0.6): a 4-0 read as 1-0 at 0.505 in one still view,
    # seen three times, was called an illegal placement.
    ref = opened()
    weak = dataclasses.replace(WRONG_43, confidence=0.55)
    tiles = (StableTile(OPEN_63, True, 2), StableTile(weak, True, 3, peak=0.55))
    assert ref.observe(StableState(2, 4, 3, SIZE[0], SIZE[1], tiles, 0)) == []
    surer = (StableTile(OPEN_63, True, 2), StableTile(weak, True, 4, peak=0.8))  # one frame read it at 0.8
    (illegal,) = ref.observe(StableState(2, 5, 4, SIZE[0], SIZE[1], surer, 0))
    assert (illegal.kind, illegal.tile, illegal.reason) == (Kind.ILLEGAL, "4-3", "mismatch")


def test_a_half_against_the_line_read_surely_is_enough_to_call_a_mismatch() -> None:
    """Rendered hand 9302-002: a black 4-1 laid with its 1 against a 0 end was read twice at
    0.52, its 4 half in doubt and its 1 half at 0.96; the illegal placement was never called.
    The 1 against the 0 is what makes it illegal, however the far half reads: it is called. A
    doubtful half against the line is not enough."""
    ref = opened()
    far_doubtful = dataclasses.replace(tile(1, 4, 480, 300), confidence=0.52, half_confidence=(0.96, 0.52))
    tiles = (StableTile(OPEN_63, True, 2), StableTile(far_doubtful, True, 2, peak=0.52))
    (illegal,) = ref.observe(StableState(2, 3, 2, SIZE[0], SIZE[1], tiles, 0))
    assert (illegal.kind, illegal.tile, illegal.reason, illegal.player) == (Kind.ILLEGAL, "4-1", "mismatch", 1)
    ref = opened()
    near_doubtful = dataclasses.replace(far_doubtful, half_confidence=(0.52, 0.96))
    tiles = (StableTile(OPEN_63, True, 2), StableTile(near_doubtful, True, 2, peak=0.52))
    assert ref.observe(StableState(2, 3, 2, SIZE[0], SIZE[1], tiles, 0)) == []


def test_an_opening_read_only_just_surely_waits_until_read_more_surely() -> None:
    # Rendered hand 9302-003: a coloured set's pastel backs read as the double blank at just
    # over vision's bar, and the referee opened the hand with it; every play after was judged
    # against a line that was not there. The opening sets the line: it needs the bar an
    # illegal call needs.
    ref = Referee(FIVES)
    weak = dataclasses.replace(OPEN_63, confidence=0.55)
    assert ref.observe(StableState(0, 2, 3, SIZE[0], SIZE[1], (StableTile(weak, True, 3, peak=0.55),), 0)) == []
    assert ref.observe(StableState(0, 3, 1, SIZE[0], SIZE[1], (StableTile(OPEN_63, True, 1, peak=0.9),), 0)) == []
    (play,) = ref.observe(StableState(0, 4, 4, SIZE[0], SIZE[1], (StableTile(weak, True, 4, peak=0.8),), 0))
    assert (play.kind, play.tile, play.player) == (Kind.PLAY, "6-3", 0)


# The rule sheet's first hand: 5-5 across at (400, 300), 6-5 to its left (its 5 against the
# double's long side), 6-0 beyond it (its 6 against the 6-5's 6 end).
SPINNER_55 = across(5, 400, 300)
LEFT_65 = tile(6, 5, 340, 300)
LEFT_06 = tile(0, 6, 260, 300)


def test_a_first_hand_seen_first_as_a_plain_tile_waits_for_the_double_it_was_laid_against() -> None:
    # Rendered hand 9302-003: pale tiles on a white table; the 5-5 opening and the 6-5 laid
    # against it went unseen until the 6-0 had been laid, and the referee opened the hand on
    # the 6-0: every score after it was wrong. A first hand opens on the highest double.
    ref = Referee(FIRST_HAND)
    said = ref.observe(state(0, LEFT_06))
    assert [(e.kind, e.reason, e.tiles) for e in said] == [(Kind.UNFOLLOWED, "opening_not_double", ("6-0",))]
    assert ref.observe(state(2, LEFT_06)) == [] and line(ref) == []  # said once; still waiting
    got = ref.observe(state(4, LEFT_06, LEFT_65, SPINNER_55))
    assert [(e.kind, e.tile, e.player, e.points) for e in got if e.kind is Kind.PLAY] == [
        (Kind.PLAY, "5-5", 0, 10), (Kind.PLAY, "6-5", 1, 0), (Kind.PLAY, "6-0", 0, 10)]
    assert got[0].inferred and line(ref) == ["0-6", "6-5", "5-5"]


def test_a_first_hand_opens_on_its_double_though_a_tile_lies_apart_from_the_line() -> None:
    # Seen together, the double, the tile against it and a tile lying apart (a player's tile
    # shown, a reveal): the double opened, and the tile apart is no play.
    ref = Referee(FIRST_HAND)
    got = ref.observe(state(0, LEFT_65, SPINNER_55, tile(2, 1, 700, 100)))
    assert [(e.kind, e.tile) for e in got if e.kind is Kind.PLAY] == [(Kind.PLAY, "5-5"), (Kind.PLAY, "6-5")]
    assert line(ref) == ["6-5", "5-5"]


def test_a_plain_tile_opens_a_first_hand_once_tiles_are_laid_against_it_when_no_double_may_be_dealt() -> None:
    # Two players hold 14 of the 21 tiles that are no double: about one first hand in 340 is
    # dealt no double, and the heaviest tile opens it. The referee waits for tiles laid against
    # the plain tile before it takes it for the opening, never losing the hand.
    ref = Referee(FIRST_HAND, RefereeConfig(plain_opening=2))
    assert kinds(ref.observe(state(0, OPEN_63))) == [Kind.UNFOLLOWED]
    assert ref.observe(state(2, OPEN_63, RIGHT_34)) == []
    got = ref.observe(state(4, OPEN_63, RIGHT_34, LEFT_26))
    assert [(e.kind, e.tile) for e in got] == [(Kind.PLAY, "6-3"), (Kind.PLAY, "4-3"), (Kind.PLAY, "6-2")]
    assert line(ref) == ["2-6", "6-3", "3-4"]


def test_when_every_deal_holds_a_double_a_plain_tile_never_opens_the_first_hand() -> None:
    ref = Referee(Rules(Variant.FIVES, players=4, hand_size=7))
    assert kinds(ref.observe(state(0, OPEN_63))) == [Kind.UNFOLLOWED]
    assert ref.observe(state(2, OPEN_63, RIGHT_34, LEFT_26)) == [] and line(ref) == []


def test_the_stabiliser_keeps_each_tiles_best_reading_and_gives_the_state_again_when_it_is_sure_enough() -> None:
    stab = Stabiliser(StabiliserConfig(stable_frames=2, confirm_votes=2, confirm_confidence=0.6))
    weak, strong = dataclasses.replace(RIGHT_34, confidence=0.55), dataclasses.replace(RIGHT_34, confidence=0.8)
    assert stab.feed(0, detection(OPEN_63, weak)) is None
    first = stab.feed(1, detection(OPEN_63, weak))
    assert first is not None and {t.name: (t.votes, t.best) for t in first.tiles}["4-3"] == (2, 0.55)
    assert stab.feed(2, detection(OPEN_63, weak)) is None  # more votes, none surer: nothing new
    again = stab.feed(3, detection(OPEN_63, strong))
    assert again is not None and {t.name: (t.votes, t.best) for t in again.tiles}["4-3"] == (4, 0.8)
    assert stab.feed(4, detection(OPEN_63, weak)) is None  # the best stays the best
    with pytest.raises(ValueError, match=r"confirm_confidence must be a confidence from 0 to 1, got 1\.5"):
        StabiliserConfig(confirm_confidence=1.5)


def test_a_session_calls_an_illegal_placement_only_once_read_surely_enough() -> None:
    session = Session(FIVES, never, referee_config=RefereeConfig(opener=0))
    events = []
    for frame in range(3):
        events += session.frame(frame, detection=detection(OPEN_63))
    weak, strong = dataclasses.replace(WRONG_43, confidence=0.52), dataclasses.replace(WRONG_43, confidence=0.9)
    for frame in range(3, 8):
        events += session.frame(frame, detection=detection(OPEN_63, weak))
    assert not any(e.kind is Kind.ILLEGAL for e in events)
    events += session.frame(8, detection=detection(OPEN_63, strong))
    assert [(e.kind, e.tile) for e in events if e.kind is Kind.ILLEGAL] == [(Kind.ILLEGAL, "4-3")]


def test_a_tile_read_surely_at_two_places_by_the_line_is_neither_until_one_goes() -> None:
    """Tiles are unique: the 3-4 read surely at the right end (legal) and at the left end (its 3
    against the 6: illegal) is a misreading at one of them, and nothing is inferred from either."""
    ref = opened()
    twice = state(2, OPEN_63, RIGHT_34, tile(4, 3, 320, 300))
    assert ref.observe(twice) == []
    assert ref.observe(dataclasses.replace(twice, frame=3, last=4)) == []
    assert line(ref) == ["6-3"]
    (play,) = ref.observe(state(5, OPEN_63, RIGHT_34))
    assert (play.kind, play.tile, play.end) == (Kind.PLAY, "4-3", "right")


def test_a_tile_misread_far_from_the_line_does_not_hold_up_the_play_of_that_tile() -> None:
    ref = opened()
    (play,) = ref.observe(state(2, OPEN_63, RIGHT_34, tile(3, 4, 700, 520)))
    assert (play.kind, play.tile, play.end) == (Kind.PLAY, "4-3", "right")
    # A line tile misread elsewhere stays where it was played, and changes nothing.
    assert ref.observe(state(4, OPEN_63, RIGHT_34, tile(4, 3, 700, 520))) == []
    assert line(ref) == ["6-3", "3-4"]


def test_illegal_votes_must_be_a_whole_number_from_one() -> None:
    with pytest.raises(ValueError, match="illegal_votes must be a whole number >= 1, got 0"):
        RefereeConfig(illegal_votes=0)


def test_a_mismatched_tile_turned_round_in_place_is_a_play() -> None:
    ref = opened()
    assert kinds(ref.observe(state(2, OPEN_63, WRONG_43))) == [Kind.ILLEGAL]
    got = ref.observe(state(4, OPEN_63, RIGHT_34))  # turned round without lifting it out of view
    assert [(e.kind, e.tile, e.end) for e in got] == [(Kind.PLAY, "4-3", "right")]


def test_a_tile_against_the_middle_of_the_line_has_no_end() -> None:
    ref = opened()
    (illegal,) = ref.observe(state(2, OPEN_63, MIDDLE_61))
    assert (illegal.kind, illegal.tile, illegal.reason, illegal.end, illegal.player) == (
        Kind.ILLEGAL, "6-1", "no_such_end", None, 1)
    assert line(ref) == ["6-3"]


def test_a_tile_lying_apart_from_the_line_is_not_a_play() -> None:
    ref = opened()
    assert ref.observe(state(2, OPEN_63, tile(3, 4, 600, 300))) == []
    assert line(ref) == ["6-3"]


def test_two_new_tiles_at_once_are_reported_and_the_table_re_read() -> None:
    ref = opened()
    got = ref.observe(state(2, OPEN_63, RIGHT_34, LEFT_26))
    assert got[0] == Event(2, Kind.UNFOLLOWED, reason="several_new_tiles", tiles=("4-3", "6-2"))
    plays = got[1:]
    assert sorted((e.tile, e.end) for e in plays) == [("4-3", "right"), ("6-2", "left")]
    assert all(e.kind is Kind.PLAY and e.inferred for e in plays)  # the order was not seen
    assert ref.observe(state(3, OPEN_63, RIGHT_34, LEFT_26)) == []
    assert sorted(line(ref)) == ["2-6", "3-4", "6-3"] and ref.hand.turn == 1  # two plays: by 1, then by 0


def test_new_tiles_first_seen_in_different_states_are_plays_in_that_order() -> None:
    ref = opened()
    unread = dataclasses.replace(RIGHT_34, uncertain=True)
    assert ref.observe(state(2, OPEN_63, unread)) == []  # 4-3 laid, not readable yet: wait
    got = ref.observe(state(4, OPEN_63, RIGHT_34, LEFT_26))
    assert [(e.frame, e.tile, e.end, e.player, e.inferred) for e in got] == [
        (2, "4-3", "right", 1, None), (4, "6-2", "left", 0, None)]


def test_a_new_tile_that_stays_unreadable_is_said_once_and_played_when_read() -> None:
    # The referee never guesses a tile it cannot read, and never waits in silence either: a
    # new tile against the line unread through three stable states (arms came and went) is
    # reported once; read at last, it is the play.
    ref = opened()
    unread = dataclasses.replace(RIGHT_34, uncertain=True)
    assert ref.observe(state(2, OPEN_63, unread)) == []
    assert ref.observe(state(5, OPEN_63, unread)) == []
    assert ref.observe(state(8, OPEN_63, unread)) == [Event(8, Kind.UNFOLLOWED, reason="unreadable_tile")]
    assert ref.observe(state(11, OPEN_63, unread)) == []
    got = ref.observe(state(14, OPEN_63, RIGHT_34))
    assert [(e.kind, e.frame, e.tile, e.end, e.player) for e in got] == [(Kind.PLAY, 14, "4-3", "right", 1)]
    # The next tile laid and left unread is a new tile to report, once more.
    later = dataclasses.replace(LEFT_26, uncertain=True)
    assert [ref.observe(state(f, OPEN_63, RIGHT_34, later)) for f in (17, 20)] == [[], []]
    assert ref.observe(state(23, OPEN_63, RIGHT_34, later)) == [Event(23, Kind.UNFOLLOWED, reason="unreadable_tile")]


def test_a_tile_the_camera_cannot_read_is_played_by_hand_and_the_line_followed_past_it() -> None:
    ref = opened()
    unread = dataclasses.replace(RIGHT_34, uncertain=True)
    for f in (2, 5, 8):
        ref.observe(state(f, OPEN_63, unread))
    (play,) = ref.play_by_hand(9, "3-4")
    assert play == Event(9, Kind.PLAY, tile="4-3", end="right", player=1, points=10, by_hand=True)
    assert line(ref) == ["6-3", "3-4"]
    # Still unread, it is taken for the 4-3 (its left half against the 3): the 4-5 laid
    # against its right half is player 0's play at the right end, not a tile lying apart.
    got = ref.observe(state(12, OPEN_63, unread, tile(4, 5, 560, 300)))
    assert [(e.kind, e.tile, e.end, e.player, e.points) for e in got] == [(Kind.PLAY, "5-4", "right", 0, 0)]
    assert line(ref) == ["6-3", "3-4", "4-5"]


def test_a_play_by_hand_is_judged_by_the_rules_and_undone_like_any() -> None:
    ref = opened()
    with pytest.raises(ValueError, match="2-2 cannot be played: mismatch"):
        ref.play_by_hand(3, "2-2")
    with pytest.raises(ValueError, match="end must be left, right, up or down, got 'top'"):
        ref.play_by_hand(3, "3-4", "top")
    with pytest.raises(ValueError, match="7-1"):
        ref.play_by_hand(3, "7-1")
    assert line(ref) == ["6-3"] and ref.history[-1].kind is Kind.PLAY
    ref.play_by_hand(4, "3-4")
    (undo,) = ref.undo(5)
    assert (undo.kind, undo.tile) == (Kind.UNDO, "4-3") and line(ref) == ["6-3"]
    # The 4-3 the camera then reads is a play of its own.
    assert kinds(ref.observe(state(6, OPEN_63, RIGHT_34))) == [Kind.PLAY]


def test_an_end_named_for_the_opening_tile_by_hand_is_no_matter() -> None:
    # The first tile goes to no end; a player who names one ("t 6-6 up") means the same play.
    ref = Referee(FIRST_HAND, RefereeConfig(opener=1))
    (play,) = ref.play_by_hand(2, "6-6", "up")
    assert (play.kind, play.tile, play.end, play.player, play.by_hand) == (Kind.PLAY, "6-6", None, 1, True)
    with pytest.raises(ValueError, match="got 'top'"):
        Referee(FIVES).play_by_hand(2, "6-6", "top")


def test_a_play_by_hand_is_kept_on_resume() -> None:
    ref = opened()
    ref.play_by_hand(4, "3-4")
    again = Referee(FIVES)
    again.restore(ref.history)
    assert line(again) == ["6-3", "3-4"] and again.hand.turn == 0
    # After the restart the unread tile against the 3 end is still taken for it.
    unread = dataclasses.replace(RIGHT_34, uncertain=True)
    again.observe(state(8, OPEN_63, unread))
    got = again.observe(state(10, OPEN_63, unread, tile(4, 5, 560, 300)))
    assert [(e.kind, e.tile, e.end) for e in got] == [(Kind.PLAY, "5-4", "right")]


def test_a_new_tile_read_in_its_second_state_is_never_called_unreadable() -> None:
    ref = opened(config=RefereeConfig(unread_states=2))
    unread = dataclasses.replace(RIGHT_34, uncertain=True)
    assert ref.observe(state(2, OPEN_63, unread)) == []
    assert kinds(ref.observe(state(5, OPEN_63, RIGHT_34))) == [Kind.PLAY]
    assert ref.observe(state(8, OPEN_63, RIGHT_34)) == []
    # With a bar of two states, the next tile unread twice is reported at its second.
    later = dataclasses.replace(LEFT_26, uncertain=True)
    assert ref.observe(state(11, OPEN_63, RIGHT_34, later)) == []
    assert kinds(ref.observe(state(14, OPEN_63, RIGHT_34, later))) == [Kind.UNFOLLOWED]


def test_two_tiles_apart_for_the_opening_are_reported_once_and_not_played() -> None:
    ref = Referee(FIVES)
    (event,) = ref.observe(state(0, OPEN_63, tile(5, 5, 400, 100)))
    assert (event.kind, event.reason, set(event.tiles or ())) == (
        Kind.UNFOLLOWED, "several_new_tiles", {"6-3", "5-5"})
    assert ref.observe(state(1, OPEN_63, tile(5, 5, 400, 100))) == []
    assert ref.on_table() == []


def test_a_table_tile_showing_another_value_is_reported_and_changes_nothing() -> None:
    ref = opened()
    (event,) = ref.observe(state(2, tile(6, 2, 400, 300)))
    assert event == Event(2, Kind.UNFOLLOWED, reason="changed_value", tiles=("6-3", "6-2"))
    assert ref.observe(state(3, tile(6, 2, 400, 300))) == []
    assert ref.on_table() == ["6-3"]
    assert ref.observe(state(4, OPEN_63, RIGHT_34))[0].kind is Kind.PLAY  # read right again: play on


# == the referee: draws and take-backs ========================================================
def test_fewer_face_down_tiles_after_the_opening_are_draws_by_the_player_to_move() -> None:
    ref = Referee(FIVES)
    assert ref.observe(state(0, down=28)) == []
    assert ref.observe(state(1, down=14)) == []  # the deal: not draws
    assert kinds(ref.observe(state(2, OPEN_63, down=14))) == [Kind.PLAY]
    assert ref.observe(state(3, OPEN_63, down=12)) == []  # not yet: one state could be a miss
    got = ref.observe(state(4, OPEN_63, down=12))  # confirmed: as of the state that showed it
    assert got == [Event(3, Kind.DRAW, player=1), Event(3, Kind.DRAW, player=1)]
    assert ref.hand.held_count(1) == 9 and ref.hand.turn == 1
    assert ref.observe(state(5, OPEN_63, down=12)) == []


def test_a_face_down_tile_missed_in_one_state_is_no_draw() -> None:
    ref = Referee(FIVES)
    ref.observe(state(1, down=14))
    ref.observe(state(2, OPEN_63, down=14))
    assert ref.observe(state(3, OPEN_63, down=13)) == []
    assert ref.observe(state(4, OPEN_63, down=14)) == []
    assert ref.observe(state(5, OPEN_63, down=14)) == []
    assert ref.hand.held_count(1) == 7


def test_a_pile_read_as_a_few_more_or_fewer_tiles_is_no_draw() -> None:
    """Vision reads a pile of touching face-down tiles as a few more or fewer from state to state
    (14 tiles as 12 to 17): only a count below the lowest of the last states' is a draw."""
    ref = Referee(FIVES)
    ref.observe(state(1, down=14))
    ref.observe(state(2, down=12))
    ref.observe(state(3, OPEN_63, down=17))
    for frame in (4, 5, 6):
        assert ref.observe(state(frame, OPEN_63, down=12)) == []
    assert ref.hand.held_count(1) == 7
    assert ref.observe(state(7, OPEN_63, down=11)) == []  # below every count of late: a draw
    assert ref.observe(state(8, OPEN_63, down=11)) == [Event(7, Kind.DRAW, player=1)]


def test_backs_missed_when_the_boneyard_was_counted_join_it_and_a_draw_from_them_is_seen() -> None:
    """Vision read the boneyard as 12 backs when the hand opened (touching backs boxed as
    fewer); the rules say it holds 14, and the states since show 14. The two backs join once
    the last states all show them, and a draw from one of them is seen (rendered hand 9302-009
    missed three draws so, and its referee took the drawer to be out)."""
    ref = Referee(FIVES)
    ref.observe(state(1, down=12))
    ref.observe(state(2, OPEN_63, down=12))
    for frame in (3, 4, 5, 6):
        assert ref.observe(state(frame, OPEN_63, down=14)) == []
    assert ref.hand.held_count(1) == 7
    assert ref.observe(state(7, OPEN_63, down=13)) == []
    assert ref.observe(state(8, OPEN_63, down=13)) == [Event(7, Kind.DRAW, player=1)]
    assert ref.hand.held_count(1) == 8


def test_backs_beyond_what_the_boneyard_holds_never_join_it() -> None:
    """Two more backs than the rules leave in the boneyard (the table's grain taken for backs),
    shown state after state and then gone, are no draws."""
    ref = Referee(FIVES)
    ref.observe(state(1, down=14))
    ref.observe(state(2, OPEN_63, down=14))
    for frame in (3, 4, 5, 6, 7):
        assert ref.observe(state(frame, OPEN_63, down=16)) == []
    for frame in (8, 9, 10):
        assert ref.observe(state(frame, OPEN_63, down=14)) == []
    assert ref.hand.held_count(1) == 7 and ref.hand.boneyard_size() == 14


def test_a_draw_is_seen_through_a_state_that_takes_the_table_for_more_backs() -> None:
    """A back went (player 1 drew); the next state took the table's grain for three backs
    more, elsewhere, while the drawn tile's place stayed empty: the state after that one
    confirms the draw (rendered hand 9302-009 lost a draw so, and took the drawer to be out)."""
    ref = Referee(FIVES)
    ref.observe(state(1, down=14))
    ref.observe(state(2, OPEN_63, down=14))
    assert ref.observe(state(3, OPEN_63, down=13)) == []
    grain = dataclasses.replace(state(4, OPEN_63, down=16),
                                face_down_at=(*boneyard(13), (600.0, 500.0), (650.0, 500.0), (700.0, 500.0)))
    assert ref.observe(grain) == []
    assert ref.observe(state(5, OPEN_63, down=13)) == [Event(3, Kind.DRAW, player=1)]
    assert ref.hand.held_count(1) == 8


def test_places_beyond_what_the_boneyard_holds_are_no_draws_when_they_empty() -> None:
    """The boneyard was counted as 16 backs when the hand opened, two more than the rules leave
    in it: when those two places and a third empty, that is one draw, not three."""
    ref = Referee(FIVES)
    ref.observe(state(1, down=16))
    ref.observe(state(2, OPEN_63, down=16))
    assert ref.observe(state(3, OPEN_63, down=13)) == []
    assert ref.observe(state(4, OPEN_63, down=13)) == [Event(3, Kind.DRAW, player=1)]
    assert ref.hand.held_count(1) == 8 and ref.hand.boneyard_size() == 13


def test_a_run_of_frames_grown_by_a_frame_does_not_confirm_its_own_draws() -> None:
    """Vision lost four backs in the last frames before an arm came: the run of frames showing
    fewer backs grew by a frame, and the next run shows them all again. No draw: the run grown
    is mostly the same frames, not a second look (rendered hand 9302-007 gave a player four
    draws so)."""
    ref = Referee(FIVES)
    ref.observe(state(1, down=14))
    ref.observe(state(2, OPEN_63, down=14))
    lost = state(3, OPEN_63, down=10)
    assert ref.observe(lost) == []
    assert ref.observe(dataclasses.replace(lost, last=5, frames=3)) == []
    for frame in (7, 8):
        assert ref.observe(state(frame, OPEN_63, down=14)) == []
    assert ref.hand.held_count(1) == 7 and ref.hand.boneyard_size() == 14


def test_face_down_tiles_pushed_about_are_no_draw() -> None:
    ref = Referee(FIVES)
    ref.observe(state(1, down=14))
    ref.observe(state(2, OPEN_63, down=14))
    moved = dataclasses.replace(state(3, OPEN_63, down=14),
                                face_down_at=(*boneyard(13), (900.0, 600.0)))  # one pushed aside
    assert ref.observe(moved) == []
    assert ref.observe(dataclasses.replace(moved, frame=4, last=5)) == []
    assert ref.hand.held_count(1) == 7


def test_face_down_tiles_read_as_unreadable_faces_are_no_draw() -> None:
    """Vision may take a plain back for a face it cannot read: the tile still lies where it lay,
    so its place is not emptied, however long the misreading lasts."""
    ref = Referee(FIVES)
    ref.observe(state(1, down=14))
    ref.observe(state(2, OPEN_63, down=14))
    backs = [tile(0, 0, x, y, 90.0, uncertain=True) for x, y in boneyard(14)[10:]]
    for frame in (3, 4, 5, 6):
        assert ref.observe(state(frame, OPEN_63, *backs, down=10)) == []
    assert ref.hand.held_count(1) == 7
    # Two of the tiles still read face down taken away: those are draws.
    assert ref.observe(state(7, OPEN_63, *backs, down=8)) == []
    assert ref.observe(state(8, OPEN_63, *backs, down=8)) == [Event(7, Kind.DRAW, player=1)] * 2


def test_a_draw_seen_with_the_drawers_play_goes_in_before_it() -> None:
    ref = Referee(FIVES)
    ref.observe(state(1, down=14))
    ref.observe(state(2, OPEN_63, down=14))
    # player 1 draws and plays 4-3 at once (the draw's own frames were never stable)
    assert kinds(ref.observe(state(3, OPEN_63, RIGHT_34, down=13))) == [Kind.PLAY]
    got = ref.observe(state(4, OPEN_63, RIGHT_34, down=13))
    assert got == [Event(3, Kind.DRAW, player=1, at=1)]  # logged after the play, it goes in before it
    assert [m.kind for m in ref.hand.moves] == ["play", "draw", "play"]
    assert ref.hand.moves[2].player == 1 and ref.hand.turn == 0
    assert ref.hand.held_count(1) == 7  # 7 dealt, one drawn, one played
    resumed = Referee(FIVES)
    resumed.restore(ref.history)  # as --resume reads them from the log, in the order they came
    assert resumed.hand.moves == ref.hand.moves


def test_the_last_tile_gone_for_takeback_states_is_taken_back() -> None:
    ref = opened(config=RefereeConfig(takeback_states=2))
    assert kinds(ref.observe(state(2, OPEN_63, RIGHT_34, down=10))) == [Kind.PLAY]
    assert ref.observe(state(4, OPEN_63, down=10)) == []
    (undo,) = ref.observe(state(6, OPEN_63, down=10))
    assert (undo.kind, undo.tile, undo.reason, undo.frame) == (Kind.UNDO, "4-3", "play", 6)
    assert line(ref) == ["6-3"] and ref.on_table() == ["6-3"]
    assert ref.hand.turn == 1 and ref.hand.points == [0, 0]


def test_the_last_tile_missed_in_one_state_is_not_taken_back() -> None:
    ref = opened(config=RefereeConfig(takeback_states=2))
    assert kinds(ref.observe(state(2, OPEN_63, RIGHT_34))) == [Kind.PLAY]
    assert ref.observe(state(4, OPEN_63)) == []  # vision missed it
    assert ref.observe(state(6, OPEN_63, RIGHT_34)) == []
    assert ref.observe(state(8, OPEN_63)) == []  # missed again: the count starts over
    assert line(ref) == ["6-3", "3-4"]


def test_the_last_tile_gone_with_no_hand_over_the_table_since_is_not_taken_back() -> None:
    # Only a hand takes a tile off the table: states that lose the tile while every frame since
    # it was read settled (a close lamp blinding vision) do not take it back; once a hand has
    # come over the table (an unsettled frame after it was last read), they do.
    ref = opened(config=RefereeConfig(takeback_states=2))
    still = dataclasses.replace(state(2, OPEN_63, RIGHT_34), unsettled=1)
    assert kinds(ref.observe(still)) == [Kind.PLAY]
    for frame in (4, 6, 8):
        assert ref.observe(dataclasses.replace(state(frame, OPEN_63), unsettled=1)) == []
    assert line(ref) == ["6-3", "3-4"]
    assert ref.observe(dataclasses.replace(state(10, OPEN_63), unsettled=9)) == []
    (undo,) = ref.observe(dataclasses.replace(state(12, OPEN_63), unsettled=9))
    assert (undo.kind, undo.tile, undo.frame) == (Kind.UNDO, "4-3", 12)
    assert line(ref) == ["6-3"]


def test_states_showing_more_tiles_than_the_set_take_nothing_back() -> None:
    # Forty backs and a face in a double-six set of 28: vision took the table for backs, and
    # what it misses there says nothing of what a hand took away.
    ref = opened(config=RefereeConfig(takeback_states=2))
    assert kinds(ref.observe(state(2, OPEN_63, RIGHT_34))) == [Kind.PLAY]
    for frame in (4, 6, 8):
        assert ref.observe(state(frame, OPEN_63, down=40)) == []
    assert line(ref) == ["6-3", "3-4"]
    for frame in (10, 12):  # the set's own count: taken back
        got = ref.observe(state(frame, OPEN_63, down=14))
    assert kinds(got) == [Kind.UNDO] and line(ref) == ["6-3"]


def test_a_tile_laid_against_a_line_tile_vision_lost_is_played_against_it() -> None:
    # Vision loses the 4-3 just as the 4-1 laid against its end comes to be read: a tile laid
    # against a place says a tile is there, so the 4-3 stays (it is not taken back) and the 4-1
    # is played against where it was last seen.
    ref = opened(config=RefereeConfig(takeback_states=2))
    assert kinds(ref.observe(state(2, OPEN_63, RIGHT_34))) == [Kind.PLAY]
    against = tile(4, 1, 560, 300)  # its 4 half against the 4-3's 4 end
    (play,) = ref.observe(state(4, OPEN_63, against))
    assert (play.kind, play.tile, play.end, play.player) == (Kind.PLAY, "4-1", "right", 0)
    for frame in (6, 8):
        assert ref.observe(state(frame, OPEN_63, against)) == []
    assert sorted(ref.on_table()) == ["4-1", "4-3", "6-3"]
    assert ref.observe(state(10, OPEN_63, RIGHT_34, against)) == []
    # With nothing laid against it, the same states take the 4-3 back (as in the test above).
    alone = opened(config=RefereeConfig(takeback_states=2))
    alone.observe(state(2, OPEN_63, RIGHT_34))
    assert kinds([e for f in (4, 6) for e in alone.observe(state(f, OPEN_63))]) == [Kind.UNDO]


def test_a_box_straddling_a_lost_line_tile_is_no_tile_laid_against_it() -> None:
    # The 4-3 unseen, and a box over its 4 end and past it read surely as 4-4 (a box straddling
    # a seam reads the two halves either side of it: a double): tiles do not overlap, so it is
    # neither played against the lost 4-3 nor a reason to take the 4-3 back.
    ref = opened(config=RefereeConfig(takeback_states=2))
    ref.observe(state(2, OPEN_63, RIGHT_34))
    straddle = tile(4, 4, 515, 300)
    for frame in (4, 6, 8):
        assert kinds(ref.observe(state(frame, OPEN_63, straddle))) in ([], [Kind.UNFOLLOWED])
    assert sorted(ref.on_table()) == ["4-3", "6-3"]


def test_an_illegal_tile_tried_again_where_it_goes_is_played_though_read_doubtfully() -> None:
    # Seat 1 tries 2-6 against the 3 end (read clearly: illegal), takes it back and lays it
    # against the 6 end, where vision reads it only doubtfully, though as 2-6 still: it is the
    # tile tried, and it fits there. A doubtful reading of any other tile waits.
    ref = opened()
    (illegal,) = ref.observe(state(2, OPEN_63, tile(2, 6, 480, 300)))
    assert (illegal.kind, illegal.tile, illegal.reason) == (Kind.ILLEGAL, "6-2", "mismatch")
    assert ref.observe(state(4, OPEN_63)) == []  # taken back
    (play,) = ref.observe(state(6, OPEN_63, tile(2, 6, 320, 300, uncertain=True)))
    assert (play.kind, play.tile, play.end, play.player, play.inferred) == (Kind.PLAY, "6-2", "left", 1, True)
    other = opened()
    other.observe(state(2, OPEN_63, tile(2, 6, 480, 300)))
    other.observe(state(4, OPEN_63))
    assert other.observe(state(6, OPEN_63, tile(1, 6, 320, 300, uncertain=True))) == []
    assert other.on_table() == ["6-3"]


def test_draws_seen_with_a_play_laid_before_them_go_in_after_it() -> None:
    """Player 1's tile lay on the table unreadable before the face-down tiles went; it is read
    in the state that shows them gone: the play came first, and player 0 drew."""
    ref = Referee(FIVES)
    ref.observe(state(1, down=14))
    assert kinds(ref.observe(state(2, OPEN_63, down=14))) == [Kind.PLAY]
    assert ref.observe(state(3, OPEN_63, dataclasses.replace(RIGHT_34, uncertain=True), down=14)) == []
    got = ref.observe(state(4, OPEN_63, RIGHT_34, down=12))
    assert [(e.kind, e.tile, e.player) for e in got] == [(Kind.PLAY, "4-3", 1)]
    assert ref.observe(state(5, OPEN_63, RIGHT_34, down=12)) == [Event(4, Kind.DRAW, player=0)] * 2
    assert [a.kind for a in ref.hand.moves] == ["play", "play", "draw", "draw"]
    assert ref.hand.turn == 0 and ref.hand.held_count(0) == 8


def unread_while_drawing(drawn: int) -> Referee:
    """A referee that saw the 6-3 opening, then player 1's 4-3 lying unread at its right end
    while ``drawn`` face-down tiles went: it gave the draws to player 1, whose turn it seemed."""
    ref = Referee(FIVES)
    ref.observe(state(1, down=14))
    ref.observe(state(2, OPEN_63, down=14))
    unread = dataclasses.replace(RIGHT_34, uncertain=True)
    ref.observe(state(3, OPEN_63, unread, down=14))
    ref.observe(state(4, OPEN_63, unread, down=14 - drawn))
    got = ref.observe(state(5, OPEN_63, unread, down=14 - drawn))
    assert [(e.kind, e.player) for e in got if e.kind is Kind.DRAW] == [(Kind.DRAW, 1)] * drawn
    return ref


def test_draws_put_down_before_a_play_read_late_go_to_the_next_player() -> None:
    """Player 1's tile lay on the table unreadable while two face-down tiles went: the referee,
    not knowing of the play, gave the draws to player 1. The tile is read at last, in the state
    given again from the frame it was laid: the play came first, so the draws were player 0's.
    The referee takes its two draws back, plays the tile and draws them again for player 0, and
    the log replays to the same hand."""
    ref = unread_while_drawing(2)
    got = ref.observe(dataclasses.replace(state(3, OPEN_63, RIGHT_34, down=12), last=6))
    assert [(e.kind, e.tile, e.player, e.reason) for e in got] == [
        (Kind.UNDO, None, 1, "draw"), (Kind.UNDO, None, 1, "draw"), (Kind.PLAY, "4-3", 1, None),
        (Kind.DRAW, None, 0, None), (Kind.DRAW, None, 0, None)]
    assert got[2].inferred and got[2].frame == 3 and got[0].frame == 6
    assert [(a.kind, a.player) for a in ref.hand.moves] == [("play", 0), ("play", 1), ("draw", 0), ("draw", 0)]
    resumed = Referee(FIVES)
    resumed.restore(ref.history)
    assert resumed.hand.moves == ref.hand.moves and resumed.hand.turn == ref.hand.turn == 0


def test_draws_put_down_while_a_tile_lay_unread_at_an_end_go_in_after_it() -> None:
    """Rendered hand 9303-003: player 1's tile lay at an end, read doubtfully, while a
    face-down tile went; the referee gave the draw to player 1. The tile is read surely only in
    a later run of frames (an arm came between): its place has shown a tile since before the
    draw, so the play came first and the draw was player 0's. Without this, player 1 was
    counted a tile short and the hand's end, a domino, never came."""
    ref = unread_while_drawing(1)
    got = ref.observe(state(7, OPEN_63, RIGHT_34, down=13))
    assert [(e.kind, e.tile, e.player, e.reason) for e in got] == [
        (Kind.UNDO, None, 1, "draw"), (Kind.PLAY, "4-3", 1, None), (Kind.DRAW, None, 0, None)]
    assert got[1].inferred and got[1].frame == 3
    assert [(a.kind, a.player) for a in ref.hand.moves] == [("play", 0), ("play", 1), ("draw", 0)]


def test_a_tile_read_after_a_draw_where_nothing_lay_before_it_comes_after_the_draw() -> None:
    ref = Referee(FIVES)
    ref.observe(state(1, down=14))
    ref.observe(state(2, OPEN_63, down=14))
    ref.observe(state(4, OPEN_63, down=13))
    assert kinds(ref.observe(state(5, OPEN_63, down=13))) == [Kind.DRAW]
    got = ref.observe(state(7, OPEN_63, RIGHT_34, down=13))
    assert [(e.kind, e.tile, e.player) for e in got] == [(Kind.PLAY, "4-3", 1)]
    assert [(a.kind, a.player) for a in ref.hand.moves] == [("play", 0), ("draw", 1), ("play", 1)]


def test_a_draw_dated_before_a_play_both_seen_first_in_one_state_goes_before_it() -> None:
    """Rendered hand 9309-000: player 0 drew (frame 5, a frame that never settled), then laid a
    tile (read surely from frame 7, in frames that never agreed); one state showed both. The
    referee put the draw after the play, as player 1's: player 1 then seemed to hold a tile
    more, and their domino never ended the hand. The backs were gone by frame 5: the draw came
    first, and was player 0's."""
    ref = Referee(FIVES)
    ref.observe(state(0, OPEN_63, down=14))
    ref.observe(state(2, OPEN_63, RIGHT_34, down=14))
    laid = tile(4, 1, 560, 300)
    both = state(9, OPEN_63, RIGHT_34, laid, down=13)
    both = dataclasses.replace(both, down_since=5, tiles=(
        *both.tiles[:2], dataclasses.replace(both.tiles[2], first_seen=7)))
    assert [(e.kind, e.tile, e.player) for e in ref.observe(both)] == [(Kind.PLAY, "4-1", 0)]
    got = ref.observe(state(11, OPEN_63, RIGHT_34, laid, down=13))
    assert [(e.kind, e.player, e.frame) for e in got if e.kind is Kind.DRAW] == [(Kind.DRAW, 0, 5)]
    assert [(a.kind, a.player) for a in ref.hand.moves] == [("play", 0), ("play", 1), ("draw", 0), ("play", 0)]


# == the referee: by hand =====================================================================
def test_passes_by_hand_when_nothing_can_be_drawn_block_the_hand() -> None:
    ref = Referee(BLOCK)
    (illegal,) = ref.pass_turn(0)  # before the opening someone must play
    assert (illegal.kind, illegal.reason, illegal.player) == (Kind.ILLEGAL, "must_play", 0)
    ref.observe(state(1, OPEN_63))
    assert ref.pass_turn(2) == [Event(2, Kind.PASS, player=1)]
    assert ref.hand.turn == 0
    assert ref.pass_turn(3) == [Event(3, Kind.PASS, player=0), Event(3, Kind.BLOCKED)]
    assert ref.hand.is_over() and ref.waiting_reveal


def test_a_pass_while_the_boneyard_can_be_drawn_is_illegal() -> None:
    ref = opened(FIVES)
    (illegal,) = ref.pass_turn(2)
    assert (illegal.kind, illegal.reason, illegal.player) == (Kind.ILLEGAL, "must_draw", 1)
    assert ref.hand.move_count() == 1


# One tile left to draw: 13 of the 14 after the deal stay in the boneyard.
LAST_ONE = Rules(Variant.FIVES, players=2, first_player=0, keep_in_boneyard=13)


def test_a_pass_entered_before_the_table_settled_waits_for_the_last_draw() -> None:
    """Rendered hand 9309-001: player 1 drew the last tile and passed at once; the camera
    showed the draw only in the next stable state, with player 0's play. The referee called
    ``must_draw`` and gave the play to player 1. A pass entered while the table has not settled
    now waits for the next state: its draw, then the pass, then its play."""
    ref = Referee(LAST_ONE)
    ref.observe(state(0, OPEN_63, down=14))
    assert ref.pass_turn(2, settled=False) == []  # an arm over the boneyard: nothing said yet
    assert ref.hand.move_count() == 1
    got = ref.observe(state(4, OPEN_63, RIGHT_34, down=13))
    assert [(e.kind, e.tile, e.player, e.frame) for e in got] == [
        (Kind.DRAW, None, 1, 4), (Kind.PASS, None, 1, 2), (Kind.PLAY, "4-3", 0, 4)]
    assert [(a.kind, a.player) for a in ref.hand.moves] == [("play", 0), ("draw", 1), ("pass", 1), ("play", 0)]


def test_a_waiting_pass_with_tiles_still_to_draw_is_illegal_at_the_next_state() -> None:
    ref = Referee(LAST_ONE)
    ref.observe(state(0, OPEN_63, down=14))
    assert ref.pass_turn(2, settled=False) == []
    (illegal,) = ref.observe(state(4, OPEN_63, down=14))  # nothing drawn
    assert (illegal.kind, illegal.reason, illegal.player, illegal.frame) == (Kind.ILLEGAL, "must_draw", 1, 2)
    assert ref.hand.turn == 1 and ref.hand.move_count() == 1


def test_a_pass_entered_on_a_settled_table_takes_a_draw_the_table_showed_once() -> None:
    """The last draw was seen in one stable state, still to be confirmed by the next, when the
    player said pass: their word confirms it."""
    ref = Referee(LAST_ONE)
    ref.observe(state(0, OPEN_63, down=14))
    assert ref.observe(state(3, OPEN_63, down=13)) == []
    assert [(e.kind, e.player) for e in ref.pass_turn(5)] == [(Kind.DRAW, 1), (Kind.PASS, 1)]
    assert ref.hand.turn == 0 and ref.hand.drawable() == 0


def test_undo_takes_back_a_pass_still_waiting_and_the_end_of_the_source_settles_one() -> None:
    ref = Referee(LAST_ONE)
    ref.observe(state(0, OPEN_63, down=14))
    ref.pass_turn(2, settled=False)
    assert ref.undo(3) == []  # never said: nothing to take back aloud
    assert ref.observe(state(4, OPEN_63, down=14)) == []
    ref.pass_turn(6, settled=False)
    (illegal,) = ref.finish()  # no state is coming to show a draw
    assert (illegal.kind, illegal.reason) == (Kind.ILLEGAL, "must_draw")


def test_the_session_says_whether_the_table_settled_when_a_pass_comes() -> None:
    session = Session(LAST_ONE, never, stabiliser=StabiliserConfig(stable_frames=2))
    for frame in (0, 1):
        session.frame(frame, detection=detection(OPEN_63, down=14))
    assert session.stabiliser.settled()
    session.frame(2, detection=OCCLUDED)
    assert not session.stabiliser.settled()
    assert session.manual(Input(2, "pass")) == []
    for frame in (3, 4):
        got = session.frame(frame, detection=detection(OPEN_63, RIGHT_34, down=13))
    assert [(e.kind, e.player) for e in got] == [(Kind.DRAW, 1), (Kind.PASS, 1), (Kind.PLAY, 0)]


def test_undo_by_hand_takes_back_the_last_play() -> None:
    ref = opened(BLOCK)
    ref.observe(state(2, OPEN_63, RIGHT_34))
    assert ref.undo(3) == [Event(3, Kind.UNDO, tile="4-3", reason="play", player=1)]
    assert ref.on_table() == ["6-3"] and ref.hand.turn == 1


def _six_four_six_two() -> Referee:
    """6-6 across the line, 6-4 on one side and 6-2 on the other (block game, no spinner)."""
    ref = Referee(BLOCK)
    double = across(6, 400, 300)
    ref.observe(state(0, double))
    ref.observe(state(1, double, tile(6, 4, 460, 300)))
    ref.observe(state(2, double, tile(6, 4, 460, 300), tile(2, 6, 340, 300)))
    assert line(ref) == ["4-6", "6-6", "6-2"]
    return ref


def test_a_correction_replays_the_hand_with_the_right_tile() -> None:
    ref = _six_four_six_two()
    assert ref.correct(5, "6-4", "6-5") == [Event(5, Kind.CORRECTION, tile="6-5", reason="6-4")]
    assert line(ref) == ["5-6", "6-6", "6-2"]
    assert ref.hand.turn == 1 and [m.player for m in ref.hand.moves] == [0, 1, 0]


def test_an_impossible_correction_raises_and_leaves_the_hand_alone() -> None:
    ref = _six_four_six_two()
    moves = ref.hand.moves
    with pytest.raises(ValueError, match="3-2"):
        ref.correct(5, "6-4", "3-2")  # 3-2 cannot lie against the double 6
    with pytest.raises(ValueError, match="not on the table"):
        ref.correct(5, "5-5", "6-5")
    assert line(ref) == ["4-6", "6-6", "6-2"]
    assert ref.hand.moves == moves and ref.hand.turn == 1
    assert Kind.CORRECTION not in kinds(ref.history)


def test_a_correction_that_breaks_a_later_play_is_refused() -> None:
    ref = Referee(BLOCK)
    ref.observe(state(0, OPEN_63))
    ref.observe(state(1, OPEN_63, RIGHT_34))
    ref.observe(state(2, OPEN_63, RIGHT_34, tile(4, 1, 560, 300)))
    assert line(ref) == ["6-3", "3-4", "4-1"]
    with pytest.raises(ValueError):
        ref.correct(5, "4-3", "5-3")  # then 4-1 could not follow
    assert line(ref) == ["6-3", "3-4", "4-1"] and ref.hand.turn == 1


# == the end of a hand ========================================================================
def _domino(ref: Referee) -> None:
    """Draw game, two tiles each: seat 0 opens 6-3, seat 1 draws and plays 4-3, seat 0 goes out
    with 2-6 (seat 1 still holds two tiles)."""
    ref.observe(state(0, OPEN_63, down=10))
    ref.observe(state(1, OPEN_63, down=9))
    ref.observe(state(2, OPEN_63, RIGHT_34, down=9))
    events = ref.observe(state(3, OPEN_63, RIGHT_34, LEFT_26, down=9))
    assert [(e.kind, e.tile, e.player) for e in events] == [(Kind.PLAY, "6-2", 0)]


LINE = (OPEN_63, RIGHT_34, LEFT_26)
TOP_ROW = (tile(5, 1, 370, 60, 90.0), tile(2, 0, 430, 60, 90.0))  # seat 1's edge by default


def test_a_domino_waits_for_the_reveal_and_scores_it() -> None:
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    _domino(ref)
    assert ref.waiting_reveal
    assert [e.kind for e in ref.history] == [Kind.PLAY, Kind.DRAW, Kind.PLAY, Kind.PLAY]
    assert ref.observe(state(5, *LINE, down=9)) == []
    assert ref.observe(state(6, *LINE, TOP_ROW[0], down=9)) == []  # one of two tiles shown
    # Both laid out, one not read: the referee says it cannot read the reveal (once a hand).
    doubtful = tile(2, 0, 430, 60, 90.0, uncertain=True)
    assert ref.observe(state(7, *LINE, TOP_ROW[0], doubtful, down=9)) == [
        Event(7, Kind.UNFOLLOWED, reason="reveal_unreadable")]
    assert ref.observe(state(7, *LINE, doubtful, TOP_ROW[0], down=9)) == []  # said once
    (end,) = ref.observe(state(8, *LINE, *TOP_ROW, down=9))
    assert end == Event(8, Kind.HAND_END, winner=0, points=8, reveal=((), ("5-1", "2-0")))
    assert ref.match.scores == [8, 0]
    assert ref.observe(state(9, *LINE, *TOP_ROW, down=9)) == []


def test_a_reveal_with_a_tile_more_and_a_back_fewer_is_a_draw_the_camera_missed() -> None:
    """As in _domino, but seat 1's draw never showed (vision kept counting ten backs). Its
    reveal shows two tiles where one was counted, and the pile now shows nine backs where the
    draws seen leave ten: seat 1 drew unseen. The draw goes in before its 4-3, and the reveal
    scores the hand."""
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    ref.observe(state(0, OPEN_63, down=10))
    ref.observe(state(2, OPEN_63, RIGHT_34, down=10))
    ref.observe(state(4, *LINE, down=10))
    assert ref.waiting_reveal and ref.hand.held_count(1) == 1
    assert ref.observe(state(6, *LINE, *TOP_ROW, down=10)) == []  # no back fewer: not explained
    draw, end = ref.observe(state(8, *LINE, *TOP_ROW, down=9))
    assert (draw.kind, draw.player, draw.at) == (Kind.DRAW, 1, 1)
    assert end == Event(8, Kind.HAND_END, winner=0, points=8, reveal=((), ("5-1", "2-0")))
    assert [(m.kind, m.player) for m in ref.hand.moves] == [("play", 0), ("draw", 1), ("play", 1), ("play", 0)]


def _with_backs(frame: int, *tiles: TileReading, backs: tuple[tuple[float, float], ...]) -> StableState:
    """A stable state whose backs lie at ``backs``."""
    stable = tuple(StableTile(t, not t.uncertain, 0 if t.uncertain else 2) for t in tiles)
    return StableState(frame, frame + 1, 2, SIZE[0], SIZE[1], stable, len(backs), backs)


PILE = tuple((40.0, 150.0 + 45.0 * i) for i in range(9))  # the boneyard after the one draw seen


def test_a_reveal_one_tile_short_with_one_back_apart_at_that_edge_holds_the_double_blank() -> None:
    """Seat 1 holds two tiles and shows 5-1 and a plain face: vision reads the double blank as a
    back. The pile holds the nine backs the draws seen leave, and the tenth lies apart, in seat
    1's row: it is the double blank (a tile face up with no pips), and the hand is scored, marked
    inferred."""
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    _domino(ref)
    end = ref.observe(_with_backs(6, *LINE, TOP_ROW[0], backs=(*PILE, (430.0, 60.0))))
    assert end == [Event(6, Kind.HAND_END, winner=0, points=6, reveal=((), ("5-1", "0-0")), inferred=True)]
    assert ref.match.scores == [6, 0]


@pytest.mark.parametrize("backs, shown", [
    ((*PILE[:8], (430.0, 60.0)), TOP_ROW[0]),  # no back more than the pile holds: a pile's back moved
    ((*PILE, (430.0, 540.0)), TOP_ROW[0]),  # the back apart lies at the winner's edge
    ((*PILE, (430.0, 60.0)), tile(0, 0, 370, 60, 90.0)),  # the double blank is shown already
    ((*PILE[:8], (430.0, 60.0), (600.0, 300.0)), TOP_ROW[0]),  # two backs apart: which is it?
])
def test_a_back_is_taken_for_the_double_blank_only_when_nothing_else_can_be_it(
        backs: tuple[tuple[float, float], ...], shown: TileReading) -> None:
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    _domino(ref)
    assert ref.observe(_with_backs(6, *LINE, shown, backs=backs)) == []
    assert ref.waiting_reveal


PLAIN = tile(0, 0, 430, 60, 90.0, uncertain=True)  # a plain face in seat 1's row, read doubtfully


def test_a_reveal_tile_read_doubtfully_as_the_double_blank_is_it() -> None:
    """Seat 1 shows 5-1 and a plain face, which vision reads as the double blank but never
    surely (no pip says it is no back, nor that none is hidden). The double blank lies on no
    line nor among the tiles shown, and the reveal holds as many tiles as seat 1: the hand is
    scored with it, marked inferred."""
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    _domino(ref)
    end = ref.observe(state(6, *LINE, TOP_ROW[0], PLAIN, down=9))
    assert end == [Event(6, Kind.HAND_END, winner=0, points=6, reveal=((), ("5-1", "0-0")), inferred=True)]


def test_a_doubtful_double_blank_and_a_draw_the_camera_missed_score_the_hand() -> None:
    """Seat 1's draw never showed, and its reveal shows 5-1 and a plain face read doubtfully as
    the double blank: two tiles where one was counted, and a back fewer than the draws seen
    leave. The draw goes in, and the hand is scored with the double blank."""
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    ref.observe(state(0, OPEN_63, down=10))
    ref.observe(state(2, OPEN_63, RIGHT_34, down=10))
    ref.observe(state(4, *LINE, down=10))
    draw, end = ref.observe(state(8, *LINE, TOP_ROW[0], PLAIN, down=9))
    assert (draw.kind, draw.player) == (Kind.DRAW, 1)
    assert end == Event(8, Kind.HAND_END, winner=0, points=6, reveal=((), ("5-1", "0-0")), inferred=True)


@pytest.mark.parametrize("sure_halves, shown", [
    ((None, 3), TOP_ROW[0]),  # one half was once read surely as a 3: it may be a 3-0
    ((None, None), tile(0, 0, 370, 60, 90.0)),  # the double blank is shown already
    ((None, None), tile(2, 0, 370, 60, 90.0, uncertain=True)),  # two tiles read doubtfully
])
def test_a_doubtful_double_blank_is_taken_only_when_nothing_else_can_be_it(
        sure_halves: tuple[int | None, int | None], shown: TileReading) -> None:
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    _domino(ref)
    tiles = tuple(StableTile(t, not t.uncertain, 0 if t.uncertain else 2) for t in (*LINE, shown))
    plain = StableTile(PLAIN, False, 0, sure_halves)
    events = ref.observe(StableState(6, 7, 2, SIZE[0], SIZE[1], (*tiles, plain), 9, boneyard(9)))
    assert Kind.HAND_END not in kinds(events)
    assert ref.waiting_reveal


def test_a_reveal_at_the_winners_edge_is_no_unseen_draw() -> None:
    """The extra tile lies at the edge of the player who seemed to go out: the reveal does not
    fit one player's missed draw, and the referee waits rather than guess."""
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    ref.observe(state(0, OPEN_63, down=10))
    ref.observe(state(2, OPEN_63, RIGHT_34, down=10))
    ref.observe(state(4, *LINE, down=10))
    bottom = tile(1, 0, 400, 540, 90.0)  # seat 0's edge
    assert ref.observe(state(6, *LINE, TOP_ROW[0], bottom, down=9)) == []
    assert ref.waiting_reveal and len(ref.hand.moves) == 3


def test_a_line_tile_read_doubtfully_does_not_hold_up_the_reveal() -> None:
    """While the reveal lies out, a tile of the line is read doubtfully, even as another
    value (6-3 as 5-3): it lies where 6-3 always lay, so it is 6-3, not a third tile of the
    reveal still to be read. A doubtful tile apart from the line does hold the reveal up."""
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    _domino(ref)
    misread = dataclasses.replace(OPEN_63, pips=(5, 3), uncertain=True)
    assert ref.observe(state(5, misread, *LINE[1:], *TOP_ROW,
                             tile(4, 4, 600, 500, uncertain=True), down=9)) == []
    (end,) = ref.observe(state(6, misread, *LINE[1:], *TOP_ROW, down=9))
    assert end == Event(6, Kind.HAND_END, winner=0, points=8, reveal=((), ("5-1", "2-0")))


def test_a_tile_laid_after_a_player_seemed_to_go_out_is_a_draw_the_camera_missed() -> None:
    """Two tiles each: seat 0 opens 6-3, seat 1 plays 4-3, seat 0 draws where the camera does
    not see it (the face-down count stays) and plays 2-6, seemingly its last tile. When seat 1
    then lays 4-1 on the right end, seat 0 held one more: the draw goes in before its 2-6, and
    the hand goes on rather than taking the line's new tile for a reveal."""
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    ref.observe(state(0, OPEN_63, down=10))
    ref.observe(state(2, OPEN_63, RIGHT_34, down=10))
    ref.observe(state(4, OPEN_63, RIGHT_34, LEFT_26, down=10))
    assert ref.waiting_reveal  # as far as the referee saw, seat 0 went out
    got = ref.observe(state(6, OPEN_63, RIGHT_34, LEFT_26, tile(4, 1, 560, 300), down=10))
    assert [(e.kind, e.tile, e.player, e.frame) for e in got] == [
        (Kind.DRAW, None, 0, 4), (Kind.PLAY, "4-1", 1, 6)]
    assert [(m.kind, m.player) for m in ref.hand.moves] == [
        ("play", 0), ("play", 1), ("draw", 0), ("play", 0), ("play", 1)]
    assert ref.hand.held_count(0) == 1 and ref.hand.held_count(1) == 0  # now seat 1 went out
    outcome = ref.hand.outcome()
    assert outcome is not None and outcome.winner == 1


def test_a_tile_on_an_open_end_beside_a_seemingly_last_tile_read_late_is_no_reveal() -> None:
    """As above, but seat 0's 2-6 is read surely only in the state that also shows seat 1's 4-1
    on the right end (rendered hand 9303-005): the 2-6 goes in, seat 0 seems out, and the 4-1
    is no tile of seat 1's reveal: seat 0 drew unseen, and the hand goes on."""
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    ref.observe(state(0, OPEN_63, down=10))
    ref.observe(state(2, OPEN_63, RIGHT_34, down=10))
    assert ref.observe(state(4, OPEN_63, RIGHT_34, dataclasses.replace(LEFT_26, uncertain=True), down=10)) == []
    got = ref.observe(state(6, OPEN_63, RIGHT_34, LEFT_26, tile(4, 1, 560, 300), down=10))
    assert [(e.kind, e.tile, e.player) for e in got] == [(Kind.PLAY, "6-2", 0), (Kind.DRAW, None, 0)]
    assert not ref.waiting_reveal
    (play,) = ref.observe(state(8, OPEN_63, RIGHT_34, LEFT_26, tile(4, 1, 560, 300), down=10))
    assert (play.kind, play.tile, play.player) == (Kind.PLAY, "4-1", 1)
    assert [(m.kind, m.player) for m in ref.hand.moves] == [
        ("play", 0), ("play", 1), ("draw", 0), ("play", 0), ("play", 1)]


def test_a_missed_draw_goes_before_a_seemingly_last_tile_read_in_a_frame_before_its_state() -> None:
    """As above, but a frame before its stable state read seat 0's 2-6 surely (``first_seen``
    3, its state at 4: rendered hands 9301-007 and 9303-008). The draw the 4-1 shows still goes
    in before the 2-6: a tile read early came before backs that went later, not before a draw
    the camera never saw (put after the 2-6, the draw was refused, the hand over, and the line's
    4-1 taken for seat 1's reveal)."""
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    ref.observe(state(0, OPEN_63, down=10))
    ref.observe(state(2, OPEN_63, RIGHT_34, down=10))
    laid = state(4, OPEN_63, RIGHT_34, LEFT_26, down=10)
    early = tuple(dataclasses.replace(t, first_seen=3) if t.reading == LEFT_26 else t for t in laid.tiles)
    ref.observe(dataclasses.replace(laid, tiles=early))
    assert ref.waiting_reveal
    got = ref.observe(state(6, OPEN_63, RIGHT_34, LEFT_26, tile(4, 1, 560, 300), down=10))
    assert [(e.kind, e.tile, e.player) for e in got] == [(Kind.DRAW, None, 0), (Kind.PLAY, "4-1", 1)]
    assert [(m.kind, m.player) for m in ref.hand.moves] == [
        ("play", 0), ("play", 1), ("draw", 0), ("play", 0), ("play", 1)]


def test_a_tile_laid_against_a_line_tile_read_doubtfully_then_is_a_draw_the_camera_missed() -> None:
    """As above, but the state that shows seat 1's 4-1 reads the 3-4 it lies against only
    doubtfully: the 3-4 stands where it was last seen, and the 4-1 is laid against it (not a
    tile of seat 0's reveal, which would end the hand with seat 0's 4-1 shown)."""
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    ref.observe(state(0, OPEN_63, down=10))
    ref.observe(state(2, OPEN_63, RIGHT_34, down=10))
    ref.observe(state(4, OPEN_63, RIGHT_34, LEFT_26, down=10))
    assert ref.waiting_reveal
    doubtful = tile(3, 4, 480, 300, uncertain=True)
    got = ref.observe(state(6, OPEN_63, doubtful, LEFT_26, tile(4, 1, 560, 300), down=10))
    assert [(e.kind, e.tile, e.player, e.frame) for e in got] == [
        (Kind.DRAW, None, 0, 4), (Kind.PLAY, "4-1", 1, 6)]
    assert ref.hand.held_count(0) == 1 and ref.hand.held_count(1) == 0


def test_a_draw_seen_with_the_seemingly_last_tile_keeps_the_hand_going() -> None:
    """Two tiles each: seat 0 opens 6-3, seat 1 plays 4-3; then one stable state shows both a
    face-down tile gone and seat 0's 2-6 laid, seemingly its last tile. When the next state
    confirms the draw, it goes in before the 2-6: seat 0 holds one more, so the hand goes on
    (the referee does not sit waiting for a reveal while the other player keeps drawing)."""
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    ref.observe(state(0, OPEN_63, down=10))
    ref.observe(state(2, OPEN_63, RIGHT_34, down=10))
    ref.observe(state(4, OPEN_63, RIGHT_34, LEFT_26, down=9))
    assert ref.waiting_reveal  # as far as the draw is confirmed yet, seat 0 went out
    got = ref.observe(state(6, OPEN_63, RIGHT_34, LEFT_26, down=9))
    assert [(e.kind, e.player, e.frame) for e in got] == [(Kind.DRAW, 0, 4)]
    assert not ref.waiting_reveal
    assert [(m.kind, m.player) for m in ref.hand.moves] == [("play", 0), ("play", 1), ("draw", 0), ("play", 0)]
    assert ref.hand.held_count(0) == 1
    got = ref.observe(state(8, OPEN_63, RIGHT_34, LEFT_26, down=8))  # seat 1 draws
    assert got == []
    (draw,) = ref.observe(state(10, OPEN_63, RIGHT_34, LEFT_26, down=8))
    assert (draw.kind, draw.player, draw.frame) == (Kind.DRAW, 1, 8)


def test_the_next_hand_starts_once_the_line_is_cleared() -> None:
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    _domino(ref)
    ref.observe(state(8, *LINE, *TOP_ROW))
    assert ref.observe(state(9, *LINE)) == []  # the line still lies there
    assert ref.observe(state(10)) == []
    (opening,) = ref.observe(state(11, tile(5, 1, 400, 300)))
    assert (opening.kind, opening.tile, opening.player) == (Kind.PLAY, "5-1", 0)  # the winner opens
    assert len(ref.match.hands) == 1 and ref.on_table() == ["5-1"]


def test_what_the_referee_could_not_follow_is_said_again_in_the_next_hand() -> None:
    # The same tiles seen together opening two hands of a match: the second time too the
    # referee says it could not follow (it said it once a match before).
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    said = ref.observe(state(0, OPEN_63, RIGHT_34, down=10))
    assert (said[0].kind, said[0].reason) == (Kind.UNFOLLOWED, "several_new_tiles")
    ref.observe(state(3, *LINE, down=10))
    assert kinds(ref.observe(state(8, *LINE, TOP_ROW[0], down=10))) == [Kind.HAND_END]
    ref.observe(state(10))
    ref.observe(state(11))  # the line cleared: the next hand
    again = ref.observe(state(12, OPEN_63, RIGHT_34, down=10))
    assert [(e.kind, e.reason, e.tile) for e in again] == [
        (Kind.UNFOLLOWED, "several_new_tiles", None), (Kind.PLAY, None, "6-3"), (Kind.PLAY, None, "4-3")]


def test_a_reveal_the_camera_cannot_read_is_entered_by_hand() -> None:
    # Seat 1 lays its two tiles out where the camera reads them doubtfully only: the referee
    # waits; entered by hand, the reveal scores the hand as if read.
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    _domino(ref)
    unread = tuple(dataclasses.replace(t, uncertain=True) for t in TOP_ROW)
    assert kinds(ref.observe(state(5, *LINE, *unread, down=9))) == [Kind.UNFOLLOWED]
    assert ref.waiting_reveal
    (end,) = ref.reveal_by_hand(6, ["1-5", "2-0"])  # seat 1 alone holds tiles: no seat needed
    assert end == Event(6, Kind.HAND_END, winner=0, points=8, reveal=((), ("5-1", "2-0")))
    assert ref.match.scores == [8, 0] and not ref.waiting_reveal
    assert ref.observe(state(7, *LINE, *TOP_ROW, down=9)) == []  # read at last: already scored


def test_a_reveal_by_hand_that_contradicts_the_hand_is_refused_and_nothing_is_logged() -> None:
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    with pytest.raises(ValueError, match="no hand is waiting for its reveal"):
        ref.reveal_by_hand(0, ["5-1", "2-0"])
    _domino(ref)
    before = list(ref.history)
    for tiles, message in ((["5-1"], "player 2 holds 2 tiles, not 1"), (["5-1", "6-3"], "6-3 is on the table"),
                           (["5-1", "5-1"], "contradict"), (["5-1", "7-7"], "not in a double-6 set"),
                           (["5-1", "x"], "expected a tile like")):
        with pytest.raises(ValueError, match=message):
            ref.reveal_by_hand(5, tiles)
    with pytest.raises(ValueError, match="player 1 holds no tiles"):
        ref.reveal_by_hand(5, ["5-1", "2-0"], seat=0)
    assert ref.history == before and ref.waiting_reveal
    (end,) = ref.reveal_by_hand(6, ["5-1", "2-0"], seat=1)
    assert end.points == 8


def _blocked() -> Referee:
    """Block game, two tiles each: seat 0 opens 6-3, then both pass (blocked; both hold tiles)."""
    ref = Referee(Rules(Variant.BLOCK, players=2, hand_size=2, first_player=0))
    ref.observe(state(0, OPEN_63))
    ref.pass_turn(1)
    ref.pass_turn(2)
    return ref


def test_a_blocked_hand_takes_each_players_reveal_by_hand() -> None:
    ref = _blocked()
    with pytest.raises(ValueError, match="players 1, 2 hold tiles: name the player"):
        ref.reveal_by_hand(3, ["1-0"])
    # Seat 1 has still to show theirs: what seat 0 showed is logged, not yet scored.
    assert ref.reveal_by_hand(3, ["1-0"], seat=0) == [Event(3, Kind.REVEAL, player=0, tiles=("1-0",), by_hand=True)]
    assert ref.waiting_reveal and ref.match.scores == [0, 0]
    (end,) = ref.reveal_by_hand(4, ["5-4", "5-2"], seat=1)
    assert end.reveal == (("1-0",), ("5-4", "5-2")) and end.points == 15 and ref.match.scores == [15, 0]


def test_a_partial_reveal_by_hand_survives_a_crash(tmp_path: Path) -> None:
    """One player's tiles are entered, then the referee dies: resumed from the SQLite event log,
    it asks only for the other player's, and scores the hand from both."""
    ref = _blocked()
    log = EventLog(tmp_path / "events.sqlite")
    session = log.start_session({"variant": "block", "players": 2})
    for event in [*ref.history, *ref.reveal_by_hand(3, ["1-0"], seat=0)]:
        log.append(session, event)
    log.close()
    resumed = Referee(Rules(Variant.BLOCK, players=2, hand_size=2, first_player=0))
    resumed.restore(event for _, event, _ in EventLog(tmp_path / "events.sqlite").events(session))
    assert resumed.waiting_reveal
    with pytest.raises(ValueError, match="player 1 holds 1 tile, not 2"):  # seat 0's are known still
        resumed.reveal_by_hand(4, ["5-4", "5-2"], seat=0)
    (end,) = resumed.reveal_by_hand(4, ["5-4", "5-2"], seat=1)
    assert end.reveal == (("1-0",), ("5-4", "5-2")) and end.points == 15 and resumed.match.scores == [15, 0]


def test_undo_takes_back_a_reveal_typed_in_and_a_resumed_referee_forgets_it_too() -> None:
    # Seat 0's tiles are typed in wrong (6-6 for 1-0): undo takes that reveal back, not the
    # last pass; typed in right, the hand is scored the same live and resumed from the events.
    ref = _blocked()
    moves = ref.hand.move_count()
    ref.reveal_by_hand(3, ["6-6"], seat=0)
    (undo,) = ref.undo(4)
    assert undo == Event(4, Kind.UNDO, reason="reveal", player=0)
    assert ref.waiting_reveal and ref.hand.move_count() == moves
    resumed = Referee(Rules(Variant.BLOCK, players=2, hand_size=2, first_player=0))
    resumed.restore(ref.history)
    for r in (ref, resumed):
        r.reveal_by_hand(5, ["1-0"], seat=0)
        (end,) = r.reveal_by_hand(6, ["5-4", "5-2"], seat=1)
        assert end.reveal == (("1-0",), ("5-4", "5-2")) and end.points == 15


def test_a_reveal_typed_in_again_for_the_same_player_replaces_the_first() -> None:
    ref = _blocked()
    ref.reveal_by_hand(3, ["6-6"], seat=0)
    ref.reveal_by_hand(4, ["1-0"], seat=0)
    with pytest.raises(ValueError, match="contradict"):  # 1-0 is seat 0's now
        ref.reveal_by_hand(5, ["1-0", "5-2"], seat=1)
    (end,) = ref.reveal_by_hand(6, ["5-4", "5-2"], seat=1)
    assert end.reveal == (("1-0",), ("5-4", "5-2"))


def test_a_hand_scored_before_every_reveal_came_keeps_those_typed_in() -> None:
    # Only seat 1's tiles are typed in, then the next hand is called: seat 0's are unknown, so
    # no points are guessed, but what seat 1 showed is the hand's.
    ref = _blocked()
    ref.reveal_by_hand(3, ["5-4", "5-2"], seat=1)
    (end, *_) = ref.next_hand(4)
    assert end.kind is Kind.HAND_END and end.points is None
    assert set(map(str, ref.match.hands[0].held(1))) == {"5-4", "5-2"}


def test_a_blocked_hand_is_scored_from_two_revealed_rows() -> None:
    ref = _blocked()
    assert ref.waiting_reveal
    bottom = (tile(1, 0, 400, 540, 90.0),)  # seat 0: one tile left
    top = (tile(5, 4, 370, 60, 90.0), tile(5, 2, 430, 60, 90.0))  # seat 1: two
    (end,) = ref.observe(state(3, OPEN_63, *bottom, *top))
    assert end.kind is Kind.HAND_END and end.winner == 0
    assert end.reveal == (("1-0",), ("5-4", "5-2"))
    assert end.points == 16 - 1  # the difference of the pip totals
    assert ref.match.scores == [15, 0]


# == resuming from the log ====================================================================
def test_restoring_the_logged_events_gives_the_live_referees_hand() -> None:
    session = Session(FIVES, never)
    frames = [
        detection(down=14),
        detection(OPEN_63, down=14),
        detection(OPEN_63, WRONG_43, down=14),
        detection(OPEN_63, down=13),
        detection(OPEN_63, RIGHT_34, down=13),
        detection(OPEN_63, RIGHT_34, LEFT_16, down=13),
    ]
    index = 0
    for det in frames:
        for _ in range(2):
            session.frame(index, detection=det)
            index += 1
    assert kinds(session.events) == [Kind.PLAY, Kind.ILLEGAL, Kind.DRAW, Kind.PLAY, Kind.PLAY]
    live = session.referee
    assert live.hand.points == [5, 10]  # 4-3: 6 + 4 for seat 1; then 1-6: 1 + 4 for seat 0
    fresh = Referee(FIVES)
    restore(fresh, session.events)
    assert fresh.hand.line() == live.hand.line()
    assert fresh.hand.turn == live.hand.turn == 1
    assert fresh.hand.points == live.hand.points
    assert fresh.match.scores == live.match.scores
    assert [fresh.hand.held_count(s) for s in (0, 1)] == [live.hand.held_count(s) for s in (0, 1)]
    assert fresh.history == live.history


def test_restoring_a_finished_hand_gives_the_same_scores() -> None:
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    live = Referee(rules)
    _domino(live)
    live.observe(state(8, *LINE, *TOP_ROW))
    fresh = Referee(rules)
    restore(fresh, live.history)
    assert fresh.match.scores == live.match.scores == [8, 0]
    assert fresh.over and not fresh.waiting_reveal


# == the reveal's seats =======================================================================
def _row(y: float, n: int, x: float = 400.0, first: int = 0) -> list[TileReading]:
    """``n`` upright tiles side by side centred near (x, y), with distinct values."""
    return [tile(first + i, 6, x + (i - (n - 1) / 2) * 1.25 * W, y, 90.0) for i in range(n)]


def _names(seats: list[list[TileReading]] | None) -> list[list[tuple[int, int]]] | None:
    return None if seats is None else [[t.pips for t in seat] for seat in seats]


def test_two_rows_go_to_the_bottom_and_top_seats_by_default() -> None:
    bottom, top = _row(540, 2), _row(60, 2, first=2)
    assert groups([*top, *bottom]) == [[0, 1], [2, 3]]
    seats = assign_seats([*top, *bottom], [2, 2], SIZE)
    assert _names(seats) == _names([bottom, top])


def test_the_seats_angles_are_followed() -> None:
    bottom, top = _row(540, 2), _row(60, 2, first=2)
    assert _names(assign_seats([*bottom, *top], [2, 2], SIZE, seats=(270.0, 90.0))) == _names([top, bottom])
    left, right = _row(300, 2, x=80), _row(300, 2, x=720, first=2)
    assert _names(assign_seats([*left, *right], [2, 2], SIZE, seats=(0.0, 180.0))) == _names([right, left])


def test_row_sizes_decide_before_the_edges() -> None:
    bottom, top = _row(540, 1), _row(60, 3, first=1)
    seats = assign_seats([*bottom, *top], [3, 1], SIZE)
    assert _names(seats) == _names([top, bottom])


def test_rows_that_cannot_be_matched_give_none() -> None:
    rows = [*_row(540, 1), *_row(60, 1, first=1), *_row(300, 1, x=80, first=2)]
    assert assign_seats(rows, [2, 1], SIZE) is None  # three rows for two holders
    assert assign_seats(rows[:2], [1, 2], SIZE) is None  # fewer tiles than held


# == the spinner's short ends =================================================================
def test_the_spinners_short_ends_are_up_and_down() -> None:
    hand = Hand(FIVES)
    spinner, right, left = across(5, 400, 300), tile(5, 0, 460, 300), tile(1, 5, 340, 300)
    hand.play(Play(Tile(5, 5)), seat=0)
    hand.play(Play(Tile(5, 0), End.LEFT), seat=1)  # the first arm beside a lone double is "left"
    hand.play(Play(Tile(5, 1), End.RIGHT), seat=0)
    above = tile(3, 5, 400, 220, 90.0)  # its 5 half against the spinner's upper short end
    below = tile(5, 4, 400, 380, 90.0)  # its 5 half against the lower one

    def where(readings: list[TileReading]) -> End | None:
        pieces = [piece(i, r) for i, r in enumerate(readings)]
        table = {str(Tile(*p.pips)): p for p in pieces[:-1]}
        found = place(hand.table, pieces[-1], contacts(pieces), table)
        assert found is not None and found.reason is None
        return found.end

    first = where([spinner, right, left, above])
    assert first in (End.UP, End.DOWN)
    hand.play(Play(Tile(5, 3), first), seat=1)
    second = where([spinner, right, left, above, below])
    assert {first, second} == {End.UP, End.DOWN}


def test_an_end_is_called_closed_only_while_the_whole_line_is_seen() -> None:
    # Rendered hand 9302-003: after plays the referee missed, a state showed two tiles, one of
    # them laid against the spinner's short end; the referee held that end closed (its line
    # lacked the missed plays) and called a legal play illegal. A state that does not show the
    # line as the referee holds it may lack the plays that opened the end.
    spinner, left = across(5, 400, 300), tile(1, 5, 340, 300)
    above = tile(3, 5, 400, 220, 90.0)  # its 5 half against the spinner's upper short end
    ref = Referee(FIVES)
    ref.observe(state(1, spinner))
    ref.observe(state(3, spinner, left))
    assert ref.observe(state(5, left, above)) == []  # the spinner unseen
    assert Kind.ILLEGAL not in kinds(ref.observe(state(7, left, above)))
    # With the whole line in view the same tile is illegal: the spinner's second side is empty.
    ref = Referee(FIVES)
    ref.observe(state(1, spinner))
    ref.observe(state(3, spinner, left))
    (illegal,) = ref.observe(state(5, spinner, left, above))
    assert (illegal.kind, illegal.tile, illegal.end, illegal.reason) == (Kind.ILLEGAL, "5-3", "up", "end_closed")


def shrunk(reading: TileReading, k: float = 0.9) -> TileReading:
    """``reading`` with its box drawn ``k`` times as long and wide about its centre, as vision
    draws the face of a tile with rounded edges."""
    cx, cy = reading.center
    corners = [(cx + k * (x - cx), cy + k * (y - cy)) for x, y in reading.corners]
    return dataclasses.replace(reading, corners=quad(corners))


def test_a_tile_against_an_unread_spinners_short_end_is_played_through_short_boxes() -> None:
    """As in the sample hand: a tile laid against the spinner's short end, the spinner now read
    only doubtfully, and both boxes drawn a tenth small, so the ends look 0.4 of a width apart."""
    ref = Referee(FIVES)
    spinner, left, right = across(6, 400, 300), tile(0, 6, 340, 300), tile(6, 4, 460, 300)
    ref.observe(state(1, spinner))
    ref.observe(state(3, spinner, left))
    ref.observe(state(5, spinner, left, right))
    assert sorted(ref.on_table()) == ["6-0", "6-4", "6-6"]
    unread = shrunk(dataclasses.replace(spinner, uncertain=True))
    up = shrunk(tile(1, 6, 400, 220 - 0.15 * W, 90.0))  # its 6 half towards the spinner's upper end
    (event,) = ref.observe(state(7, unread, left, right, up))
    assert (event.kind, event.tile, event.end, event.points) == (Kind.PLAY, "6-1", "up", 5)  # 0 + 4 + 1


def test_a_tile_against_a_spinner_boxed_the_wrong_way_is_played_against_where_it_lies() -> None:
    """As in the sample hand: vision packs the run straight through the spinner lying across it,
    and reads a box along the run there, doubtfully. A tile of the line does not turn: the tile
    laid against the spinner's short end is played against the spinner where it was seen."""
    ref = Referee(FIVES)
    spinner, left, right = across(6, 400, 300), tile(0, 6, 340, 300), tile(6, 4, 460, 300)
    ref.observe(state(1, spinner))
    ref.observe(state(3, spinner, left))
    ref.observe(state(5, spinner, left, right))
    along = tile(6, 4, 392, 300, uncertain=True)  # the spinner's place, boxed along the run
    up = tile(1, 6, 400, 220, 90.0)  # its 6 half against the spinner's upper short end
    (event,) = ref.observe(state(7, along, left, right, up))
    assert (event.kind, event.tile, event.end, event.points) == (Kind.PLAY, "6-1", "up", 5)


def test_a_line_tile_boxed_part_of_a_tile_along_does_not_hold_up_the_next_play() -> None:
    """After a play vision may box a tile of the line 0.3 of a tile along the run, and read
    nothing surely there: that box is the tile, not a new tile nobody can read yet."""
    ref = opened()
    ref.observe(state(2, OPEN_63, RIGHT_34))
    slid = tile(4, 1, 456, 300, uncertain=True)  # the 3-4, its box 0.3 of a length back along the run
    (play,) = ref.observe(state(4, OPEN_63, slid, tile(4, 5, 560, 300)))
    assert (play.kind, play.tile, play.end) == (Kind.PLAY, "5-4", "right")


def test_a_doubtful_box_straddling_a_seam_of_the_line_is_no_new_tile() -> None:
    """A box over the seam between two tiles of the line (its centre on both tiles' boxes) is
    vision's, not a tile laid on top of the line: it does not hold up the next play."""
    ref = opened()
    ref.observe(state(2, OPEN_63, RIGHT_34))
    straddler = tile(3, 3, 440, 300, uncertain=True)
    (play,) = ref.observe(state(4, OPEN_63, RIGHT_34, straddler, tile(4, 5, 560, 300)))
    assert (play.kind, play.tile, play.end) == (Kind.PLAY, "5-4", "right")


def test_slide_is_a_share_of_a_tile_length() -> None:
    with pytest.raises(ValueError, match=r"slide must be a number between 0 and 1 \(tile lengths\), got 1.5"):
        RefereeConfig(slide=1.5)


def test_tiles_side_by_side_are_not_an_end_touching_the_other() -> None:
    """A tile laid beside the line, its end flush with a line tile's end, is half a width from
    that end: near enough for the gap, but it lies beside it, not in front of it."""
    ref = opened()
    beside = tile(2, 5, 400, 300 + W)  # alongside the opening 6-3, not touching its ends
    assert ref.observe(state(2, OPEN_63, beside)) == []
    assert ref.on_table() == ["6-3"]


@pytest.mark.parametrize(("field", "value"), [
    ("opener", -1), ("opener", "0"), ("reach", 0), ("reach", 1.0), ("reach", "0.5"), ("reach", True),
    ("middle", 0), ("middle", float("nan")), ("facing", 1), ("facing", None),
    ("boneyard_states", 0), ("illegal_votes", 1.5), ("illegal_confidence", 1.2), ("illegal_confidence", True),
    ("takeback_states", 0), ("unread_states", 0), ("plain_opening", 0), ("plain_opening", 1.5),
])
def test_referee_config_rejects_bad_values_naming_the_field(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=rf"\b{field}\b") as caught:
        RefereeConfig(**{field: value})
    assert repr(value) in str(caught.value)


def test_draws_put_down_before_a_tile_the_rules_pin_down_go_to_the_next_player() -> None:
    """Player 1's 4-3 lay at the right end, never read clearly, while player 0 drew: the
    referee, not knowing of the play, gave the draw to player 1. Then player 0 laid 4-1 against
    the unread tile's far half, and the rules pin it down as 4-3, laid before the draw: the
    referee takes the draw back, plays 4-3 for player 1, draws again for player 0, and plays
    4-1 for player 0 (rendered hand 9302-000 held two tiles too many at its end without this)."""
    ref = Referee(FIVES)
    ref.observe(state(1, down=14))
    ref.observe(state(2, OPEN_63, down=14))
    unread = tile(3, 4, 480, 300, uncertain=True)
    assert ref.observe(state(3, OPEN_63, unread, down=14)) == []
    ref.observe(state(4, OPEN_63, unread, down=13))
    drawn = ref.observe(state(5, OPEN_63, unread, down=13))
    assert [(e.kind, e.player) for e in drawn if e.kind is Kind.DRAW] == [(Kind.DRAW, 1)]
    got = ref.observe(state(6, OPEN_63, unread, tile(4, 1, 560, 300), down=13))
    assert [(e.kind, e.tile, e.player, e.reason) for e in got] == [
        (Kind.UNDO, None, 1, "draw"), (Kind.PLAY, "4-3", 1, None), (Kind.DRAW, None, 0, None),
        (Kind.PLAY, "4-1", 0, None)]
    assert got[1].inferred and got[1].frame == 3
    assert [(a.kind, a.player) for a in ref.hand.moves] == [("play", 0), ("play", 1), ("draw", 0), ("play", 0)]
    resumed = Referee(FIVES)
    resumed.restore(ref.history)
    assert resumed.hand.moves == ref.hand.moves and resumed.hand.turn == ref.hand.turn == 1


def test_a_state_read_badly_does_not_count_towards_a_take_back() -> None:
    ref = opened(config=RefereeConfig(takeback_states=2))
    ref.observe(state(2, OPEN_63, RIGHT_34))
    blurred = tile(6, 3, 400, 300, uncertain=True)  # the rest of the line not read clearly
    assert ref.observe(state(4, blurred)) == []
    assert ref.observe(state(6, blurred)) == []
    assert sorted(ref.on_table()) == ["4-3", "6-3"]


def test_several_line_tiles_vanishing_at_once_is_no_table() -> None:
    ref = opened()
    ref.observe(state(2, OPEN_63, RIGHT_34))
    ref.observe(state(4, OPEN_63, RIGHT_34, LEFT_26))
    assert sorted(ref.on_table()) == ["4-3", "6-2", "6-3"]
    for frame in (6, 8, 10):  # an arm vision did not see hides the line: nothing happens
        assert ref.observe(state(frame, tile(5, 5, 700, 500))) == []
    assert sorted(ref.on_table()) == ["4-3", "6-2", "6-3"]


def test_an_unreadable_tile_pinned_down_by_the_rules_is_played_marked_inferred() -> None:
    ref = opened()
    unread = tile(3, 5, 480, 300, uncertain=True)  # 4-3 laid, read doubtfully as 3-5 (far half wrong too)
    after = tile(4, 1, 560, 300)  # then 4-1 against its far half, read clearly
    assert ref.observe(state(2, OPEN_63, unread, after)) == []  # the far halves disagree (5 vs 4): wait
    unread = tile(3, 4, 480, 300, uncertain=True)  # now its far half reads 4, as 4-1's near half shows
    got = ref.observe(state(4, OPEN_63, unread, after))
    assert [(e.tile, e.end, e.inferred) for e in got] == [("4-3", "right", True), ("4-1", "right", None)]


def test_an_unreadable_tile_does_not_stop_the_hand_once_the_rules_pin_it_down() -> None:
    """4-3 laid at the right end and never read clearly; meanwhile 2-6 goes on the left end,
    then 4-1 against the unread tile's far half. The referee waits while the unread tile could
    be anything, and plays all three, in the order they were laid, once the rules pin it down."""
    ref = opened()
    unread = tile(3, 4, 480, 300, uncertain=True)
    assert ref.observe(state(2, OPEN_63, unread)) == []
    assert ref.observe(state(4, OPEN_63, unread, LEFT_26)) == []  # who laid 2-6 depends on 4-3
    got = ref.observe(state(6, OPEN_63, unread, LEFT_26, tile(4, 1, 560, 300)))
    assert [(e.tile, e.end, e.player, e.inferred) for e in got] == [
        ("4-3", "right", 1, True), ("6-2", "left", 0, None), ("4-1", "right", 1, None)]
    assert [e.frame for e in got] == [2, 4, 6]


def test_a_tile_laid_where_an_illegal_one_was_taken_back_is_dated_from_when_it_came() -> None:
    """Player 1 tries 4-3 the wrong way round and takes it back, lays 2-6 on the left (read only
    later), and then player 0 lays 4-3 where the wrong one lay. The place is new again: 4-3 is
    the later play, not one dated from the illegal try."""
    ref = opened()
    (illegal,) = ref.observe(state(2, OPEN_63, WRONG_43))
    assert (illegal.kind, illegal.tile, illegal.player) == (Kind.ILLEGAL, "4-3", 1)
    assert ref.observe(state(4, OPEN_63)) == []  # taken back
    assert ref.observe(state(6, OPEN_63, dataclasses.replace(LEFT_26, uncertain=True))) == []
    got = ref.observe(state(8, OPEN_63, LEFT_26, RIGHT_34))
    assert [(e.kind, e.tile, e.player, e.frame) for e in got] == [
        (Kind.PLAY, "6-2", 1, 6), (Kind.PLAY, "4-3", 0, 8)]


def test_a_tile_read_early_where_an_illegal_one_was_taken_back_keeps_its_turn_and_its_draws() -> None:
    """Rendered hand 9301-000: an illegal tile is taken back and the right one laid in its
    place, read surely in frames too few to make a state; the next player draws two and lays a
    tile at the other end, and one state shows both new tiles and the draws. The tile read first
    came first: it is player 1's, and the draws and the other tile are player 0's. (Dated by
    the state alone, the place the illegal tile left made the first tile look the later: the
    players swapped, the fives went to the wrong one, the draws to the wrong hand, and the
    reveal at the end never added up.)"""
    ref = Referee(FIVES)
    assert kinds(ref.observe(state(0, OPEN_63, down=14))) == [Kind.PLAY]
    (illegal,) = ref.observe(state(2, OPEN_63, tile(4, 1, 480, 300), down=14))
    assert (illegal.kind, illegal.tile, illegal.player) == (Kind.ILLEGAL, "4-1", 1)
    both = state(8, OPEN_63, LEFT_26, RIGHT_34, down=12)
    both = dataclasses.replace(both, tiles=(both.tiles[0], dataclasses.replace(both.tiles[1], first_seen=8),
                                            dataclasses.replace(both.tiles[2], first_seen=5)))
    got = ref.observe(both)
    assert [(e.kind, e.tile, e.player) for e in got] == [
        (Kind.UNFOLLOWED, None, None), (Kind.PLAY, "4-3", 1), (Kind.PLAY, "6-2", 0)]
    assert got[0].reason == "several_new_tiles"
    drawn = ref.observe(dataclasses.replace(both, frame=10, last=11))
    assert [(e.kind, e.player, e.at) for e in drawn] == [(Kind.DRAW, 0, 2), (Kind.DRAW, 0, 3)]
    assert [(a.kind, a.player) for a in ref.hand.moves] == [
        ("play", 0), ("play", 1), ("draw", 0), ("draw", 0), ("play", 0)]


def test_a_double_laid_against_the_spinners_side_is_a_mismatch() -> None:
    ref = Referee(FIVES)
    ref.observe(state(1, across(6, 400, 300)))
    ref.observe(state(3, across(6, 400, 300), tile(6, 2, 440, 300)))  # 6-2 on the right long side
    (event,) = ref.observe(state(5, across(6, 400, 300), tile(6, 2, 440, 300), across(2, 360, 300)))
    assert (event.kind, event.tile, event.reason) == (Kind.ILLEGAL, "2-2", "mismatch")


def test_an_unread_double_opener_is_pinned_down_by_the_tile_laid_against_it() -> None:
    """The opening 6-6 lies across the line and no frame reads it surely (vision's doubtful
    reading is 6-6); 6-2 laid against the middle of its long side says it is the double six.
    The referee plays 6-6 then 6-2, not 6-2 as the opening."""
    ref = Referee(FIVES)
    opener = tile(6, 6, 400, 300, 90.0, uncertain=True)
    assert ref.observe(state(0, opener)) == []
    got = ref.observe(state(2, opener, tile(6, 2, 460, 300)))
    assert [(e.frame, e.tile, e.end, e.player, e.points, e.inferred) for e in got] == [
        (0, "6-6", None, 0, 0, True), (2, "6-2", "left", 1, 0, None)]


def test_a_first_hand_opens_on_an_unread_double_seen_with_the_tile_across_it() -> None:
    """Rendered hand 9306-003: the opening 0-0 and the 6-0 laid against it came into one state,
    and the 0-0 read doubtfully until the eighth play. A first hand opens on a double, so the
    double opened and the 6-0 came after it; the referee follows the hand from there, and an
    illegal tile tried meanwhile is called."""
    opener = tile(0, 0, 400, 300, 90.0, uncertain=True)
    first = (opener, tile(0, 6, 460, 300))  # its 0 half against the middle of the double
    ref = Referee(FIRST_HAND)
    got = ref.observe(state(0, *first))
    assert [(e.frame, e.tile, e.player, e.points, e.inferred) for e in got] == [
        (0, "0-0", 0, 0, True), (0, "6-0", 1, 0, None)]
    (event,) = ref.observe(state(2, *first, tile(2, 3, 540, 300)))  # its 2 against the 6 end
    assert (event.kind, event.tile, event.reason) == (Kind.ILLEGAL, "3-2", "mismatch")
    # Where any tile may open (a hand with a leader), either could have: the referee waits.
    ref = Referee(FIVES)
    assert ref.observe(state(0, *first)) == [] and ref.on_table() == []


def test_an_unread_opener_no_tile_pins_down_is_waited_for() -> None:
    ref = Referee(FIVES)
    blank_read = tile(0, 0, 400, 300, 90.0, uncertain=True)  # a crossing tile, doubtfully read 0-0
    assert ref.observe(state(0, blank_read)) == []
    assert ref.observe(state(2, blank_read, tile(6, 2, 460, 300))) == []  # one tile says 6, vision 0
    assert ref.on_table() == []
    lengthwise = tile(3, 5, 400, 300, uncertain=True)  # one end touched: the other could be anything
    ref = Referee(FIVES)
    assert ref.observe(state(0, lengthwise)) == []
    assert ref.observe(state(2, lengthwise, tile(3, 1, 480, 300))) == []
    got = ref.observe(state(4, lengthwise, tile(3, 1, 480, 300), tile(2, 6, 320, 300)))  # both ends now
    assert [(e.frame, e.tile, e.player, e.inferred) for e in got] == [
        (0, "6-3", 0, True), (2, "3-1", 1, None), (4, "6-2", 0, None)]


def test_an_unread_double_across_an_open_end_is_the_double_of_the_end() -> None:
    ref = opened()
    doubtful = tile(3, 3, 460, 300, 90.0, uncertain=True)  # across the 3 end, read 3-3 but unsure
    (play,) = ref.observe(state(2, OPEN_63, doubtful))
    assert (play.tile, play.end, play.player, play.points, play.inferred) == ("3-3", "right", 1, 0, True)
    ref = opened()
    misread = tile(3, 5, 460, 300, 90.0, uncertain=True)  # read as no double: wait for more
    assert ref.observe(state(2, OPEN_63, misread)) == []
    got = ref.observe(state(4, OPEN_63, misread, tile(3, 1, 520, 300)))  # a 3 against its far side
    assert [(e.tile, e.end, e.inferred) for e in got] == [("3-3", "right", True), ("3-1", "right", None)]


def test_an_unread_tile_across_an_open_end_with_one_half_surely_the_ends_number_is_its_double() -> None:
    # The last tile of a hand, across the 3 end: vision reads 3-5, its 3 half surely over the
    # run and the other not. Across an end only a double lies: it is the 3-3. A half read surely
    # as another number leaves it unread.
    def across_read(sure: tuple[int | None, int | None]) -> StableState:
        base = state(2, OPEN_63, tile(3, 5, 460, 300, 90.0, uncertain=True))
        return dataclasses.replace(base, tiles=(base.tiles[0], dataclasses.replace(base.tiles[1], sure_halves=sure)))
    ref = opened()
    (play,) = ref.observe(across_read((3, None)))
    assert (play.tile, play.end, play.inferred) == ("3-3", "right", True)
    ref = opened()
    assert ref.observe(across_read((3, 5))) == []
    assert ref.on_table() == ["6-3"]


def test_a_box_along_the_line_straddling_a_seam_is_never_a_double_across_the_end() -> None:
    # A rendered hand: 2-1 laid on the 2 end of 0-2, and in some frames vision packed the run
    # half a tile off, one box over the seam reading the two 2 halves as a doubtful 2-2. The
    # end of 0-2 lay inside that box, against the middle of its long side by the contacts, and
    # the 2-2, never on the table, was played as a double across the end.
    ref = opened()
    straddle = tile(3, 3, 448, 326, uncertain=True)  # along the line, over the 3 end, pushed aside
    assert ref.observe(state(2, OPEN_63, straddle)) == []
    assert ref.on_table() == ["6-3"]
    (play,) = ref.observe(state(4, OPEN_63, RIGHT_34))
    assert (play.tile, play.end, play.inferred) == ("4-3", "right", None)


def test_a_doubtful_second_box_on_a_table_tile_does_not_hold_up_the_hand() -> None:
    """Vision finds the opener 6-3 twice: its box, and a doubtful box most of a tile along that
    straddles its end and the empty table. Tiles are unique: the doubtful 6-3 beside the 6-3 is that
    tile, not an unread new one, and 2-6 laid on the left is played without waiting for it."""
    ref = opened()
    ghost = tile(6, 3, 470, 300, uncertain=True)
    (play,) = ref.observe(state(2, OPEN_63, ghost, LEFT_26))
    assert (play.kind, play.tile, play.end, play.player) == (Kind.PLAY, "6-2", "left", 1)


# == several tiles at once, in the order they came ==============================================
def test_a_decided_tile_is_dated_by_the_first_frame_that_read_it_surely() -> None:
    # Between two stable states, frames too few or too mixed to agree still show which tile
    # came first: 2-6 read surely at frame 3, 3-4 only from frame 5.
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    stab.feed(0, detection(OPEN_63))
    assert stab.feed(1, detection(OPEN_63)) is not None
    stab.feed(2, OCCLUDED)
    stab.feed(3, detection(OPEN_63, LEFT_26))
    stab.feed(4, OCCLUDED)
    stab.feed(5, detection(OPEN_63, LEFT_26, RIGHT_34))
    stab.feed(6, OCCLUDED)
    stab.feed(7, detection(OPEN_63, LEFT_26, RIGHT_34))
    got = stab.feed(8, detection(OPEN_63, LEFT_26, RIGHT_34))
    assert got is not None and got.frame == 7
    assert {t.name: t.first_seen for t in got.tiles} == {"6-3": 0, "6-2": 3, "4-3": 5}


def test_a_tile_a_state_misses_keeps_its_first_sighting_until_another_lies_there() -> None:
    stab = Stabiliser(StabiliserConfig(stable_frames=2))
    stab.feed(0, detection(OPEN_63))
    stab.feed(1, detection(OPEN_63))
    stab.feed(2, detection(OPEN_63, LEFT_26))  # seen once, then lost by vision for a state
    stab.feed(3, OCCLUDED)
    stab.feed(4, detection(OPEN_63))
    missed = stab.feed(5, detection(OPEN_63))
    assert missed is not None and missed.names() == {"6-3"}  # a state without the 2-6
    stab.feed(6, OCCLUDED)
    stab.feed(7, detection(OPEN_63, LEFT_26))
    got = stab.feed(8, detection(OPEN_63, LEFT_26))
    assert got is not None and {t.name: t.first_seen for t in got.tiles} == {"6-3": 0, "6-2": 2}
    # 2-6 taken back and 1-6 laid in its place: dated from when it was read, not from the 2-6.
    stab.feed(9, OCCLUDED)
    stab.feed(10, detection(OPEN_63, LEFT_16))
    got = stab.feed(11, detection(OPEN_63, LEFT_16))
    assert got is not None and {t.name: t.first_seen for t in got.tiles} == {"6-3": 0, "6-1": 10}


def test_a_play_that_came_into_a_running_state_is_dated_when_it_was_read() -> None:
    """The 4-3 was laid without an arm vision saw: read doubtfully at frame 2 (which does not
    break the run that began at frame 0), surely from frame 3. The play is at frame 3, not at
    the run's first frame, before the tile was there."""
    stab, ref = Stabiliser(StabiliserConfig(stable_frames=2)), Referee(FIVES)
    events: list[Event] = []
    doubtful = dataclasses.replace(RIGHT_34, uncertain=True)
    for frame, new in enumerate([None, None, doubtful, RIGHT_34, RIGHT_34]):
        got = stab.feed(frame, detection(OPEN_63) if new is None else detection(OPEN_63, new))
        if got is not None:
            events += ref.observe(got)
    assert [(e.kind, e.tile, e.frame) for e in events] == [(Kind.PLAY, "6-3", 0), (Kind.PLAY, "4-3", 3)]


def dated(frame: int, *tiles: tuple[TileReading, int]) -> StableState:
    """A stable state whose decided tiles were first read surely at the given frames."""
    stable = tuple(StableTile(t, True, 2, first_seen=seen) for t, seen in tiles)
    return StableState(frame, frame + 1, 2, SIZE[0], SIZE[1], stable, 0, ())


def test_several_new_tiles_are_played_in_the_order_vision_first_read_them() -> None:
    # Four tiles came while no state agreed. The first read went first: 2-6 by seat 1 (ends 2
    # and 3: five), then 4-3 by seat 0, 5-4 by 1 (it needed the 4-3 first) and 1-2 by 0. In the
    # order of their names, 4-3 would have gone first and scored ten for seat 1.
    ref = opened()
    right_45, left_12 = tile(4, 5, 560, 300), tile(1, 2, 240, 300)
    got = ref.observe(dated(9, (OPEN_63, 0), (LEFT_26, 2), (RIGHT_34, 3), (right_45, 4), (left_12, 5)))
    assert got[0].kind is Kind.UNFOLLOWED
    assert [(e.tile, e.player, e.points, e.inferred) for e in got[1:]] == [
        ("6-2", 1, 5, True), ("4-3", 0, 0, True), ("5-4", 1, 0, True), ("2-1", 0, 0, True)]


def test_a_tile_matching_none_of_the_ends_it_may_have_gone_against_is_illegal() -> None:
    """Held-out hand 017: 1-1 laid crosswise at the spinner 5-5, whose box (read doubtfully)
    lies a little off. It touches the spinner's long side (the right end, showing 5) and, near
    its corner, a short end (closed: the spinner's second side is not played yet). Which end
    it went against cannot be told, but it can go against neither: illegal, a mismatch."""
    from referee.layout.geometry import Piece

    hand = Hand(FIRST_HAND)
    hand.play(Play(Tile(5, 5)), seat=1)
    hand.play(Play(Tile(5, 4), End.LEFT), seat=0)
    arm = Piece(0, (5, 4), (1454.4, 1726.9), (0.42685, 0.90432), 177.4, 81.8)
    spinner = Piece(1, (5, 5), (1381.34, 1593.71), (0.90430, -0.42690), 163.6, 81.8)
    new = Piece(2, (1, 1), (1370.16, 1519.53), (0.95229, -0.30519), 175.9, 91.3)
    found = place(hand.table, new, contacts([arm, spinner, new]), {"5-4": arm, "5-5": spinner})
    assert found is not None and (found.end, found.reason) == (None, "mismatch")
    fits = dataclasses.replace(new, pips=(5, 1))  # a tile that could go there: not guessed
    found = place(hand.table, fits, contacts([arm, spinner, fits]), {"5-4": arm, "5-5": spinner})
    assert found is not None and found.reason != "mismatch"


def test_a_line_re_boxed_half_a_tile_along_is_still_there_and_draws_are_seen() -> None:
    # After a play, vision may re-box a whole run half a tile along: every box straddles a seam
    # and reads nothing surely. The line is still on the table, unread, so the referee goes on
    # counting draws (held-out hand 003 stopped here: six draws and four plays went unseen).
    ref = Referee(FIVES)
    ref.observe(state(0, down=28))
    ref.observe(state(1, down=14))
    assert kinds(ref.observe(state(2, OPEN_63, down=14))) == [Kind.PLAY]
    assert kinds(ref.observe(state(3, OPEN_63, RIGHT_34, down=14))) == [Kind.PLAY]
    assert kinds(ref.observe(state(4, OPEN_63, RIGHT_34, LEFT_26, down=14))) == [Kind.PLAY]
    shifted = [tile(6, 6, 360, 300, uncertain=True), tile(3, 3, 440, 300, uncertain=True),
               tile(4, 4, 520, 300, uncertain=True)]
    assert ref.observe(state(5, *shifted, down=13)) == []
    assert ref.observe(state(6, *shifted, down=13)) == [Event(5, Kind.DRAW, player=1)]
    assert sorted(ref.on_table()) == ["4-3", "6-2", "6-3"]


def test_covered_must_be_tile_widths_between_zero_and_one() -> None:
    for bad in (0, 1.0, -0.1, True, "0.25"):
        with pytest.raises(ValueError, match="covered"):
            RefereeConfig(covered=bad)  # type: ignore[arg-type]


def test_a_line_tile_re_boxed_beside_its_place_does_not_hold_up_the_reveal() -> None:
    """While the reveal lies out, vision re-boxes a tile of the line half a tile along and
    cannot read it: its centre lies within the tile's last box, so it is that tile, not a reveal
    tile still to be read (held-out hand 002 ended unscored). An unread find off the line's
    boxes still holds the reveal up."""
    rules = Rules(Variant.DRAW, players=2, hand_size=2, first_player=0)
    ref = Referee(rules)
    _domino(ref)
    shifted = tile(4, 4, 500, 300, uncertain=True)  # 4-3 (centre 480) boxed a half-width along
    off = tile(4, 4, 520, 360, uncertain=True)  # below the line's end, on no tile's box
    assert ref.observe(state(5, OPEN_63, LEFT_26, shifted, off, *TOP_ROW, down=9)) == []
    (end,) = ref.observe(state(6, OPEN_63, LEFT_26, shifted, *TOP_ROW, down=9))
    assert end == Event(6, Kind.HAND_END, winner=0, points=8, reveal=((), ("5-1", "2-0")))


def test_a_tile_read_only_after_later_plays_is_said_and_marked_inferred() -> None:
    # Held-out hand 9301-000: the tiles left of the opener were laid first, but vision boxed
    # them across the opener (a doubtful find there is the opener) until long after the plays on
    # the right were followed. Read at last, the first of them is dated from where it first
    # showed: before the 4-3, so the turns since went by without it. It is still the play, but
    # its player and points are the rules' best account: marked inferred, and said.
    ref = opened()
    straddle = tile(6, 3, 335, 300, uncertain=True)  # a box over the 2-6 and a fifth of the opener
    assert ref.observe(state(3, OPEN_63, straddle)) == []
    got = ref.observe(state(10, OPEN_63, straddle, RIGHT_34))
    assert [(e.kind, e.tile, e.frame, e.inferred) for e in got] == [(Kind.PLAY, "4-3", 10, None)]
    right_45 = tile(4, 5, 560, 300)
    got = ref.observe(state(20, OPEN_63, LEFT_26, RIGHT_34, right_45))
    assert [(e.kind, e.reason, e.tile, e.frame, e.inferred) for e in got] == [
        (Kind.UNFOLLOWED, "late_tile", None, 20, None),
        (Kind.PLAY, None, "6-2", 3, True),
        (Kind.PLAY, None, "5-4", 20, None)]
    assert got[0].tiles == ("6-2",)


def test_tiles_read_together_go_in_the_order_they_came_though_one_lies_beyond_another() -> None:
    # Rendered hand 9302-003: the 5-2 beyond the 2-6 showed before the 4-3 at the other end;
    # the 2-6 and the 4-3 were read at last in one state. Played round by round, the 4-3 went
    # in before the 5-2, and every player after was wrong. Each goes in as it came: the first
    # of those that fit, then again.
    ref = opened()
    beyond = tile(5, 2, 240, 300)  # its 2 half against the 2-6's 2 end
    unread_26, unread_52, unread_34 = (dataclasses.replace(t, uncertain=True) for t in (LEFT_26, beyond, RIGHT_34))
    ref.observe(state(3, OPEN_63, unread_26))
    ref.observe(state(4, OPEN_63, unread_26, unread_52))
    ref.observe(state(5, OPEN_63, unread_26, unread_52, unread_34))
    got = ref.observe(state(6, OPEN_63, LEFT_26, beyond, RIGHT_34))
    assert [(e.tile, e.player, e.frame) for e in got if e.kind is Kind.PLAY] == [
        ("6-2", 1, 3), ("5-2", 0, 4), ("4-3", 1, 5)]
    assert line(ref) == ["5-2", "2-6", "6-3", "3-4"]


def test_a_doubtful_box_read_as_its_neighbour_a_length_beyond_it_is_a_new_tile() -> None:
    """Rendered hand 9301-004: player 0's 5-1, laid against the 3-1 at an end, was read
    doubtfully as 1-3, 0.99 of a length from the 3-1: taken for the 3-1 seen twice, it was
    ignored, and player 1's tile at the other end went to player 0, its 10 points with it. A box
    straddling a tile lies less than ``doubled`` (0.9) of a length from it; one a whole length
    along is a new tile: the referee waits until it reads it, then plays both in turn."""
    ref = opened()
    assert [(e.tile, e.player) for e in ref.observe(state(2, OPEN_63, RIGHT_34))] == [("4-3", 1)]
    unread = tile(3, 4, 558, 300, uncertain=True)  # the 4-5 beyond the 3-4, read doubtfully as 3-4
    assert ref.observe(state(4, OPEN_63, RIGHT_34, unread)) == []
    assert ref.observe(state(6, OPEN_63, RIGHT_34, unread, LEFT_26)) == []
    got = ref.observe(state(8, OPEN_63, RIGHT_34, tile(4, 5, 558, 300), LEFT_26))
    assert [(e.tile, e.player) for e in got if e.kind is Kind.PLAY] == [("5-4", 0), ("6-2", 1)]


def test_a_play_undone_does_not_make_a_later_tile_late() -> None:
    # An undone play no longer stands: a tile dated before it is not late for it.
    ref = opened()
    straddle = tile(6, 3, 335, 300, uncertain=True)  # a box over the 2-6 and a fifth of the opener
    assert ref.observe(state(3, OPEN_63, straddle)) == []
    assert kinds(ref.observe(state(10, OPEN_63, straddle, RIGHT_34))) == [Kind.PLAY]
    assert kinds(ref.undo(11)) == [Kind.UNDO]
    assert ref.observe(state(12, OPEN_63, straddle)) == []  # the 4-3 taken off the table
    got = ref.observe(state(20, OPEN_63, LEFT_26, RIGHT_34))
    assert [(e.kind, e.tile, e.frame, e.inferred) for e in got] == [
        (Kind.PLAY, "6-2", 3, None), (Kind.PLAY, "4-3", 10, None)]
