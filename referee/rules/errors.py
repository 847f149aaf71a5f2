"""Errors raised by the rules engine: all are ``ValueError`` subclasses."""

from __future__ import annotations

import enum


class Reason(enum.StrEnum):
    """Machine-readable reason an action is illegal, in the order they are reported.

    When an action breaks several rules, the first reason in this order is reported.
    """

    HAND_OVER = "hand_over"
    OUT_OF_TURN = "out_of_turn"
    NOT_IN_SET = "not_in_set"
    DUPLICATE = "duplicate"
    NOT_IN_HAND = "not_in_hand"
    WRONG_OPENING = "wrong_opening"
    NO_SUCH_END = "no_such_end"
    END_CLOSED = "end_closed"
    AMBIGUOUS_END = "ambiguous_end"
    MISMATCH = "mismatch"
    NO_DRAWING = "no_drawing"
    BONEYARD_EMPTY = "boneyard_empty"
    NOT_IN_BONEYARD = "not_in_boneyard"
    MUST_PLAY = "must_play"
    MUST_DRAW = "must_draw"

    def __repr__(self) -> str:
        return f"Reason.{self.name}"

    def __str__(self) -> str:
        return self.value


class IllegalAction(ValueError):
    """An action the rules do not allow. ``reason`` says which rule; the message names the
    action and the table."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class RulesError(ValueError):
    """A rules object that makes no sense (a bad option value, too many players for the set).
    ``field`` names the option at fault."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class RecordError(ValueError):
    """A malformed game record. ``path`` is the JSON path of the bad value, e.g.
    ``$.hands[0].actions[3].play``."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.detail = message
