"""The layer store: Redis.

Every key, the codecs of stored state, the commit script, batching, connections, pub/sub, the embedded Redis.
"""
