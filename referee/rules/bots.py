"""Bots that play legal moves: a random one and a greedy one, and helpers that play whole
hands and matches with them (for simulation, the renderer and tests)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from referee.rules.hand import Hand
from referee.rules.match import Match
from referee.rules.table import Play
from referee.rules.variants import Rules

#: A bot picks one of the legal plays (never an empty list).
Bot = Callable[[Hand, list[Play], random.Random], Play]


def random_bot(hand: Hand, plays: list[Play], rng: random.Random) -> Play:
    """Any legal play, uniformly at random."""
    return plays[int(rng.random() * len(plays))]


def greedy_bot(hand: Hand, plays: list[Play], rng: random.Random) -> Play:
    """The play that scores most fives points now; among equals, the heaviest tile (to shed
    pips), then doubles; remaining ties broken at random."""
    if len(plays) == 1:
        return plays[0]
    best: list[Play] = []
    best_key: tuple[int, int, int] | None = None
    for play in plays:
        points = 0
        if hand.rules.fives:
            points = hand.push(play)
            hand.undo()
        key = (points, play.tile.pips, int(play.tile.is_double))
        if best_key is None or key > best_key:
            best, best_key = [play], key
        elif key == best_key:
            best.append(play)
    return best[int(rng.random() * len(best))]


BOTS: dict[str, Bot] = {"random": random_bot, "greedy": greedy_bot}


def play_turn(hand: Hand, bot: Bot, rng: random.Random) -> None:
    """One action for the player to move: a play if one is legal, else a draw, else a pass."""
    plays = hand.legal_plays()
    if plays:
        hand.push(bot(hand, plays, rng))
    elif hand.drawable() > 0:
        hand.draw()
    else:
        hand.pass_turn()


def play_hand(hand: Hand, bots: Sequence[Bot], rng: random.Random) -> Hand:
    """Play ``hand`` to its end, each seat with its bot."""
    while not hand.is_over():
        seat = hand.turn
        assert seat is not None
        play_turn(hand, bots[seat], rng)
    return hand


def play_match(rules: Rules, bots: Sequence[Bot], rng: random.Random, max_hands: int = 1000) -> Match:
    """Deal and play hands until the match is won (or ``max_hands`` were played)."""
    if len(bots) != rules.players:
        raise ValueError(f"need one bot per player ({rules.players}), got {len(bots)}")
    match = Match(rules)
    while not match.is_over() and len(match.hands) < max_hands:
        hand = match.deal_random(rng)
        play_hand(hand, bots, rng)
        match.finish_hand()
    return match
