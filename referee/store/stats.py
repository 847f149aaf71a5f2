"""Reading the records: statistics (who wins most often, what is played most, points per hand,
fives per player, blocked hands), the list of matches and a match's scores hand by hand.

Definitions (the same in ``referee stats``, its ``--json`` and the dashboard):

- a player's ``matches`` are the matches they sat in, ``finished`` those that ended, ``wins``
  those they won (both partners win; a tie at the top is a win for each); ``win_rate`` is wins
  over finished matches. ``hands`` and ``hand_wins`` likewise per hand (a tied hand has no winner).
- ``points``: what the player's score gained (their fives and their awards; partners share their
  pair's). ``fives``: the fives points the player's own plays scored; ``scoring_plays``: those plays.
- ``average_points_per_hand``: per finished hand whose award is known (hands whose tiles were
  not all seen have none), its award plus every fives point scored in it.
- players are ranked by wins, then win rate, then hands won, then name: who wins most often first.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from referee.rules.variants import Variant
from referee.store.facts import day_start, from_text

if TYPE_CHECKING:
    from referee.store.db import Store


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


@dataclasses.dataclass(frozen=True)
class PlayerStats:
    name: str
    matches: int = 0
    finished: int = 0
    wins: int = 0
    hands: int = 0
    hand_wins: int = 0
    points: int = 0
    fives: int = 0
    scoring_plays: int = 0

    @property
    def win_rate(self) -> float | None:
        """Matches won per finished match played (None before any finished)."""
        return _rate(self.wins, self.finished)

    @property
    def hand_win_rate(self) -> float | None:
        return _rate(self.hand_wins, self.hands)

    @property
    def points_per_hand(self) -> float | None:
        return None if not self.hands else round(self.points / self.hands, 2)

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out.update(win_rate=self.win_rate, hand_win_rate=self.hand_win_rate, points_per_hand=self.points_per_hand)
        return out


@dataclasses.dataclass(frozen=True)
class VariantStats:
    variant: Variant
    matches: int = 0
    hands: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"variant": self.variant.value, "matches": self.matches, "hands": self.hands}


@dataclasses.dataclass(frozen=True)
class Stats:
    """Figures over the matches chosen (``player``: those they sat in; ``since``: started on or
    after that day). ``scored_hands``/``points``: the finished hands whose award is known and
    all the points scored in them."""

    matches: int = 0
    finished: int = 0
    hands: int = 0
    blocked: int = 0
    scored_hands: int = 0
    points: int = 0
    players: tuple[PlayerStats, ...] = ()
    variants: tuple[VariantStats, ...] = ()
    player: str | None = None
    since: datetime.date | None = None

    @property
    def average_points_per_hand(self) -> float | None:
        return None if not self.scored_hands else round(self.points / self.scored_hands, 2)

    @property
    def blocked_share(self) -> float | None:
        return _rate(self.blocked, self.hands)

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player, "since": None if self.since is None else self.since.isoformat(),
            "matches": self.matches, "finished": self.finished, "hands": self.hands,
            "blocked": self.blocked, "blocked_share": self.blocked_share,
            "average_points_per_hand": self.average_points_per_hand,
            "players": [p.to_json() for p in self.players], "variants": [v.to_json() for v in self.variants],
        }


@dataclasses.dataclass(frozen=True)
class MatchSummary:
    """One match as listed: ``names`` by seat (None for a seat not named), ``winners`` (empty
    while it goes on), ``scores`` (final, or after the last hand recorded), ``hands`` recorded."""

    id: int
    started: datetime.datetime
    finished: datetime.datetime | None
    variant: Variant
    names: tuple[str | None, ...]
    hands: int
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    source: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "started": self.started.isoformat(),
                "finished": None if self.finished is None else self.finished.isoformat(),
                "variant": self.variant.value, "names": list(self.names), "hands": self.hands,
                "winners": list(self.winners), "scores": list(self.scores), "source": self.source}


# -- queries ------------------------------------------------------------------------------------
def chosen(store: Store, player: str | None, since: datetime.date | None) -> list[int]:
    """The ids of the matches chosen, oldest first; StoreError for a player never recorded."""
    from referee.store.db import StoreError, fold
    if player is not None and not store.rows("SELECT 1 FROM players WHERE folded = ?", (fold(player),)):
        known = [r[0] for r in store.rows("SELECT name FROM players ORDER BY folded")]
        raise StoreError(f"{store.path} has no player named {player!r} "
                         f"({'players: ' + ', '.join(known) if known else 'no player is named there yet'})")
    rows = store.rows(
        "SELECT m.id FROM matches m WHERE (:since IS NULL OR m.started >= :since) AND (:player IS NULL OR EXISTS "
        "(SELECT 1 FROM seats s JOIN players p ON p.id = s.player_id WHERE s.match_id = m.id AND p.folded = :player)) "
        "ORDER BY m.started, m.id",
        {"since": None if since is None else day_start(since), "player": None if player is None else fold(player)})
    return [int(r[0]) for r in rows]


def _in(ids: Iterable[int]) -> str:
    return ",".join(str(int(i)) for i in ids)


def seat_names(store: Store, ids: list[int]) -> dict[int, list[str | None]]:
    out: dict[int, list[str | None]] = {}
    for match_id, seat, name in store.rows(
            f"SELECT s.match_id, s.seat, p.name FROM seats s LEFT JOIN players p ON p.id = s.player_id "
            f"WHERE s.match_id IN ({_in(ids)}) ORDER BY s.match_id, s.seat"):
        out.setdefault(int(match_id), []).append(name)
        assert len(out[int(match_id)]) == seat + 1
    return out


def summaries(store: Store, ids: list[int]) -> list[MatchSummary]:
    names = seat_names(store, ids)
    out = []
    for row in store.rows(
            "SELECT m.id, m.started, m.finished, m.variant, m.players, m.winners, m.scores, m.source, "
            "(SELECT COUNT(*) FROM hands h WHERE h.match_id = m.id), "
            "(SELECT h.scores FROM hands h WHERE h.match_id = m.id ORDER BY h.number DESC LIMIT 1) "
            f"FROM matches m WHERE m.id IN ({_in(ids)}) ORDER BY m.started, m.id"):
        match_id, started, finished, variant, players, winners, scores, source, hands, last = row
        score = scores or last
        out.append(MatchSummary(int(match_id), from_text(started), None if finished is None else from_text(finished),
                                Variant(variant), tuple(names[match_id]), int(hands),
                                tuple(store.loads(winners or "[]", f"match {match_id}")),
                                tuple(store.loads(score, f"match {match_id}")) if score else (0,) * int(players),
                                source))
    return out


def compute(store: Store, player: str | None, since: datetime.date | None) -> Stats:
    ids = chosen(store, player, since)
    names = seat_names(store, ids)
    people: dict[str, dict[str, int]] = {}
    shown: dict[str, str] = {}
    variants: dict[str, list[int]] = {}
    from referee.store.db import fold
    wanted = None if player is None else fold(player)

    def tally(name: str | None, **add: int) -> None:
        if name is None or (wanted is not None and fold(name) != wanted):
            return
        shown.setdefault(fold(name), name)
        row = people.setdefault(fold(name), {})
        for k, v in add.items():
            row[k] = row.get(k, 0) + v

    matches = finished = 0
    for match_id, variant, done, winners in store.rows(
            f"SELECT id, variant, finished, winners FROM matches WHERE id IN ({_in(ids)})"):
        matches += 1
        finished += done is not None
        variants.setdefault(variant, [0, 0])[0] += 1
        won = set(store.loads(winners or "[]", f"match {match_id}"))
        for seat, name in enumerate(names[match_id]):
            tally(name, matches=1, finished=int(done is not None), wins=int(done is not None and seat in won))
    hands = blocked = scored = points = 0
    for match_id, variant, result, winners, award, fives in store.rows(
            "SELECT h.match_id, m.variant, h.result, h.winners, h.points, "
            "(SELECT SUM(fives) FROM hand_seats x WHERE x.hand_id = h.id) FROM hands h "
            f"JOIN matches m ON m.id = h.match_id WHERE h.match_id IN ({_in(ids)})"):
        hands += 1
        variants[variant][1] += 1
        blocked += result == "blocked"
        if result != "open" and award is not None:
            scored += 1
            points += award + (fives or 0)
        won = set(store.loads(winners, f"a hand of match {match_id}"))
        for seat, name in enumerate(names[match_id]):
            tally(name, hands=1, hand_wins=int(seat in won))
    for match_id, seat, five, plays, gained in store.rows(
            "SELECT h.match_id, x.seat, x.fives, x.scoring_plays, x.gained FROM hand_seats x "
            f"JOIN hands h ON h.id = x.hand_id WHERE h.match_id IN ({_in(ids)})"):
        tally(names[match_id][seat], fives=five, scoring_plays=plays, points=gained)
    players = [PlayerStats(shown[k], **v) for k, v in people.items()]
    players.sort(key=lambda p: (-p.wins, -(p.win_rate or 0.0), -p.hand_wins, fold(p.name)))
    kinds = sorted((VariantStats(Variant(v), m, h) for v, (m, h) in variants.items()),
                   key=lambda v: (-v.matches, -v.hands, v.variant.value))
    return Stats(matches, finished, hands, blocked, scored, points, tuple(players), tuple(kinds),
                 None if player is None else shown.get(fold(player), player), since)


def match_scores(store: Store, match_id: int) -> list[tuple[int, ...]]:
    store.hand_count(match_id)  # StoreError when there is no such match
    return [tuple(store.loads(r[0], f"a hand of match {match_id}")) for r in
            store.rows("SELECT scores FROM hands WHERE match_id = ? ORDER BY number", (match_id,))]
