"""Settings from the environment: every field settable, bad values refused with one clear error."""

from __future__ import annotations

import pytest

from golfrace.settings import SettingError, Settings, env_values


def test_env_sets_fields_and_redis_url_falls_back() -> None:
    s = Settings.from_env({"GOLFRACE_RATE": "5.5", "GOLFRACE_BURST": "7", "REDIS_URL": "redis://h:1/0"})
    assert (s.rate, s.burst, s.redis_url) == (5.5, 7, "redis://h:1/0")
    s = Settings.from_env({"GOLFRACE_REDIS_URL": "redis://a:2/0", "REDIS_URL": "redis://b:3/0"})
    assert s.redis_url == "redis://a:2/0"
    assert Settings.from_env({"GOLFRACE_RATE": ""}).rate == Settings().rate


def test_bad_values_name_the_variable() -> None:
    with pytest.raises(SettingError) as caught:
        Settings.from_env({"GOLFRACE_BURST": "many"})
    assert caught.value.code == "bad_setting" and "GOLFRACE_BURST='many'" in str(caught.value)


def test_other_settings_objects_share_the_reader() -> None:
    from golfrace.hints import HintSettings

    assert env_values(HintSettings, "GOLFRACE_HINT_", {"GOLFRACE_HINT_MAX_SECONDS": "0.5"}) == {
        "max_seconds": 0.5
    }
    with pytest.raises(SettingError):
        env_values(HintSettings, "GOLFRACE_HINT_", {"GOLFRACE_HINT_IN_FLIGHT": "1.5"})


def test_race_settings_from_env_take_only_the_named_fields() -> None:
    from golfrace.races.settings import RaceSettings

    s = RaceSettings.from_env(
        {
            "GOLFRACE_RACE_WATCHER_STALE_S": "2.5",
            "GOLFRACE_RACE_WATCHER_REFRESH_S": "1",
            "GOLFRACE_RACE_MAX_RACERS": "3",
        }
    )
    assert s.watcher_stale_s == 2.5 and s.max_racers == RaceSettings().max_racers  # a schema limit: fixed
    with pytest.raises(SettingError) as caught:
        RaceSettings.from_env({"GOLFRACE_RACE_COUNTDOWN_MS": "soon"})
    assert "GOLFRACE_RACE_COUNTDOWN_MS='soon'" in str(caught.value)


def test_race_watcher_timing_must_make_sense() -> None:
    from golfrace.races.settings import RaceSettings

    for env in (
        {"GOLFRACE_RACE_WATCHER_REFRESH_S": "20", "GOLFRACE_RACE_WATCHER_STALE_S": "15"},
        {"GOLFRACE_RACE_WATCHER_REFRESH_S": "0"},
        {"GOLFRACE_RACE_RACE_TTL_S": "-1"},
    ):
        with pytest.raises(SettingError):
            RaceSettings.from_env(env)
