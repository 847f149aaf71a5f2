"""The rules engine: tiles, the line of play, variants, scoring and game records.

Standard library only: importing it loads neither numpy nor OpenCV.
"""

from referee.rules.errors import IllegalAction, Reason, RecordError, RulesError
from referee.rules.hand import BONEYARD, TABLE, UNSEEN, Action, Hand
from referee.rules.scoring import Outcome, Termination, award, fives_points, round_to_five
from referee.rules.table import ENDS, End, LineOfPlay, Play, Table
from referee.rules.tiles import Tile, set_size, tile_set
from referee.rules.variants import HAND_SIZES, BlockedScoring, Rules, Variant

__all__ = [
    "Action", "BONEYARD", "BlockedScoring", "ENDS", "End", "HAND_SIZES", "Hand", "IllegalAction",
    "LineOfPlay", "Outcome", "Play", "Reason", "RecordError", "Rules", "RulesError", "TABLE",
    "Table", "Termination", "Tile", "UNSEEN", "Variant", "award", "fives_points", "round_to_five",
    "set_size", "tile_set",
]
