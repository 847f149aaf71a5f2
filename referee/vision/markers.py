"""The calibration markers: four ArUco markers laid at the corners of the play area.

A person prints one sheet, cuts the four markers out and lays them flat, any way round, near
the corners of the table: 0 near left (in front of seat 0), 1 near right, 2 far right, 3 far
left. Nothing is measured by hand: each marker's printed size gives millimetres, and the
calibration solves where the markers lie. The table frame has its origin at marker 0's centre,
x towards marker 1 and y towards marker 3 (with the markers laid as above: x to the right, y
away from seat 0, as in the renderer).

``calibration/markers.json`` holds the sheet's description; ``sheet_svg`` draws the sheet.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.vision.config import ConfigError

#: Where each marker goes, in id order (also printed on the sheet).
PLACES = ("near left", "near right", "far right", "far left")


@dataclasses.dataclass(frozen=True)
class MarkerSheet:
    """The printed markers: their size (the black square's side, in mm), the ArUco
    dictionary, and the ids in the order near left, near right, far right, far left."""

    marker_mm: float = 60.0
    ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    dictionary: str = "DICT_4X4_50"

    def __post_init__(self) -> None:
        if isinstance(self.marker_mm, bool) or not isinstance(self.marker_mm, int | float) \
                or not 10.0 <= self.marker_mm <= 500.0:
            raise ConfigError(f"marker_mm: expected a size between 10 and 500 mm, got {self.marker_mm!r}")
        object.__setattr__(self, "marker_mm", float(self.marker_mm))
        if not (isinstance(self.dictionary, str) and self.dictionary.startswith("DICT_")
                and isinstance(getattr(cv2.aruco, self.dictionary, None), int)):
            raise ConfigError(f"dictionary: not an ArUco dictionary: {self.dictionary!r}")
        size = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary)).bytesList.shape[0]
        if not (isinstance(self.ids, tuple) and len(self.ids) == 4
                and all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < size for i in self.ids)
                and len(set(self.ids)) == 4):
            raise ConfigError(f"ids: expected four different marker ids from 0 to {size - 1}, got {self.ids!r}")

    def aruco_dictionary(self) -> Any:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))

    def to_json(self) -> dict[str, Any]:
        return {"marker_mm": self.marker_mm, "dictionary": self.dictionary, "ids": list(self.ids),
                "placement": {str(i): place for i, place in zip(self.ids, PLACES, strict=True)}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "markers") -> MarkerSheet:
        """A sheet from its JSON object; ``placement`` is read as documentation only."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"{where}: expected an object")
        known = {"marker_mm", "dictionary", "ids", "placement"}
        for key in data:
            if key not in known:
                raise ConfigError(f"{where}: unknown setting {key!r}")
        values: dict[str, Any] = {}
        if "marker_mm" in data:
            values["marker_mm"] = data["marker_mm"]
        if "dictionary" in data:
            values["dictionary"] = data["dictionary"]
        if "ids" in data:
            ids = data["ids"]
            if not isinstance(ids, list):
                raise ConfigError(f"{where}: ids: expected a list of four marker ids, got {ids!r}")
            values["ids"] = tuple(ids)
        try:
            return cls(**values)
        except ConfigError as error:
            raise ConfigError(f"{where}: {error}") from None


def load_sheet(path: str | Path) -> MarkerSheet:
    """Read a marker sheet description (``calibration/markers.json``)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"cannot read marker sheet {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ConfigError(f"{path}: not valid JSON ({error})") from None
    return MarkerSheet.from_json(data, str(path))


# -- the printable sheet ------------------------------------------------------------------------
def marker_cells(sheet: MarkerSheet, marker_id: int) -> np.ndarray:
    """The marker's modules, black border included: True where the print is black."""
    bits = int(sheet.aruco_dictionary().markerSize)
    image = cv2.aruco.generateImageMarker(sheet.aruco_dictionary(), marker_id, bits + 2, borderBits=1)
    return np.asarray(image) < 128


def _n(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _marker_rects(cells: np.ndarray, x: float, y: float, module: float) -> list[str]:
    """Black modules as rectangles, one per horizontal run."""
    out: list[str] = []
    for row in range(cells.shape[0]):
        col = 0
        while col < cells.shape[1]:
            if not cells[row, col]:
                col += 1
                continue
            end = col
            while end < cells.shape[1] and cells[row, end]:
                end += 1
            out.append(f'<rect x="{_n(x + col * module)}" y="{_n(y + row * module)}" '
                       f'width="{_n((end - col) * module)}" height="{_n(module)}"/>')
            col = end
    return out


def _text(x: float, y: float, size: float, text: str, anchor: str = "start", weight: str = "normal") -> str:
    body = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="{anchor}" '
            f'font-weight="{weight}">{body}</text>')


def sheet_svg(sheet: MarkerSheet) -> str:
    """The printable sheet (A4, fits US Letter): the four markers with cutting lines, where
    each goes, the printed size and a 100 mm scale bar. Deterministic for a sheet."""
    page_w, page_h = 210.0, 297.0
    size = sheet.marker_mm
    quiet = max(8.0, size / 6)
    cell = size + 2 * quiet
    gap = 8.0
    if size > 60.0:
        raise ConfigError(f"marker_mm: the printable sheet holds markers up to 60 mm, got {size:g}")
    left = (page_w - (2 * cell + gap)) / 2
    top = 40.0
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(page_w)}mm" height="{_n(page_h)}mm" '
        f'viewBox="0 0 {_n(page_w)} {_n(page_h)}" font-family="DejaVu Sans, Arial, Helvetica, sans-serif">',
        f'<rect x="0" y="0" width="{_n(page_w)}" height="{_n(page_h)}" fill="white"/>',
        _text(page_w / 2, 16, 6, "Domino referee: table markers", "middle", "bold"),
        _text(page_w / 2, 24, 3.6, f"ArUco {sheet.dictionary[5:]}, ids {', '.join(map(str, sheet.ids))}. "
              f"Each black square is {size:g} mm wide.", "middle"),
        _text(page_w / 2, 30, 3.6, "Print at 100% (actual size, no fit to page), then check the 100 mm "
              "bar below with a ruler.", "middle"),
        _text(page_w / 2, 35, 3.6, "Cut along the dashed lines; keep the white border round each marker.",
              "middle"),
    ]
    label_h = 9.0
    for k, marker_id in enumerate(sheet.ids):
        row, col = divmod(k, 2)
        x0 = left + col * (cell + gap)
        y0 = top + row * (cell + label_h + gap)
        parts.append(f'<rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(cell)}" height="{_n(cell + label_h)}" '
                     'fill="none" stroke="#888" stroke-width="0.3" stroke-dasharray="2 1.5"/>')
        cells = marker_cells(sheet, marker_id)
        parts.append('<g fill="black" shape-rendering="crispEdges">')
        parts.extend(_marker_rects(cells, x0 + quiet, y0 + quiet, size / cells.shape[0]))
        parts.append("</g>")
        parts.append(_text(x0 + cell / 2, y0 + cell + 3.0, 4.2, f"{marker_id}: {PLACES[k]} corner", "middle",
                           "bold"))
        parts.append(_text(x0 + cell / 2, y0 + cell + 7.0, 3.0, "lay flat, any way round; the origin" if k == 0
                           else f"lay flat, any way round, {size:g} mm", "middle"))
    bar_y = top + 2 * (cell + label_h) + gap + 14
    bar_x = (page_w - 100) / 2
    parts.append('<g fill="black" shape-rendering="crispEdges">')
    for i in range(10):
        if i % 2 == 0:
            parts.append(f'<rect x="{_n(bar_x + 10 * i)}" y="{_n(bar_y)}" width="10" height="3"/>')
    parts.append(f'<rect x="{_n(bar_x)}" y="{_n(bar_y)}" width="100" height="0.3"/>')
    parts.append(f'<rect x="{_n(bar_x)}" y="{_n(bar_y + 2.7)}" width="100" height="0.3"/>')
    parts.append(f'<rect x="{_n(bar_x)}" y="{_n(bar_y - 2)}" width="0.3" height="7"/>')
    parts.append(f'<rect x="{_n(bar_x + 99.7)}" y="{_n(bar_y - 2)}" width="0.3" height="7"/>')
    parts.append("</g>")
    parts.append(_text(page_w / 2, bar_y + 9, 3.6, "100 mm: if this bar is not 100 mm long, measure a black "
                       "square and put its size in marker_mm", "middle"))
    parts.append(_text(page_w / 2, bar_y + 14, 3.6, "in calibration/markers.json (or pass --marker-mm to "
                       "referee calibrate).", "middle"))
    parts.append(_text(page_w / 2, bar_y + 22, 3.6, "Lay the markers at the corners of the play area, 0 in "
                       "front of seat 0 on the left,", "middle"))
    parts.append(_text(page_w / 2, bar_y + 27, 3.6, "going round anticlockwise; all four in view. Then: "
                       "referee calibrate FRAME --name TABLE", "middle"))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
