"""The live loop: frame sources, the stabiliser, inference from one stable table to the next,
the event log and the announcements."""
