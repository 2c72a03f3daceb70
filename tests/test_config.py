"""The configuration file: defaults for every key, one-line errors, players' settings."""

from __future__ import annotations

import json
import pathlib

import pytest

from companion.config import Config, ConfigError, ScreenConfig, load, save_settings, with_settings

EXAMPLE = pathlib.Path(__file__).parent.parent / "systemd" / "companion.example.toml"


def write(tmp_path: pathlib.Path, text: str) -> str:
    path = tmp_path / "companion.toml"
    path.write_text(text)
    return str(path)


def test_no_file_means_every_default() -> None:
    assert load(None) == Config()


def test_the_shipped_example_is_valid() -> None:
    config = load(str(EXAMPLE))
    assert config.display.startswith("--display ssd1306")
    assert config.inputs["buttons"].preset == "adafruit-bonnet"


@pytest.mark.parametrize(("text", "message"), [
    ('[screen]\ndim_after = -1\n', "screen.dim_after: must be a number of seconds, not -1"),
    ('[screen]\nshift = "yes"\n', "screen.shift: must be true or false, not 'yes'"),
    ('[buttons]\npreset = "joystick"\n', "buttons.preset: must be one of adafruit-bonnet, "
                                         "waveshare-oled-hat, minimal, custom, not 'joystick'"),
    ('[buttons.pins]\nup = 40\n', "buttons.pins.up: must be a BCM pin number 0-27, not 40"),
    ('[buttons]\npreset = "custom"\n', "buttons.pins: a custom preset needs at least a select pin"),
    ('[encoder]\na = 5\n', "encoder.a: an encoder needs both a and b pins"),
    ('[encoder]\npush = 13\n', "encoder.a: an encoder needs both a and b pins"),  # not ignored
    ('[display]\nflags = "--interface i2c"\n', "display.flags: must name the display"),
    ('[players]\nroster = ["Ann", "table"]\n', "players.roster: 'table' is not a valid name"),
    ('[screen]\nbrightness = 3\n', "screen.brightness: is not a setting the companion knows"),
    ('colour = "red"\n', "colour: is not a setting the companion knows"),
])
def test_a_bad_value_names_the_file_the_key_and_the_problem(tmp_path: pathlib.Path, text: str,
                                                             message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as error:
        load(path)
    assert str(error.value).startswith(f"{path}: {message}")
    assert "\n" not in str(error.value)


def test_a_missing_file_is_named(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load(str(tmp_path / "nope.toml"))


def test_players_settings_override_the_file_and_survive_a_restart(tmp_path: pathlib.Path) -> None:
    save_settings(Config(screen=ScreenConfig(dim_after=30, blank_after=0, shift=False)), tmp_path)
    config, note = with_settings(Config(), tmp_path)
    assert note == ""
    assert config.screen == ScreenConfig(30, 0, False)


def test_a_damaged_settings_file_is_kept_aside_and_the_defaults_used(tmp_path: pathlib.Path) -> None:
    (tmp_path / "settings.json").write_text("{not json")
    config, note = with_settings(Config(), tmp_path)
    assert config == Config()
    assert "damaged" in note
    kept = list(tmp_path.glob("settings.json.damaged-*"))
    assert len(kept) == 1 and kept[0].read_text() == "{not json"


def test_settings_with_a_wrong_value_are_set_aside_too(tmp_path: pathlib.Path) -> None:
    (tmp_path / "settings.json").write_text(json.dumps({"screen": {"dim_after": "x"}}))
    config, note = with_settings(Config(), tmp_path)
    assert config == Config() and note
