"""The live dashboard: the camera frame as the referee read it, the line of play, the scores,
whose turn it is, the event log, controls for what the camera cannot see, and the records'
statistics (``referee watch|replay|demo --serve``)."""
