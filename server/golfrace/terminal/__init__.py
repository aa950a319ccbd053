"""Golf in a terminal (``golfrace play`` without moves, ``golfrace play --race URL``, ``golfrace watch URL``):
full-screen apps built with textual. ``board.py`` draws a board as text (pure), ``links.py`` reads a race's
address, ``apps.py`` holds the apps: a solo game on the engine itself, a race seat and a watch through the
server's websocket protocol (``golfrace.client``).
"""
