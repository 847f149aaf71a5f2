"""Perft: golden counts of the action tree from fixed deals, pinning the move generator.

As python-chess pins its move generator with perft counts, these tests count the leaf nodes of
the full action tree to a given depth from explicit deals. A node's children are all its legal
plays; if there is none, a draw of the next boneyard tile; if nothing is left to draw, a pass.
A finished hand has no children. The numbers were computed once with the engine; the small
depths were checked by hand (the reasoning is next to each deal).
"""

from __future__ import annotations

from collections import Counter

import pytest

from referee.rules import Hand, Play, Rules, Tile, Variant


def tiles(text: str) -> list[Tile]:
    return [Tile.parse(t) for t in text.split()]


def make_hand(variant: str, deal: list[str], boneyard: str | None = None, leader: int | None = None) -> Hand:
    hands = [tiles(d) for d in deal]
    rules = Rules(variant=Variant(variant), players=len(hands), hand_size=len(hands[0]))
    return Hand(rules, hands, None if boneyard is None else tiles(boneyard), leader=leader)


def children(hand: Hand) -> list[Play | str]:
    if hand.is_over():
        return []
    plays: list[Play | str] = list(hand.legal_plays())
    if plays:
        return plays
    return ["draw"] if hand.drawable() else ["pass"]


def apply(hand: Hand, child: Play | str) -> int:
    if isinstance(child, Play):
        return hand.play(child)
    if child == "draw":
        hand.draw()
    else:
        hand.pass_turn()
    return 0


def perft(hand: Hand, depth: int) -> int:
    if depth == 0:
        return 1
    nodes = 0
    for child in children(hand):
        apply(hand, child)
        nodes += perft(hand, depth - 1)
        hand.undo()
    return nodes


def divide(hand: Hand, depth: int) -> Counter[str]:
    """Leaves at ``depth`` by the kind of their last action (the end played at, draw or pass),
    plus ``points``: the fives points scored along every path, summed over all leaves."""
    stats: Counter[str] = Counter()

    def walk(remaining: int, points: int) -> None:
        if remaining == 0:
            stats["points"] += points
            return
        for child in children(hand):
            scored = apply(hand, child)
            if remaining == 1:
                stats[str(child.end) if isinstance(child, Play) else child] += 1
            walk(remaining - 1, points + scored)
            hand.undo()

    walk(depth, 0)
    return stats


# -- the deals -----------------------------------------------------------------------------------
# A: the draw game, two players. Player 0 must open with 6-6 (highest double): 1. Player 1 lays
# 6-5 or 6-1 on either long side of the lone double: 4. Player 0 then has exactly one reply each
# time (5-4 on the 5, 1-0 on the 1): 4. Depth 4: after 6-5 and 5-4 the ends are 4 and 6, and
# player 1 has 4-3 and 6-1: 2 each; after 6-1 and 1-0 the ends are 0 and 6: only 6-5: 1 each;
# 2 + 2 + 1 + 1 = 6.
DRAW_DEAL = ["6-6 5-4 4-4 3-2 2-2 1-0 0-0", "6-5 6-1 5-5 4-3 3-3 2-1 1-1"]
DRAW_BONEYARD = "6-4 6-3 6-2 6-0 5-3 5-2 5-1 5-0 4-2 4-1 4-0 3-1 3-0 2-0"

# B: the draw game with forced draws. Player 0 opens 6-6; player 1 holds no 6 and draws 1-1 and
# 2-0 (no fit), then 6-0, which fits: three single draws, then 6-0 on either side: 2. Player 0
# answers with 6-5 or 6-4 on the other 6: 4. Player 1 (now also holding 1-1 and 2-0) lays a 0
# (1-0, 0-0, 2-0) on the 0 and a 5 or a 4 (5-4 and 5-3, or 5-4 and 4-3) on the other end:
# 5 each, 20.
FORCED_DRAW_DEAL = ["6-6 6-5 6-4 5-5 4-4 3-3 2-2", "5-4 5-3 4-3 3-2 2-1 1-0 0-0"]
FORCED_DRAW_BONEYARD = "1-1 2-0 6-0 3-1 3-0 4-2 4-1 4-0 5-2 5-1 5-0 6-3 6-2 6-1"

# C: All Fives with the spinner. 6-6 is in the boneyard, so player 0 opens with 5-5 (scoring 10:
# a lone opening double counts once), which becomes the spinner. Player 1 lays 5-0, 5-3 or 5-1
# on either long side: 6; only 5-0 scores (0 + 5-5 crosswise = 10). Player 0 then lays 5-4 on
# the other long side or a tile on the tile just laid: 5-0 -> 0-0; 5-3 -> 3-2; 5-1 -> 4-1, 6-1,
# 1-1: (2 + 2 + 4) * 2 = 16. After 5-4 both long sides are taken and up and down open: at
# depth 4 player 1 has two 5s left for each, 2 tiles * 2 arms in 6 positions = 12 up, 12 down.
FIVES_DEAL = ["5-5 5-4 4-1 3-2 6-1 0-0 1-1", "5-0 5-3 5-1 4-0 3-3 6-0 2-1"]
FIVES_BONEYARD = "6-6 6-5 6-4 6-3 6-2 5-2 4-4 4-3 4-2 3-1 3-0 2-2 2-0 1-0"

# D: partners, all 28 tiles dealt. Player 0 holds 6-6 and must open with it: 1. Player 1 has
# 6-5 and 6-2, on either side: 4. Player 2 has two 6s (6-4, 6-0) and, after 6-5, two 5s (5-4,
# 5-1), after 6-2, two 2s (3-2, 2-1): 4 each, 16.
PARTNERS_DEAL = [
    "6-6 5-5 4-2 3-1 2-0 1-0 0-0",
    "6-5 6-2 5-3 4-4 3-0 2-2 1-1",
    "6-4 6-0 5-4 5-1 4-3 3-2 2-1",
    "6-3 6-1 5-2 5-0 4-1 4-0 3-3",
]

# E: the block game, and player 0 holds only doubles. 6-6; 6-5 or 6-4 either side (4); the
# matching double (4); player 1's other 6 or the 5-4 (8); the other double (8); player 1's last
# fitting tile (5-4 or 6-4) on either end (16). Both ends then show the same number (4, 5 or 6)
# whose double player 0 has laid, and player 1's 3-2 2-1 1-0 3-0 fit nothing: player 0 passes
# (16), player 1 passes (16) and the hand is blocked: nothing at depth 9.
BLOCK_DEAL = ["6-6 5-5 4-4 3-3 2-2 1-1 0-0", "6-5 6-4 5-4 3-2 2-1 1-0 3-0"]


def test_draw_game_perft() -> None:
    hand = make_hand("draw", DRAW_DEAL, DRAW_BONEYARD)
    assert hand.legal_plays() == [Play(Tile(6, 6))]
    assert [perft(hand, d) for d in range(1, 13)] == [1, 4, 4, 6, 10, 16, 26, 38, 52, 58, 62, 64]


def test_draw_game_perft_by_end() -> None:
    hand = make_hand("draw", DRAW_DEAL, DRAW_BONEYARD)
    assert divide(hand, 2) == Counter({"left": 2, "right": 2, "points": 0})
    assert divide(hand, 4) == Counter({"left": 3, "right": 3, "points": 0})


def test_later_hand_leader_opens_with_any_tile_perft() -> None:
    # The previous winner (player 1) opens with any of their 7 tiles. Player 0 (6-6 5-4 4-4 3-2
    # 2-2 1-0 0-0) answers: 1-1: 1-0 either side (2); 2-1: 3-2, 2-2 on the 2, 1-0 on the 1 (3);
    # 3-3: 3-2 (2); 4-3: 5-4, 4-4 on the 4, 3-2 on the 3 (3); 5-5: 5-4 (2); 6-1: 6-6, 1-0 (2);
    # 6-5: 6-6, 5-4 (2): 16.
    hand = make_hand("draw", DRAW_DEAL, DRAW_BONEYARD, leader=1)
    assert hand.legal_plays() == [Play(t) for t in tiles("1-1 2-1 3-3 4-3 5-5 6-1 6-5")]
    assert [perft(hand, d) for d in range(1, 9)] == [7, 16, 32, 58, 102, 170, 296, 448]


def test_forced_draws_perft() -> None:
    hand = make_hand("draw", FORCED_DRAW_DEAL, FORCED_DRAW_BONEYARD)
    assert [perft(hand, d) for d in range(1, 13)] == [1, 1, 1, 1, 2, 4, 20, 28, 112, 148, 428, 652]
    assert divide(hand, 2) == Counter({"draw": 1, "points": 0})
    assert divide(hand, 4) == Counter({"draw": 1, "points": 0})
    assert divide(hand, 5) == Counter({"left": 1, "right": 1, "points": 0})


def test_fives_spinner_perft() -> None:
    hand = make_hand("fives", FIVES_DEAL, FIVES_BONEYARD)
    assert hand.legal_plays() == [Play(Tile(5, 5))]
    assert [perft(hand, d) for d in range(1, 9)] == [1, 6, 16, 70, 246, 1188, 3704, 14532]


def test_fives_spinner_perft_by_end_and_points() -> None:
    hand = make_hand("fives", FIVES_DEAL, FIVES_BONEYARD)
    # Points summed over all paths: depth 1, the 5-5 lead scores 10. Depth 2: 6 paths * 10 for
    # the lead, plus 10 for 5-0 on either side: 80. Depth 3: 16 * 10 + 4 * 10 (the 5-0 paths)
    # + 2 * 10 (0-0 on 5-0: 0 + 10) + 2 * 5 (5-4 after 5-1: 1 + 4): 230.
    assert divide(hand, 1) == Counter({"None": 1, "points": 10})
    assert divide(hand, 2) == Counter({"left": 3, "right": 3, "points": 80})
    assert divide(hand, 3) == Counter({"left": 8, "right": 8, "points": 230})
    assert divide(hand, 4) == Counter({"left": 23, "right": 23, "up": 12, "down": 12, "points": 1190})
    assert divide(hand, 7) == Counter({"left": 1088, "right": 1088, "up": 750, "down": 750, "draw": 28,
                                       "points": 76830})


def test_partners_perft() -> None:
    hand = make_hand("partners", PARTNERS_DEAL)
    assert hand.boneyard_size() == 0
    assert hand.legal_plays() == [Play(Tile(6, 6))]
    assert [perft(hand, d) for d in range(1, 10)] == [1, 4, 16, 60, 170, 430, 1432, 4400, 10268]
    assert divide(hand, 5) == Counter({"left": 82, "right": 82, "pass": 6, "points": 0})


def test_block_game_perft_ends_blocked() -> None:
    hand = make_hand("block", BLOCK_DEAL)
    assert [perft(hand, d) for d in range(1, 11)] == [1, 4, 4, 8, 8, 16, 16, 16, 0, 0]
    assert divide(hand, 7) == Counter({"pass": 16, "points": 0})
    assert divide(hand, 8) == Counter({"pass": 16, "points": 0})


@pytest.mark.parametrize(("variant", "deal", "boneyard", "depth"), [
    ("draw", DRAW_DEAL, DRAW_BONEYARD, 6),
    ("fives", FIVES_DEAL, FIVES_BONEYARD, 5),
    ("partners", PARTNERS_DEAL, None, 5),
])
def test_perft_leaves_the_hand_as_it_was(variant: str, deal: list[str], boneyard: str | None, depth: int) -> None:
    hand = make_hand(variant, deal, boneyard)
    before = (hand.legal_plays(), [hand.held(s) for s in range(hand.players)], hand.boneyard(), hand.turn)
    perft(hand, depth)
    assert (hand.legal_plays(), [hand.held(s) for s in range(hand.players)], hand.boneyard(), hand.turn) == before
    assert hand.moves == []
    assert hand.table.size == 0
