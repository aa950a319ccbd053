"""The layer wire: what crosses the socket, defined once.

Messages, codecs, error and close codes, public game views, ids. Imports only the engine and the settings.
"""
