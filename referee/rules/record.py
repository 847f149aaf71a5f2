"""Game records: one JSON document per match, a public interface other tools read and write.

Reading collects every problem with the JSON path of the bad value instead of stopping at the
first (as python-chess's PGN reader does); :func:`parse_record` raises the first as a
:class:`RecordError`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from referee.rules.errors import RecordError, RulesError
from referee.rules.hand import Action, Hand
from referee.rules.table import End
from referee.rules.tiles import Tile, parse_halves
from referee.rules.variants import BlockedScoring, Rules, Variant

#: Rule options a record may set, with the JSON types they take.
RULE_KEYS: dict[str, tuple[type, ...]] = {
    "hand_size": (int,), "target": (int,), "max_pips": (int,), "draw_when_able": (bool,),
    "keep_in_boneyard": (int,), "blocked_scoring": (str,), "draw_count": (int,),
    "first_player": (int, type(None)), "spinner": (bool,),
}
_KINDS = ("play", "draw", "pass")


@dataclasses.dataclass(frozen=True)
class RecordedAction:
    """One action as written in a record. ``tile`` is None for a pass or an unseen draw; ``left``
    is the half written first for a tile that may be an opening (its left end)."""

    player: int
    kind: str
    tile: Tile | None = None
    end: End | None = None
    left: int | None = None


@dataclasses.dataclass(frozen=True)
class RecordedHand:
    actions: tuple[RecordedAction, ...]
    deal: tuple[tuple[Tile, ...] | None, ...] | None = None
    boneyard: tuple[Tile, ...] | None = None
    reveal: tuple[tuple[Tile, ...] | None, ...] | None = None


@dataclasses.dataclass(frozen=True)
class GameRecord:
    rules: Rules
    hands: tuple[RecordedHand, ...]
    names: tuple[str, ...] | None = None

    @property
    def variant(self) -> Variant:
        return self.rules.variant


class _Reader:
    def __init__(self) -> None:
        self.errors: list[RecordError] = []

    def error(self, path: str, message: str) -> None:
        self.errors.append(RecordError(path, message))

    def int_(self, value: Any, path: str, low: int | None = None, high: int | None = None) -> int | None:
        if not isinstance(value, int) or isinstance(value, bool):
            self.error(path, f"expected a whole number, got {json.dumps(value)}")
            return None
        if (low is not None and value < low) or (high is not None and value > high):
            self.error(path, f"expected a number from {low} to {high}, got {value}")
            return None
        return value

    def tile(self, value: Any, path: str) -> Tile | None:
        if not isinstance(value, str):
            self.error(path, f"expected a tile like \"6-3\", got {json.dumps(value)}")
            return None
        try:
            return Tile.parse(value)
        except ValueError as error:
            self.error(path, str(error))
            return None

    def tiles(self, value: Any, path: str, max_pips: int) -> tuple[Tile, ...] | None:
        if not isinstance(value, list):
            self.error(path, f"expected a list of tiles, got {json.dumps(value)[:40]}")
            return None
        out = []
        for i, item in enumerate(value):
            tile = self.tile(item, f"{path}[{i}]")
            if tile is None:
                continue
            if tile.high > max_pips:
                self.error(f"{path}[{i}]", f"tile {tile} is not in a double-{max_pips} set")
                continue
            out.append(tile)
        return tuple(out) if len(out) == len(value) else None

    def hands(self, value: Any, path: str, players: int, max_pips: int) -> tuple[tuple[Tile, ...] | None, ...] | None:
        if not isinstance(value, list):
            self.error(path, f"expected a list with one list of tiles per player, got {json.dumps(value)[:40]}")
            return None
        if len(value) != players:
            self.error(path, f"expected one list of tiles per player ({players}), got {len(value)}")
            return None
        out = [None if item is None else self.tiles(item, f"{path}[{i}]", max_pips) for i, item in enumerate(value)]
        return tuple(out)


def record_errors(data: Any) -> tuple[GameRecord | None, list[RecordError]]:
    """Read a decoded record, collecting every problem found. The record is None when any was."""
    reader = _Reader()
    record = _read(data, reader)
    return (record if not reader.errors else None), reader.errors


def parse_record(data: Any) -> GameRecord:
    """Read a decoded record; raises :class:`RecordError` (naming the JSON path) if malformed."""
    record, errors = record_errors(data)
    if errors:
        raise errors[0]
    assert record is not None
    return record


def load_record(text: str) -> GameRecord:
    """Read a record from JSON text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError("$", f"not JSON: {error.msg} at line {error.lineno} column {error.colno}") from None
    except RecursionError:
        raise RecordError("$", "nested too deeply to be a game record") from None
    except ValueError as error:  # e.g. a number with thousands of digits
        raise RecordError("$", f"not a readable JSON document: {error}") from None
    return parse_record(data)


def _read(data: Any, r: _Reader) -> GameRecord | None:
    if not isinstance(data, dict):
        r.error("$", f"expected a JSON object, got {type(data).__name__}")
        return None
    variant_text = data.get("variant", "draw")
    try:
        variant = Variant(variant_text)
    except ValueError:
        r.error("$.variant", f"expected one of {', '.join(v.value for v in Variant)}, got {json.dumps(variant_text)}")
        return None
    players = r.int_(data.get("players", 4 if variant is Variant.PARTNERS else 2), "$.players", 2, 10)
    if players is None:
        return None
    options: dict[str, Any] = {}
    raw_rules = data.get("rules", {})
    if not isinstance(raw_rules, dict):
        r.error("$.rules", f"expected an object, got {json.dumps(raw_rules)[:40]}")
        return None
    for key, value in raw_rules.items():
        types = RULE_KEYS.get(key)
        if types is None:
            r.error(f"$.rules.{key}", f"unknown rule; known rules: {', '.join(RULE_KEYS)}")
        elif not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            r.error(f"$.rules.{key}", f"expected {' or '.join(_type_name(t) for t in types)}, got {json.dumps(value)}")
        else:
            options[key] = value
    if "blocked_scoring" in options:
        try:
            options["blocked_scoring"] = BlockedScoring(options["blocked_scoring"])
        except ValueError:
            r.error("$.rules.blocked_scoring", f"expected one of {', '.join(b.value for b in BlockedScoring)}, "
                                               f"got {json.dumps(options['blocked_scoring'])}")
            return None
    if r.errors:
        return None
    try:
        rules = Rules(variant=variant, players=players, **options)
    except RulesError as error:
        field = error.field
        path = "$.rules" if field is None else f"${'' if field in ('players', 'variant') else '.rules'}.{field}"
        r.error(path, str(error))
        return None
    names = None
    if "names" in data:
        raw_names = data["names"]
        if (not isinstance(raw_names, list) or len(raw_names) != players
                or not all(isinstance(n, str) for n in raw_names)):
            r.error("$.names", f"expected {players} player names, got {json.dumps(raw_names)[:60]}")
        else:
            names = tuple(raw_names)
    raw_hands = data.get("hands")
    if not isinstance(raw_hands, list):
        r.error("$.hands", "expected a list of hands" if raw_hands is None else
                f"expected a list of hands, got {json.dumps(raw_hands)[:40]}")
        return None
    hands = [_read_hand(h, f"$.hands[{i}]", rules, r) for i, h in enumerate(raw_hands)]
    if r.errors:
        return None
    return GameRecord(rules, tuple(h for h in hands if h is not None), names)


def _read_hand(data: Any, path: str, rules: Rules, r: _Reader) -> RecordedHand | None:
    if not isinstance(data, dict):
        r.error(path, f"expected an object, got {json.dumps(data)[:40]}")
        return None
    for key in data:
        if key not in ("deal", "boneyard", "actions", "reveal"):
            r.error(f"{path}.{key}", "unknown key; a hand has deal, boneyard, actions and reveal")
    deal = boneyard = reveal = None
    if data.get("deal") is not None:
        deal = r.hands(data["deal"], f"{path}.deal", rules.players, rules.max_pips)
    if data.get("boneyard") is not None:
        boneyard = r.tiles(data["boneyard"], f"{path}.boneyard", rules.max_pips)
    if data.get("reveal") is not None:
        reveal = r.hands(data["reveal"], f"{path}.reveal", rules.players, rules.max_pips)
    raw_actions = data.get("actions")
    if not isinstance(raw_actions, list):
        r.error(f"{path}.actions", "expected a list of actions")
        return None
    actions = [_read_action(a, f"{path}.actions[{i}]", rules, r) for i, a in enumerate(raw_actions)]
    if deal is not None or boneyard is not None:
        try:  # the deal must be one a table could have dealt
            Hand(rules, deal, boneyard)
        except ValueError as error:
            r.error(f"{path}.deal" if deal is not None else f"{path}.boneyard", str(error))
    if any(a is None for a in actions):
        return None
    return RecordedHand(tuple(a for a in actions if a is not None), deal, boneyard, reveal)


def _read_action(data: Any, path: str, rules: Rules, r: _Reader) -> RecordedAction | None:
    if not isinstance(data, dict):
        r.error(path, f"expected an object like {{\"player\": 0, \"play\": \"6-6\"}}, got {json.dumps(data)[:40]}")
        return None
    player = r.int_(data.get("player"), f"{path}.player", 0, rules.players - 1) if "player" in data else None
    if "player" not in data:
        r.error(f"{path}.player", "missing: every action names its player")
    kinds = [k for k in _KINDS if k in data]
    for key in data:
        if key not in (*_KINDS, "player", "end"):
            r.error(f"{path}.{key}", "unknown key; an action has player and one of play, draw, pass (and end)")
    if len(kinds) != 1:
        r.error(path, "expected exactly one of \"play\", \"draw\", \"pass\"" +
                (f", got {' and '.join(kinds)}" if kinds else ""))
        return None
    kind = kinds[0]
    if "end" in data and kind != "play":
        r.error(f"{path}.end", "only a play has an end")
    if player is None:
        return None
    if kind == "pass":
        if data["pass"] is not True:
            r.error(f"{path}.pass", f"expected true, got {json.dumps(data['pass'])}")
            return None
        return RecordedAction(player, "pass")
    if kind == "draw":
        if data["draw"] is None:
            return RecordedAction(player, "draw")
        tile = r.tile(data["draw"], f"{path}.draw")
        return None if tile is None else RecordedAction(player, "draw", tile)
    tile = r.tile(data["play"], f"{path}.play")
    end = None
    if data.get("end") is not None:
        try:
            end = End(data["end"])
        except ValueError:
            r.error(f"{path}.end", f"expected left, right, up or down, got {json.dumps(data['end'])}")
            return None
    if tile is None:
        return None
    return RecordedAction(player, "play", tile, end, parse_halves(data["play"])[0])


def _type_name(t: type) -> str:
    return {int: "a whole number", bool: "true or false", str: "a string", type(None): "null"}[t]


# -- writing ---------------------------------------------------------------------------------
def action_to_json(action: Action, opening: bool = False, left: int | None = None) -> dict[str, Any]:
    """One action in record form. An opening is written left half first; other tiles higher
    half first."""
    if action.kind == "pass":
        return {"player": action.player, "pass": True}
    if action.kind == "draw":
        return {"player": action.player, "draw": None if action.tile is None else str(action.tile)}
    assert action.tile is not None
    if opening:
        half = action.tile.high if left is None else left
        return {"player": action.player, "play": f"{half}-{action.tile.other(half)}"}
    out: dict[str, Any] = {"player": action.player, "play": str(action.tile)}
    if action.end is not None:
        out["end"] = action.end.value
    return out


def hand_to_json(hand: Hand, deal: Sequence[Sequence[Tile]] | None = None,
                 boneyard: Sequence[Tile] | None = None, reveal: bool = True) -> dict[str, Any]:
    """A played hand in record form: its deal and boneyard (when given), every action, and the
    tiles left in each hand as the reveal."""
    out: dict[str, Any] = {}
    if deal is not None:
        out["deal"] = [[str(t) for t in tiles] for tiles in deal]
    if boneyard is not None:
        out["boneyard"] = [str(t) for t in boneyard]
    moves = hand.moves
    out["actions"] = [action_to_json(a, opening=(i == 0), left=hand.table.opener_left) for i, a in enumerate(moves)]
    if reveal and hand.is_over() and all(hand.unseen_in_hand(s) == 0 for s in range(hand.players)):
        out["reveal"] = [[str(t) for t in hand.held(s)] for s in range(hand.players)]
    return out


def record_to_json(rules: Rules, hands: Sequence[dict[str, Any]], names: Sequence[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"variant": rules.variant.value, "players": rules.players, "rules": rules.to_dict()}
    if names is not None:
        out["names"] = list(names)
    out["hands"] = list(hands)
    return out
