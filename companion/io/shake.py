"""Shake to roll: a tilt or vibration switch on a GPIO pin (gpiozero) presses "roll".

A vibration switch chatters for as long as the box is shaken, and a ball tilt switch
rattles when it moves, so a shake is a burst of edges rather than one press, and the
buttons' debounce would see nothing stable in it. The rule here instead: the switch
*closing* after at least ``settle`` seconds without any edge is a new shake, and puts one
``roll`` intent on the queue; every edge of the burst that follows only restarts the
stillness. Opening never rolls, so a tilt switch tipped over and later set back rolls once.

The roll intent then goes the way of the roll button's: the play screen rolls the dice the
prompt asks for, as "Roll for me" does, and a dimmed or dark screen is only woken.

The callbacks run on gpiozero's thread and keep their one timestamp to themselves: they
decide whether to enqueue, and touch nothing the main loop owns.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable

from gpiozero import Factory

from companion.intents import TILT, Intent
from companion.io.buttons import key_device


class ShakeSwitch:
    """A switch between ``pin`` and ground (internal pull-up), read as shakes."""

    def __init__(self, pin: int, events: queue.Queue[object], settle: float = 1.0,
                 clock: Callable[[], float] = time.monotonic, factory: Factory | None = None) -> None:
        self.events = events
        self.settle = settle
        self.clock = clock
        self.last_edge: float | None = None
        # No bounce_time: the stillness rule is the filter, and MockPin has none to test.
        self.button = key_device(pin, factory)  # None: gpiozero's default
        self.button.when_activated = self._closed
        self.button.when_deactivated = self._opened

    def _closed(self) -> None:
        now = self.clock()
        still = self.last_edge is None or now - self.last_edge >= self.settle
        self.last_edge = now
        if still:
            self.events.put(Intent("roll", source=TILT))

    def _opened(self) -> None:
        self.last_edge = self.clock()

    def close(self) -> None:
        """Release the pin."""
        self.button.close()
