"""Settings from the environment: every field settable, bad values refused with one clear error."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from golfrace.settings import HintSettings, Settings
from golfrace.settings.env import SettingError, env_values

ROOT = Path(__file__).resolve().parents[2]


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
    for env in (
        {"GOLFRACE_COMPRESSION": "enabled"},
        {"GOLFRACE_RATE": "-1"},
        {"GOLFRACE_HINT_IN_FLIGHT": "x"},
    ):
        with pytest.raises(SettingError) as caught:
            Settings.from_env(env)
        assert next(iter(env)) in str(caught.value)


def test_one_tree_with_the_subtrees() -> None:
    s = Settings.from_env(
        {"GOLFRACE_RACE_COUNTDOWN_MS": "10", "GOLFRACE_HINT_MAX_SECONDS": "0.5", "GOLFRACE_COMPRESSION": "on"}
    )
    assert (s.races.countdown_ms, s.hints.max_seconds, s.compression) == (10, 0.5, True)
    assert s.with_(request_timeout_s=0.5).request_timeout_s == 0.5
    # every field says what it is for (the docstring under it, read by the settings docs test)
    assert all(dataclasses.is_dataclass(t) for t in (s.races, s.hints))


def test_a_bad_value_stops_serve_with_one_line() -> None:
    env = {**os.environ, "GOLFRACE_COMPRESSION": "enabled"}
    done = subprocess.run(
        [sys.executable, "-m", "golfrace", "serve", "--redis", "redis://127.0.0.1:1/0", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "GOLFRACE_COMPRESSION='enabled'" in lines[0], done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_other_settings_objects_share_the_reader() -> None:
    assert env_values(HintSettings, "GOLFRACE_HINT_", {"GOLFRACE_HINT_MAX_SECONDS": "0.5"}) == {
        "max_seconds": 0.5
    }
    with pytest.raises(SettingError):
        env_values(HintSettings, "GOLFRACE_HINT_", {"GOLFRACE_HINT_IN_FLIGHT": "1.5"})


def test_race_settings_from_env_take_only_the_named_fields() -> None:
    from golfrace.settings.races import RaceSettings

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
    from golfrace.settings.races import RaceSettings

    for env in (
        {"GOLFRACE_RACE_WATCHER_REFRESH_S": "20", "GOLFRACE_RACE_WATCHER_STALE_S": "15"},
        {"GOLFRACE_RACE_WATCHER_REFRESH_S": "0"},
        {"GOLFRACE_RACE_RACE_TTL_S": "-1"},
    ):
        with pytest.raises(SettingError):
            RaceSettings.from_env(env)


def test_docs_settings_is_current() -> None:
    """docs/settings.md is `golfrace settings`' output: every setting documented, none that is gone."""
    assert (ROOT / "docs" / "settings.md").read_text() == Settings().reference()
    assert all(
        line.split("|")[3].strip() for line in Settings().reference().splitlines() if line.startswith("| `")
    )


def test_settings_command_prints_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    from golfrace.cli import main

    assert main(["settings"]) == 0
    assert capsys.readouterr().out == Settings().reference()
