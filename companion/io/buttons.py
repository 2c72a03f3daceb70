"""The build's keys (``[buttons]``): one switch per role, from a preset or pins of your own.

Each key only puts :class:`~companion.io.base.Edge` values on the queue; the main loop's key
logic (:mod:`companion.io.keylogic`) debounces them and times the long presses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from companion.intents import ROLES, Role
from companion.io.base import Claim, Input, Table

#: BCM pins per build (hardware/README.md has the wiring).
PRESETS: dict[str, dict[Role, int]] = {
    "adafruit-bonnet": {"up": 17, "down": 22, "left": 27, "right": 23, "select": 4,
                        "roll": 5, "back": 6},
    "waveshare-oled-hat": {"up": 6, "down": 19, "left": 5, "right": 26, "select": 13,
                           "roll": 21, "context": 20, "back": 16},
    "minimal": {"up": 17, "down": 27, "select": 22},
    "custom": {},
}
#: The terminal emulator's virtual pins: every role, on mock pins only.
EMULATOR_PINS: dict[Role, int] = {"up": 5, "down": 6, "left": 12, "right": 13, "select": 16, "back": 19,
                 "context": 20, "roll": 21}


def pins_for(preset: str, custom: Mapping[Role, int]) -> dict[Role, int]:
    """The preset's pins with the configured ones laid over them."""
    pins = dict(PRESETS[preset])
    pins.update(custom)
    return pins


@dataclass(frozen=True)
class KeySettings:
    """``[buttons]``: a preset, and ``pins`` (by role) that replace or add single keys."""

    preset: str = "minimal"
    pins: Mapping[Role, int] = field(default_factory=dict)

    def roles(self) -> dict[Role, int]:
        """Each role's pin."""
        return pins_for(self.preset, self.pins)


class Keys(Input[KeySettings]):
    """The keys: a pin that cannot be opened costs only its own key (the key logic lets a
    long press of another key stand in for a lost select)."""

    table = "buttons"
    example: ClassVar[Mapping[str, object]] = {"preset": "minimal"}

    @classmethod
    def read(cls, table: Table) -> KeySettings:
        pins_table = table.table_of("pins")
        pins = {role: pin for role in ROLES if (pin := pins_table.pin(role)) is not None}
        pins_table.done()
        settings = KeySettings(table.text("preset", "minimal", tuple(PRESETS)), pins)
        if settings.preset == "custom" and "select" not in pins:
            raise table.fail("pins", "a custom preset needs at least a select pin")
        return settings

    @classmethod
    def claims(cls, settings: KeySettings) -> list[Claim]:
        return [Claim(pin, f"{role} key", f"buttons.pins.{role}", role=role) if role in settings.pins
                else Claim(pin, f"{role} key", "buttons.preset", f"the {settings.preset} preset", role)
                for role, pin in settings.roles().items()]

    @classmethod
    def sources(cls, settings: KeySettings) -> list[str]:
        return list(settings.roles())

    @classmethod
    def emulated(cls) -> KeySettings:
        return KeySettings("custom", EMULATOR_PINS)

    def open(self) -> None:
        for role, pin in self.settings.roles().items():
            self.key(pin, role)
