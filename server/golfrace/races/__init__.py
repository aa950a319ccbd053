"""Races, spectators, leaderboards, the daily challenge and replays (issue 5).

Pure: ``race`` (the race state machine), ``views`` (what each audience sees), ``daily`` (code choice,
streaks, share text). Redis: ``leaderboard``, ``replay`` (records), ``daily.DailyBook``, ``service``.
"""
