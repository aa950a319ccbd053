"""The nine-deal course on the server (issue 22.3, docs/course.md): course attempts recorded hole by hole
from stored games, the course leaderboards, the weekend's daily course and course races (``racing.py``)."""
