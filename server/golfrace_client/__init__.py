"""The public Python client of Golf Race, for bot authors, apart from the server.

A websocket client that keeps a game view from the server's diffs, and a bot.
"""
