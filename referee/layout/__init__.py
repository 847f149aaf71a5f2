"""From one frame's detections to the table as the rules see it: which halves touch, the line
of play, the spinner and its arms, the open ends; and what does not fit, reported."""

from referee.layout.geometry import Contact, Part, Piece, contacts, piece
from referee.layout.line import Layout, LayoutConfig, build

__all__ = ["Contact", "Layout", "LayoutConfig", "Part", "Piece", "build", "contacts", "piece"]
