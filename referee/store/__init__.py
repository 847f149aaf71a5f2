"""Game records and statistics: every match and hand played, in a SQLite file (``db.py``),
written as a session plays (``recorder.py``), read back as statistics (``stats.py``) and moved
between tables as JSON (``transfer.py``). Imports the rules and the session's events only."""

from referee.store.db import NoRecords, Store, StoreError
from referee.store.recorder import Recorder
from referee.store.stats import MatchSummary, PlayerStats, Stats, VariantStats
from referee.store.transfer import ImportReport

__all__ = ["ImportReport", "MatchSummary", "NoRecords", "PlayerStats", "Recorder", "Stats", "Store", "StoreError",
           "VariantStats"]
