"""Friends (issue 21.4): following accounts, blocking, who of them is online and in which race, challenges,
and the friends' board of the daily. Accounts only.

The extension module is ``golfrace.friends.wire`` (its ``@handler`` functions, ``startup``/``shutdown``).
It reaches accounts and races through the small interfaces of ``ports.py`` only. Redis keys: ``keys.py``;
limits: ``settings/friends.py``; what a follower may learn and why: ``docs/friends.md``.
"""
