"""Recording a live session into the records database as it is played.

The session's announce callback hands every event on; at each ``hand_end`` the finished hand
is written and committed at once (with its events and times), at ``match_end`` the result.
Writing is idempotent per hand number, so a resumed session (the same ``key``) never records a
hand twice, and :meth:`Recorder.sync` after resuming writes any hand a crash left unrecorded: the
rules match restored from the event log holds every finished hand. A hand is never lost::

    recorder = Recorder(store, names=names, rules=rules, source="camera 0", key=f"{log.path}#{session_id}")
    recorder.sync(session.referee.match, session.events)          # once, after a resume
    ...
    def announce(event, text):                                     # the session's callback
        recorder.on_event(event, session.referee.match, session.events)
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence

from referee.rules.match import Match
from referee.rules.variants import Rules
from referee.session.events import Event, Kind
from referee.store.db import Store, StoreError, check_names
from referee.store.facts import now


def split_hands(events: Sequence[Event]) -> tuple[list[list[Event]], list[Event]]:
    """A session's events by hand (each hand's ends with its ``hand_end``), and the events after
    the last ``hand_end`` (the ``match_end``, or the hand being played)."""
    hands: list[list[Event]] = []
    current: list[Event] = []
    for event in events:
        current.append(event)
        if event.kind is Kind.HAND_END:
            hands.append(current)
            current = []
    return hands, current


class Recorder:
    """Writes one match, hand by hand, as a session plays it. ``warn``: where store errors go
    (a line of text) instead of being raised, so that a full disk or a damaged database cannot
    stop the referee; ``clock``: the time now (for tests)."""

    def __init__(self, store: Store, *, names: Sequence[str] | None, rules: Rules, source: str | None = None,
                 key: str | None = None, warn: Callable[[str], None] | None = None,
                 clock: Callable[[], datetime.datetime] = now) -> None:
        self.store = store
        self.warn = warn
        self.clock = clock
        check_names(names, rules)  # said at once, not when the first hand ends
        self._match = (list(names) if names is not None else None, rules, source, key)
        # The match is written with its first hand: a referee started and stopped before any
        # hand ended (a camera that would not open) leaves no empty match behind.
        self.match_id = store.find_match(key)
        self.recorded = 0 if self.match_id is None else store.hand_count(self.match_id)
        self.finished = False
        self._started: dict[int, datetime.datetime] = {}  # hand number -> its first event's time
        self._ended: dict[int, datetime.datetime] = {}

    def on_event(self, event: Event, match: Match, events: Sequence[Event]) -> None:
        """One event just announced. ``match``: the referee's rules match (``session.referee.match``);
        ``events``: every event of the session so far, this one included (``session.events``)."""
        number = len(match.hands) + (0 if event.kind in (Kind.HAND_END, Kind.MATCH_END) else 1)
        self._started.setdefault(number, self.clock())
        if event.kind is Kind.HAND_END:
            self._ended.setdefault(number, self.clock())
        if event.kind in (Kind.HAND_END, Kind.MATCH_END):
            self.sync(match, events)

    def sync(self, match: Match, events: Sequence[Event]) -> None:
        """Write every finished hand of ``match`` not recorded yet, and its result once the match
        is over and its ``match_end`` is among ``events``."""
        try:
            self._sync(match, events)
        except StoreError as error:
            if self.warn is None:
                raise
            self.warn(f"the match was not recorded: {error}")

    def _match_id(self) -> int:
        if self.match_id is None:
            names, rules, source, key = self._match
            self.match_id = self.store.start_match(names=names, rules=rules, source=source, key=key,
                                                   started=self._started.get(1) or self.clock())
        return self.match_id

    def _sync(self, match: Match, events: Sequence[Event]) -> None:
        by_hand, after = split_hands(events)
        for i in range(self.recorded, len(match.hands)):
            hand = match.hands[i]
            scores = match.hands[i + 1].scores if i + 1 < len(match.hands) else match.scores
            self.store.add_hand(self._match_id(), number=i + 1, hand=hand,
                                events=by_hand[i] if i < len(by_hand) else (), scores=scores,
                                started=self._started.get(i + 1),
                                finished=self._ended.get(i + 1) or self.clock())
            self.recorded = i + 1
        ends = [e for e in after if e.kind is Kind.MATCH_END]
        if not self.finished and match.is_over() and ends:
            self.store.finish_match(self._match_id(), winners=match.winners(), scores=match.scores,
                                    finished=self.clock(), events=ends)
            self.finished = True
