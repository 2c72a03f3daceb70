"""One pin map: which GPIOs the display's bus owns, read with luma's own parser, and the same
answer from `companion run` and `companion doctor` for every build the documentation names.

For each display flags string and each preset the pages name (README.md, docs/, hardware/,
the example configuration), a key is put on every GPIO in turn: `run` refuses the
configuration exactly when `doctor` fails that pin, naming the same pin, owner and key.
"""

from __future__ import annotations

import pathlib
import re
import tomllib
from typing import Any

import pytest

from companion.config import parse
from companion.doctor import FAIL, Doctor, Finding
from companion.exc import ConfigError
from companion.io.pins import check_pins, display_claims
from tests.doctor_pi import FakePi

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "hardware").glob("*.md")),
         ROOT / "systemd" / "companion.example.toml"]


def named(pattern: str) -> list[str]:
    """Every distinct match of ``pattern``'s group in the pages, in order."""
    found = [m.group(1) for page in PAGES for m in re.finditer(pattern, page.read_text(encoding="utf-8"))]
    return list(dict.fromkeys(found))


FLAGS = named(r'flags = "(--display [^"]*)"')
PRESETS = named(r'preset = "([a-z-]+)"')
#: The pages' own pins for the custom preset (``pins = { up = 16, ... }``).
CUSTOM_PINS = tomllib.loads(named(r"(pins = \{[^}]*\})")[0])["pins"]


def test_the_pages_name_every_build() -> None:
    assert len(FLAGS) >= 3 and {"adafruit-bonnet", "waveshare-oled-hat", "minimal", "custom"} <= set(PRESETS)


def build(flags: str, preset: str) -> dict[str, Any]:
    buttons: dict[str, Any] = {"preset": preset}
    if preset == "custom":
        buttons["pins"] = dict(CUSTOM_PINS)
    return {"display": {"flags": flags}, "buttons": buttons}


def toml(table: dict[str, Any]) -> str:
    """A configuration as TOML (strings, integers and tables of them are enough here)."""
    lines: list[str] = []
    for name, values in table.items():
        lines.append(f"[{name}]")
        for key, value in values.items():
            if isinstance(value, dict):
                inner = ", ".join(f"{k} = {v}" for k, v in value.items())
                lines.append(f"{key} = {{ {inner} }}")
            else:
                lines.append(f'{key} = "{value}"' if isinstance(value, str) else f"{key} = {value}")
    return "\n".join(lines) + "\n"


def with_key(config: dict[str, Any], pin: int) -> dict[str, Any]:
    """The build with its roll key moved to (or added on) ``pin``."""
    buttons = dict(config["buttons"])
    buttons["pins"] = {**buttons.get("pins", {}), "roll": pin}
    return {**config, "buttons": buttons}


def run_refuses(config: dict[str, Any]) -> str:
    """`companion run`'s one line for a configuration it refuses ("" when it starts)."""
    parsed = parse(config, "companion.toml")
    try:
        check_pins(parsed, parsed.display)
    except ConfigError as err:
        return str(err)
    return ""


def doctor_keys(pi: FakePi, config: dict[str, Any]) -> list[Finding]:
    """The doctor's configuration, display and key lines for a configuration."""
    path = pi.write("etc/companion/companion.toml", toml(config))
    doctor = Doctor(pi.machine(), str(path), None)
    return [*doctor.check_config(), *doctor.check_display(), *doctor.check_keys()]


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("flags", FLAGS)
def test_run_and_doctor_agree_on_every_pin(flags: str, preset: str, tmp_path: pathlib.Path) -> None:
    pi = FakePi(tmp_path)
    for pin in range(28):
        config = with_key(build(flags, preset), pin)
        refused = run_refuses(config)
        lines = [f for f in doctor_keys(pi, config) if f.status == FAIL and " is also " in f.found]
        if not refused:
            assert lines == [], (pin, lines)
            continue
        key, _, problem = refused.removeprefix("companion.toml: ").partition(": ")
        said, owner = problem.split(" is also ", 1)
        assert [line.found.partition(" (")[0] for line in lines][:1] == [said], (refused, lines)
        first = lines[0]
        assert first.found.endswith(f" is also {owner}") and f"change {key} " in first.fix, (refused, first)


@pytest.mark.parametrize(("flags", "owned"), [
    ("--display ssd1306 --interface i2c --i2c-port 1 --i2c-address 0x3C", {2: "I2C1 SDA", 3: "I2C1 SCL"}),
    ("--display ssd1306 --i2c-port 0", {0: "I2C0 SDA", 1: "I2C0 SCL"}),
    ("--display ssd1306 --i2c-port 3", {}),  # a Pi 4's overlay bus: its pins are the overlay's
    ("--display sh1106 --interface spi", {7: "SPI0 CE1", 8: "SPI0 CE0", 9: "SPI0 MISO", 10: "SPI0 MOSI",
                                          11: "SPI0 SCLK", 24: "DC (--gpio-data-command)",
                                          25: "RST (--gpio-reset)"}),
    ("--display sh1106 --interface spi --spi-device 1 --gpio-data-command 23 --gpio-reset=22",
     {7: "SPI0 CE1", 8: "SPI0 CE0", 9: "SPI0 MISO", 10: "SPI0 MOSI", 11: "SPI0 SCLK",
      23: "DC (--gpio-data-command)", 22: "RST (--gpio-reset)"}),
    ("--display sh1106 --interface spi --spi-port 1", {18: "SPI1 CE0", 19: "SPI1 MISO", 20: "SPI1 MOSI",
                                                      21: "SPI1 SCLK", 24: "DC (--gpio-data-command)",
                                                      25: "RST (--gpio-reset)"}),
    ("--display sh1106 --interface gpio_cs_spi --gpio-chip-select 5",
     {7: "SPI0 CE1", 8: "SPI0 CE0", 9: "SPI0 MISO", 10: "SPI0 MOSI", 11: "SPI0 SCLK",
      24: "DC (--gpio-data-command)", 25: "RST (--gpio-reset)", 5: "CS (--gpio-chip-select)"}),
    ("--display ssd1306 --interface ftdi_spi", {}),  # a USB adapter: no header pin
    ("--display capture", {}),  # luma.emulator's: a file, no pin
    ("", {}),  # no display: headless
])
def test_the_display_owns_its_whole_bus(flags: str, owned: dict[int, str]) -> None:
    claims = display_claims(flags)
    assert {claim.pin: claim.name for claim in claims} == owned
    assert all(claim.key == "display.flags" and claim.owner.startswith("the display's ") for claim in claims)


def test_a_key_on_the_waveshare_hats_miso_is_refused_by_run_and_failed_by_doctor(tmp_path: pathlib.Path) -> None:
    """The issue's case: GPIO9 is SPI0's MISO; the kernel's SPI driver owns it although the
    HAT's panel has no MISO line, so a key there would never work."""
    config = with_key(build(next(f for f in FLAGS if "--interface spi" in f), "waveshare-oled-hat"), 9)
    assert run_refuses(config) == "companion.toml: buttons.pins.roll: GPIO9 is also the display's SPI0 MISO"
    assert [f.line() for f in doctor_keys(FakePi(tmp_path), config) if f.status == FAIL] == [
        "fail  keys      GPIO9 (roll key) is also the display's SPI0 MISO; fix: give each its own GPIO: "
        "change buttons.pins.roll (or display.flags)"]


def test_a_display_whose_flags_luma_refuses_is_one_line_naming_the_flags() -> None:
    with pytest.raises(ConfigError, match=re.escape("companion.toml: display.flags: luma refused")):
        check_pins(parse({}, "companion.toml"), "--display ssd1306 --interface usb")
