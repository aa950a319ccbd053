"""The analysis of a finished game: the solver beside each move (``core.py``, pure), computed once per game
within a CPU budget and cached (``service.py``), served at ``GET /api/games/{id}/analysis`` (``routes.py``).
"""
