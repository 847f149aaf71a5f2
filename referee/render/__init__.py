"""The synthetic table: overhead frames of real games, with exact ground truth."""
