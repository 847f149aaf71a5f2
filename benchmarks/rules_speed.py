"""Random complete hands per second: our rules engine against the PyPI package ``dominoes``.

Both engines play uniformly random legal moves until the hand ends, picked by the same function
from the same kind of generator, measured side by side in one run because these machines are
noisy: short interleaved rounds, the ratio being the median of each round's ratio. ``dominoes``
plays only the four-player block game with all 28 tiles dealt; our engine plays the same game as
its partners variant (four players, 7 tiles each, no boneyard). Ours picks from
``Hand.legal_plays()`` (every rule applied) and lays the tile with ``Hand.push()``, as python-chess
code does with ``legal_moves`` and ``push``; the same game laid with ``Hand.play()``, which checks
every rule once more, is measured and printed too.

Run: .venv/bin/python benchmarks/rules_speed.py [--seconds S] [--rounds R]
Last line: ``rules_speed: ours=N games/s dominoes=M games/s ratio=R``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable

from referee.rules import Hand, Rules, Variant


def _ours(rules: Rules, checked: bool = False) -> Callable[[random.Random], int]:
    def one(rng: random.Random) -> int:
        pick = rng.random
        hand = Hand.deal_random(rules, rng)
        lay = hand.play if checked else hand.push
        while not hand.is_over():
            plays = hand.legal_plays()
            if plays:
                lay(plays[int(pick() * len(plays))])
            elif hand.drawable():
                hand.draw()
            else:
                hand.pass_turn()
        return len(hand.moves)
    return one


def _dominoes() -> Callable[[random.Random], int] | None:
    try:
        import dominoes  # type: ignore[import-untyped]
    except ImportError:
        return None

    def one(rng: random.Random) -> int:
        pick = rng.random
        game = dominoes.Game.new()
        while game.result is None:
            moves = game.valid_moves
            game.make_move(*moves[int(pick() * len(moves))])
        return len(game.moves)
    return one


def rate(play_one: Callable[[random.Random], int], seconds: float, seed: int) -> float:
    """Complete hands per second over about ``seconds``."""
    rng = random.Random(seed)
    games = 0
    # CPU time of this process, not wall time: on a shared virtual machine the wall clock also
    # counts the time the machine gave to others.
    clock = time.process_time
    start = clock()
    deadline = start + seconds
    while True:
        for _ in range(20):
            play_one(rng)
        games += 20
        now = clock()
        if now >= deadline:
            return games / (now - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds (medians taken)")
    args = parser.parse_args(argv)

    engines: dict[str, Callable[[random.Random], int]] = {
        "draw, 2 players": _ours(Rules(Variant.DRAW, players=2)),
        "fives, 2 players": _ours(Rules(Variant.FIVES, players=2)),
        "partners, 4 players": _ours(Rules(Variant.PARTNERS, players=4)),
        "partners, checked play()": _ours(Rules(Variant.PARTNERS, players=4), checked=True),
    }
    reference = _dominoes()
    if reference is None:
        print("rules_speed: the package 'dominoes' is not installed (pip install dominoes)", file=sys.stderr)
        return 2
    engines["dominoes: block, 4 players"] = reference
    rates: dict[str, list[float]] = {name: [] for name in engines}
    for round_no in range(args.rounds):
        # Ours on the same game and the reference run back to back in each round.
        for name in ("partners, 4 players", "dominoes: block, 4 players", "partners, checked play()",
                     "draw, 2 players", "fives, 2 players"):
            rates[name].append(rate(engines[name], args.seconds, seed=round_no))
    for name, values in rates.items():
        print(f"{name:28s} {statistics.median(values):10.0f} games/s  (rounds: "
              f"{', '.join(f'{v:.0f}' for v in values)})")
    ours = statistics.median(rates["partners, 4 players"])
    theirs = statistics.median(rates["dominoes: block, 4 players"])
    # The ratio of each round's neighbouring measurements, so slow spells of the machine cancel.
    def ratio_of(name: str) -> float:
        return statistics.median(a / b for a, b in zip(rates[name], rates["dominoes: block, 4 players"],
                                                        strict=True))
    ratio = ratio_of("partners, 4 players")
    print(f"checked play(): ratio={ratio_of('partners, checked play()'):.2f}")
    print(f"rules_speed: ours={ours:.0f} games/s dominoes={theirs:.0f} games/s ratio={ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
