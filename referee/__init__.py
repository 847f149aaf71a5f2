"""The domino table referee: rules, synthetic table, vision, layout, live session, voice,
dashboard and records (see docs/architecture.md)."""

import os as _os

# numpy's BLAS starts a thread per core for the small least-squares fits and products of every
# frame and keeps them spinning between calls: with one thread, detection reads the same (the
# sums come out the same) in about two thirds of the CPU time, and leaves the other cores to the
# camera and the dashboard. Set before numpy loads; a setting the user made wins.
for _name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_name, "1")
