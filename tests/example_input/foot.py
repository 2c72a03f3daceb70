"""A foot switch: a pedal between a GPIO pin and ground that presses one key, hands free.

``[foot]`` in the configuration file sets it up::

    [foot]
    pin = 12         # BCM
    role = "roll"    # the key it presses (default roll: roll the dice without a hand)

It is a key like the build's own: it reports edges, and the daemon's key logic debounces
them and times its long presses (a pedal set to select opens the menu when held).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from companion.intents import ROLES, Role
from companion.io.base import Claim, Input, Table


@dataclass(frozen=True)
class FootSettings:
    pin: int
    role: Role = "roll"


class FootSwitch(Input[FootSettings]):
    """One pedal, pressing one key."""

    table = "foot"
    example: ClassVar[Mapping[str, object]] = {"pin": 12, "role": "roll"}

    @classmethod
    def read(cls, table: Table) -> FootSettings | None:
        pin, role = table.pin("pin"), table.choice("role", "roll", ROLES)
        return None if pin is None else FootSettings(pin, role)

    @classmethod
    def claims(cls, settings: FootSettings) -> list[Claim]:
        return [Claim(settings.pin, "foot switch", "foot.pin", role=settings.role)]

    @classmethod
    def sources(cls, settings: FootSettings) -> list[str]:
        return [settings.role]  # the key test crosses its key off when the pedal is pressed

    def open(self) -> None:
        pin = self.settings.pin
        self.key(pin, self.settings.role, "foot switch", f"foot switch GPIO{pin}")
