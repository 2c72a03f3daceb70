"""Shake to roll (``[shake]``): a tilt or vibration switch on a GPIO pin presses "roll".

A vibration switch chatters for as long as the box is shaken, and a ball tilt switch
rattles when it moves, so a shake is a burst of edges rather than one press, and the
keys' debounce would see nothing stable in it. The rule here instead: the switch
*closing* after at least ``settle`` seconds without any edge is a new shake, and puts one
``roll`` intent on the queue; every edge of the burst that follows only restarts the
stillness. Opening never rolls, so a tilt switch tipped over and later set back rolls once.

The roll intent then goes the way of the roll button's: the play screen rolls the dice the
prompt asks for, as "Roll for me" does, and a dimmed or dark screen is only woken.

The callbacks run on gpiozero's thread and keep their one timestamp to themselves: they
decide whether to enqueue, and touch nothing the main loop owns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from companion.intents import Intent
from companion.io.base import Claim, Input, Table, key_device

#: What its rolls name as their source (the key test lists it).
SOURCE = "tilt switch"


@dataclass(frozen=True)
class ShakeSettings:
    pin: int
    settle: float = 1.0  # seconds of stillness before the next shake rolls again


class ShakeSwitch(Input[ShakeSettings]):
    """A switch between its pin and ground (internal pull-up), read as shakes."""

    table = "shake"
    example: ClassVar[Mapping[str, object]] = {"pin": 26, "settle": 1.0}

    @classmethod
    def read(cls, table: Table) -> ShakeSettings | None:
        pin, settle = table.pin("pin"), table.seconds("settle", 1.0, positive=True)
        return None if pin is None else ShakeSettings(pin, settle)

    @classmethod
    def claims(cls, settings: ShakeSettings) -> list[Claim]:
        return [Claim(settings.pin, SOURCE, "shake.pin")]

    @classmethod
    def sources(cls, settings: ShakeSettings) -> list[str]:
        return [SOURCE]

    def open(self) -> None:
        self.last_edge: float | None = None
        pin = self.settings.pin
        button = self.device(lambda: key_device(pin, self.factory), pin, SOURCE)
        if button is not None:
            button.when_activated = self._closed
            button.when_deactivated = self._opened

    def _closed(self) -> None:
        now = self.clock()
        still = self.last_edge is None or now - self.last_edge >= self.settings.settle
        self.last_edge = now
        if still:
            self.emit(Intent("roll", source=SOURCE))

    def _opened(self) -> None:
        self.last_edge = self.clock()
