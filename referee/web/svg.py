"""The line of play drawn as dominoes (SVG, made on the server): the line from its left end to
its right end in a straight row, doubles crosswise, the spinner's arms going up and down from
it; each tile a ``<g class="tile">`` carrying ``data-tile`` (its name), ``data-halves`` (its
halves in line order: left to right, outward on an arm), ``data-arm`` (line, up, down) and
``data-index`` (its place on that arm), so a test or a script can read the drawing back."""

from __future__ import annotations

from html import escape

from referee.rules.table import LineOfPlay

#: A half's side, the gap between tiles and the margin, in SVG units.
HALF = 24.0
GAP = 3.0
MARGIN = 6.0

# Pip places on a 3x3 grid (column, row), for a half whose tile stands upright.
_GRID = {
    0: (), 1: ((1, 1),), 2: ((0, 0), (2, 2)), 3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)), 5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
    7: ((0, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 2), (2, 2)),
    8: ((0, 0), (1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (1, 2), (2, 2)),
    9: tuple((c, r) for r in range(3) for c in range(3)),
}


def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _half(x: float, y: float, pips: int, upright: bool) -> list[str]:
    """The pips of one half whose top-left corner is (x, y)."""
    if pips not in _GRID:
        return [f'<text x="{_f(x + HALF / 2)}" y="{_f(y + HALF * 0.68)}" class="pipnum" '
                f'text-anchor="middle" font-size="{_f(HALF * 0.55)}">{pips}</text>']
    out = []
    r = HALF * 0.09
    for c, row in _GRID[pips]:
        if not upright:
            c, row = row, 2 - c  # the pattern turned with the tile
        cx, cy = x + HALF * (0.22 + 0.28 * c), y + HALF * (0.22 + 0.28 * row)
        out.append(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r)}" class="pip"/>')
    return out


def _tile(x: float, y: float, halves: tuple[int, int], upright: bool, arm: str, index: int,
          classes: list[str], written: tuple[int, int]) -> str:
    """One domino with its top-left corner at (x, y): ``halves[0]`` on the left (or on top);
    ``written``: its halves in line order (outward on an arm)."""
    a, b = halves
    w, h = (HALF, 2 * HALF) if upright else (2 * HALF, HALF)
    name = f"{max(a, b)}-{min(a, b)}"
    parts = [f'<g class="{" ".join(["tile", *classes])}" data-tile="{name}" data-halves="{written[0]}-{written[1]}" '
             f'data-arm="{arm}" data-index="{index}">',
             f"<title>{escape(name)}</title>",
             f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(w)}" height="{_f(h)}" rx="{_f(HALF * 0.15)}" class="face"/>']
    if upright:
        parts.append(f'<line x1="{_f(x + 3)}" y1="{_f(y + HALF)}" x2="{_f(x + w - 3)}" y2="{_f(y + HALF)}" '
                     'class="divider"/>')
        parts += _half(x, y, a, True) + _half(x, y + HALF, b, True)
    else:
        parts.append(f'<line x1="{_f(x + HALF)}" y1="{_f(y + 3)}" x2="{_f(x + HALF)}" y2="{_f(y + h - 3)}" '
                     'class="divider"/>')
        parts += _half(x, y, a, False) + _half(x + HALF, y, b, False)
    parts.append("</g>")
    return "".join(parts)


def line_svg(line: LineOfPlay, last: str | None = None) -> str:
    """The drawing of ``line`` (a rules ``Table.snapshot()``), scaled to fit its box; the tile
    named ``last`` (the one laid last) is marked with the class ``last``."""
    if not line.line:
        return ('<svg xmlns="http://www.w3.org/2000/svg" class="line-of-play empty" viewBox="0 0 240 48" '
                'role="img" aria-label="no tiles on the table"><text x="120" y="30" text-anchor="middle" '
                'class="note">no tiles on the table yet</text></svg>')
    tiles: list[str] = []
    bounds = [0.0, -HALF, 0.0, HALF]  # min x, min y, max x, max y

    def add(x: float, y: float, halves: tuple[int, int], upright: bool, arm: str, index: int, spinner: bool,
            written: tuple[int, int]) -> None:
        name = f"{max(halves)}-{min(halves)}"
        classes = [c for c, on in (("double", halves[0] == halves[1]), ("spinner", spinner),
                                   ("last", name == last)) if on]
        tiles.append(_tile(x, y, halves, upright, arm, index, classes, written))
        w, h = (HALF, 2 * HALF) if upright else (2 * HALF, HALF)
        bounds[0], bounds[1] = min(bounds[0], x), min(bounds[1], y)
        bounds[2], bounds[3] = max(bounds[2], x + w), max(bounds[3], y + h)

    x = 0.0
    spinner_x = None
    for i, halves in enumerate(line.line):
        double = halves[0] == halves[1]
        width = HALF if double else 2 * HALF
        add(x, -HALF if double else -HALF / 2, halves, double, "line", i, i == line.spinner, halves)
        if i == line.spinner:
            spinner_x = x
        x += width + GAP
    if spinner_x is not None:
        for arm, step in (("up", -1), ("down", 1)):
            y = -HALF - GAP if step < 0 else HALF + GAP  # the spinner's short end
            for i, (a, b) in enumerate(line.branches.get(arm, ())):
                double = a == b
                length = HALF if double else 2 * HALF
                top = y - length if step < 0 else y
                left = spinner_x - HALF / 2 if double else spinner_x
                halves = (b, a) if step < 0 else (a, b)  # written outward: drawn top to bottom
                add(left, top, halves, not double, arm, i, False, (a, b))
                y += step * (length + GAP)
    x0, y0 = bounds[0] - MARGIN, bounds[1] - MARGIN
    w, h = bounds[2] - bounds[0] + 2 * MARGIN, bounds[3] - bounds[1] + 2 * MARGIN
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="line-of-play" viewBox="{_f(x0)} {_f(y0)} {_f(w)} {_f(h)}" '
            f'role="img" aria-label="the line of play: {len(tiles)} tiles">' + "".join(tiles) + "</svg>")
