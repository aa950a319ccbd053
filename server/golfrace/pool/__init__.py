"""Quick races (issue 21): the pool of players seeking a race, pairing in waves, bot seats, ratings.

Pure: ``pairing`` (who races whom in a wave), ``ratings.rate`` (openskill's Plackett–Luce on a race's final
order), ``policy.choose_bot_move`` (a bot's move from what a player sees). Redis: ``store`` (the sharded
pool), ``ratings.Ratings`` (ratings, history, the rating boards). The extension: ``service`` (waves, races,
bot drivers) and ``extension`` (handlers and routes). Rules and constants: ``docs/pool.md``.
"""
