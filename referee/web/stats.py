"""The statistics page: who wins most often, and the scores of a match hand by hand, from the
records store (``referee/store``), read through a small protocol so the dashboard does not
depend on the store's classes: whatever the store returns is read as its ``to_json()`` dict.

The shapes read (other keys are ignored):

- ``stats().to_json()`` (``referee.store.Stats``): ``{"players": [{"name", "matches", "wins",
  "hands", "hand_wins", "points", "fives"}], "variants": [{"variant", "matches", "hands"}],
  "average_points_per_hand": number, "blocked": count}``
- each of ``matches()`` ``.to_json()`` (``referee.store.MatchSummary``): ``{"id": int, "names":
  [NAME or null], "variant": str, "started": str, "winners": [...], "scores": [int]}``
- ``match_scores(id)``: the scores (one per seat) after each hand, in order.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from html import escape
from typing import Any, Protocol

from referee.web.charts import bar_chart, line_chart
from referee.web.pages import page

#: Columns of the per-player table: (JSON key, heading).
COLUMNS = (("matches", "matches"), ("wins", "wins"), ("hands", "hands"), ("hand_wins", "hands won"),
           ("points", "points"), ("fives", "fives points"))


class HasJson(Protocol):
    def to_json(self) -> dict[str, Any]: ...


class StatsSource(Protocol):
    """What the dashboard needs of the records store."""

    def stats(self) -> HasJson: ...

    def matches(self) -> Sequence[HasJson]: ...

    def match_scores(self, match_id: int) -> list[tuple[int, ...]]: ...


def players_of(stats: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Each player's figures, by name, from the stats' JSON."""
    return [(str(p.get("name", "?")), p) for p in stats.get("players") or [] if isinstance(p, dict)]


def _number(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def stats_json(store: StatsSource) -> dict[str, Any]:
    """``/api/stats``: the stats and the matches, as the store gives them."""
    return {"stats": store.stats().to_json(), "matches": [m.to_json() for m in store.matches()]}


def _match_id(match: dict[str, Any]) -> int | None:
    value = match.get("id")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _when(started: Any) -> str:
    """An ISO time as people read it on a page: "2026-11-30 14:45" (the text as given otherwise)."""
    text = str(started or "")
    return text[:16].replace("T", " ") if len(text) >= 16 and text[10] == "T" else text


def _match_label(match: dict[str, Any], with_names: bool = True) -> str:
    names = ", ".join(str(n or "?") for n in match.get("names") or [])
    parts = [p for p in (_when(match.get("started")), str(match.get("variant") or "")) if p]
    return " · ".join([f"match {_match_id(match)}", *parts, *([names] if with_names and names else [])])


def _table(players: list[tuple[str, dict[str, Any]]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for _, h in COLUMNS)
    rows = "".join(f'<tr data-player="{escape(name)}"><th>{escape(name)}</th>'
                   + "".join(f"<td>{escape(str(figures.get(key, '')))}</td>" for key, _ in COLUMNS) + "</tr>"
                   for name, figures in players)
    return f'<table class="stats"><thead><tr><th>player</th>{head}</tr></thead><tbody>{rows}</tbody></table>'


def _summary(stats: dict[str, Any]) -> str:
    """Variants played most, average points per hand, blocked hands (the store's ``Stats`` JSON:
    ``variants`` a list of {"variant", "matches", "hands"} or an object of counts)."""
    items = []
    variants = {str(v.get("variant")): v.get("matches") for v in stats.get("variants") or [] if isinstance(v, dict)}
    if variants:
        ranked = sorted(variants.items(), key=lambda kv: -_number(kv[1]))
        items.append("matches by variant: " + ", ".join(f"{escape(str(k))} {escape(str(v))}" for k, v in ranked))
    for key, label in (("average_points_per_hand", "average points per hand"), ("blocked", "blocked hands")):
        value = stats.get(key)
        if value is not None:
            text = f"{value:.1f}" if isinstance(value, float) else str(value)
            items.append(f"{label}: {escape(text)}")
    return "<ul class=\"summary\">" + "".join(f"<li>{i}</li>" for i in items) + "</ul>" if items else ""


def _match_section(store: StatsSource, matches: list[dict[str, Any]], chosen: str | None) -> tuple[str, str]:
    """The chart of the chosen match (the latest by default) and the list of matches."""
    ids = [i for i in (_match_id(m) for m in matches) if i is not None]
    if not ids:
        return "", "<p class=\"note\">No matches recorded yet.</p>"
    wanted = int(chosen) if chosen is not None and chosen.isdigit() else None
    match_id = wanted if wanted in ids else max(ids)
    match = next(m for m in matches if _match_id(m) == match_id)
    scores = store.match_scores(match_id)
    names = match.get("names")
    seats = max((len(s) for s in scores), default=0)
    labels = [str(names[i]) if isinstance(names, list) and i < len(names) else f"seat {i + 1}" for i in range(seats)]
    series = [(labels[i], [s[i] for s in scores if i < len(s)]) for i in range(seats)]
    chart = line_chart(series, f"scores over {_match_label(match, with_names=False)}")
    chosen_class = ' class="chosen"'
    links = "".join(f'<li><a href="?match={i}"{chosen_class if i == match_id else ""}>'
                    f"{escape(_match_label(m))}</a></li>"
                    for m in matches if (i := _match_id(m)) is not None)
    return f'<div class="chart-box">{chart}</div>', f'<ul class="matches">{links}</ul>'


def stats_page(store: StatsSource | None, chosen_match: str | None = None) -> str:
    """The whole ``/stats`` page."""
    template = string.Template(page("stats.html"))
    if store is None:
        body = ("<p class=\"note\" id=\"no-records\">No records are kept: this referee was started without a "
                "records database, so there are no statistics to show.</p>")
        return template.substitute(body=body)
    stats = store.stats().to_json()
    matches = [m.to_json() for m in store.matches()]
    players = players_of(stats)
    wins = bar_chart([(name, _number(f.get("wins"))) for name, f in players], "matches won per player")
    chart, listed = _match_section(store, matches, chosen_match)
    body = (f'<div class="charts"><div class="chart-box">{wins}</div>{chart}</div>'
            f"<h2>Players</h2>{_table(players)}{_summary(stats)}<h2>Matches</h2>{listed}")
    return template.substitute(body=body)
