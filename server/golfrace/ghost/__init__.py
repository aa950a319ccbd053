"""Ghost races: a finished game's record raced again in real time (``routes.py``)."""
