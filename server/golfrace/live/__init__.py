"""The layer live: connections and the core.

Session, follow machine, writer, dispatch, ordering, limits, metrics, the core handlers.
"""
