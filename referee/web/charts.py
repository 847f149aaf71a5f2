"""Charts as SVG made on the server (no scripts, nothing fetched from the internet): bars for a
number per player, a polyline per player for scores hand after hand."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

#: One colour per player, in seat order (repeats after the last).
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
#: Steps an axis may take: 1, 2, 5, 10, 20, 25, 50, 100...
STEPS = sorted({int(m * 10 ** e) for e in range(8) for m in (1, 2, 2.5, 5) if float(m * 10 ** e).is_integer()})


def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _axis(value: float) -> tuple[int, int]:
    """The top of an axis reaching ``value`` and its step: round numbers, at most 5 steps."""
    top = max(1, math.ceil(value))
    step = next((s for s in STEPS if -(-top // s) <= 5), top)
    return -(-top // step) * step, step


def bar_chart(values: Sequence[tuple[str, float]], title: str, width: int = 480, height: int = 240) -> str:
    """Vertical bars, one per ``(label, value)``; each bar a ``<rect class="bar">`` with
    ``data-label`` and ``data-value``."""
    left, bottom, top_pad = 36, 36, 28
    plot_w, plot_h = width - left - 10, height - bottom - top_pad
    top, step = _axis(max((v for _, v in values), default=0))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart bars" viewBox="0 0 {width} {height}" '
             f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>',
             f'<text x="{width / 2}" y="18" text-anchor="middle" class="chart-title">{escape(title)}</text>']
    for tick in range(0, top + 1, step):
        y = top_pad + plot_h * (1 - tick / top)
        parts.append(f'<line x1="{left}" x2="{width - 10}" y1="{_f(y)}" y2="{_f(y)}" class="grid"/>'
                     f'<text x="{left - 4}" y="{_f(y + 4)}" text-anchor="end" class="tick">{_f(tick)}</text>')
    slot = plot_w / max(1, len(values))
    for i, (label, value) in enumerate(values):
        h = plot_h * value / top
        x = left + slot * i + slot * 0.15
        parts.append(f'<rect class="bar" x="{_f(x)}" y="{_f(top_pad + plot_h - h)}" width="{_f(slot * 0.7)}" '
                     f'height="{_f(h)}" fill="{COLOURS[i % len(COLOURS)]}" data-label="{escape(label)}" '
                     f'data-value="{_f(value)}"><title>{escape(label)}: {_f(value)}</title></rect>'
                     f'<text x="{_f(x + slot * 0.35)}" y="{height - bottom + 16}" text-anchor="middle" '
                     f'class="label">{escape(label)}</text>')
    if not values:
        parts.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" class="note">nothing yet</text>')
    return "".join(parts) + "</svg>"


def line_chart(series: Sequence[tuple[str, Sequence[int]]], title: str, target: int | None = None,
               width: int = 480, height: int = 240) -> str:
    """A polyline per ``(name, scores after each hand)``, starting from 0 before the first
    hand; each a ``<polyline class="series">`` with ``data-name`` and ``data-values``."""
    left, bottom, top_pad = 40, 40, 28
    plot_w, plot_h = width - left - 90, height - bottom - top_pad
    hands = max((len(s) for _, s in series), default=0)
    peak = max([*(v for _, s in series for v in s), target or 0, 1])
    top, step = _axis(peak)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart lines" viewBox="0 0 {width} {height}" '
             f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>',
             f'<text x="{width / 2}" y="18" text-anchor="middle" class="chart-title">{escape(title)}</text>']

    def x_of(i: int) -> float:
        return left + plot_w * i / max(1, hands)

    def y_of(v: float) -> float:
        return top_pad + plot_h * (1 - v / top)

    for tick in range(0, top + 1, step):
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{_f(y_of(tick))}" y2="{_f(y_of(tick))}" '
                     f'class="grid"/><text x="{left - 4}" y="{_f(y_of(tick) + 4)}" text-anchor="end" '
                     f'class="tick">{_f(tick)}</text>')
    if target:
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{_f(y_of(target))}" y2="{_f(y_of(target))}" '
                     f'class="target"/>')
    for i in range(hands + 1):
        parts.append(f'<text x="{_f(x_of(i))}" y="{height - bottom + 16}" text-anchor="middle" class="tick">{i}</text>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 6}" text-anchor="middle" class="label">hands</text>')
    for n, (name, values) in enumerate(series):
        colour = COLOURS[n % len(COLOURS)]
        points = " ".join(f"{_f(x_of(i))},{_f(y_of(v))}" for i, v in enumerate([0, *values]))
        parts.append(f'<polyline class="series" points="{points}" fill="none" stroke="{colour}" stroke-width="2.5" '
                     f'data-name="{escape(name)}" data-values="{",".join(map(str, values))}"/>'
                     f'<text x="{left + plot_w + 8}" y="{_f(y_of(values[-1] if values else 0) + 4)}" '
                     f'fill="{colour}" class="label">{escape(name)}</text>')
    if not hands:
        parts.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" class="note">no hands yet</text>')
    return "".join(parts) + "</svg>"
