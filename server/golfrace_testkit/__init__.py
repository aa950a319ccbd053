"""What tests and benches start around the product: real servers, a Redis Cluster, HAProxy.

Not part of the product: the server never imports it.
"""
