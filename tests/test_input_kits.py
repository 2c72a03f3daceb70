"""Every registered input passes check_input, and check_input catches each broken promise.

The first test is parametrised over the registry: a new input is checked by adding its
line. The rest feed check_input inputs that each break one promise, and expect it to say
which (a checker that cannot fail proves nothing).
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any, ClassVar

import pytest
from gpiozero import Button

from companion.config import parse
from companion.exc import ConfigError
from companion.intents import Intent
from companion.io import INPUTS, InputKit, register
from companion.io.base import Claim, Input, Table, key_device
from companion.io.shake import ShakeSettings, ShakeSwitch
from companion.io.testing import check_input, example


@pytest.mark.parametrize("table", list(INPUTS))
def test_every_registered_input_passes_check_input(table: str) -> None:
    check_input(example(table))


@pytest.mark.parametrize("table", list(INPUTS))
def test_each_input_claims_its_pins_under_its_own_table(table: str) -> None:
    kind = INPUTS[table].input
    settings = parse({table: dict(kind.example)}, "c.toml").inputs[table]
    assert kind.claims(settings) and all(claim.key.startswith(f"{table}.") for claim in kind.claims(settings))
    assert kind.sources(settings)


@pytest.mark.parametrize("table", list(INPUTS))
def test_each_input_refuses_a_key_it_does_not_know_naming_its_table(table: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(f"c.toml: {table}.colour: is not a setting")):
        parse({table: {**INPUTS[table].input.example, "colour": "red"}}, "c.toml")


def test_a_registry_line_names_its_table_and_where_its_class_lives() -> None:
    with pytest.raises(ValueError, match="registered already"):
        register(InputKit("shake", "companion.io.shake:ShakeSwitch"))
    with pytest.raises(ValueError, match="a lower-case word"):
        InputKit("Foot Switch", "companion.io.shake:ShakeSwitch")
    with pytest.raises(ValueError, match=re.escape("package.module:Class")):
        InputKit("foot", "companion/io/shake.py")
    with pytest.raises(TypeError, match=re.escape("is not the input of [foot]")):
        _ = InputKit("foot", "companion.io.shake:ShakeSwitch").input  # its class says [shake]


# --- inputs that each break one promise ---


class Broken(Input[ShakeSettings]):
    """A switch on the settings' pin that sends a roll when closed; subclasses break it."""

    table = "broken"
    example: ClassVar[dict[str, Any]] = {"pin": 26}

    @classmethod
    def read(cls, table: Table) -> ShakeSettings | None:
        return ShakeSwitch.read(table)

    @classmethod
    def claims(cls, settings: ShakeSettings) -> list[Claim]:
        return [Claim(settings.pin, "broken switch", "broken.pin")]

    @classmethod
    def sources(cls, settings: ShakeSettings) -> list[str]:
        return ["broken switch"]

    def open(self) -> None:
        pin = self.settings.pin
        self.wire(self.device(lambda: key_device(pin, self.factory), pin, "broken switch"))

    def wire(self, switch: Any) -> None:
        if switch is not None:
            switch.when_activated = lambda: self.emit(Intent("roll", source="broken switch"))


class SendsText(Broken):
    def open(self) -> None:
        switch = key_device(self.settings.pin, self.factory)
        self.devices.append(switch)
        switch.when_activated = lambda: self.events.put("roll")


class SendsUnlisted(Broken):
    def open(self) -> None:
        switch = key_device(self.settings.pin, self.factory)
        self.devices.append(switch)
        switch.when_activated = lambda: self.emit(Intent("roll", source="a switch nobody lists"))


class KeepsItsPin(Broken):
    def close(self) -> None:
        self.kept, self.devices = self.devices, []  # put aside, never closed


class OpensAnotherPin(Broken):
    def open(self) -> None:
        super().open()
        self.device(lambda: key_device(self.settings.pin + 1, self.factory), self.settings.pin + 1, "extra")


class RaisesOnABusyPin(Broken):
    def open(self) -> None:
        switch = key_device(self.settings.pin, self.factory)  # not through device(): not survived
        self.devices.append(switch)
        self.wire(switch)


class SaysNothingOfABusyPin(Broken):
    def open(self) -> None:
        try:
            switch = key_device(self.settings.pin, self.factory)
        except Exception:
            return  # swallowed: no log line, nothing lost
        self.devices.append(switch)
        self.wire(switch)


class HoldsAThread(Broken):
    """gpiozero's Button: its hold thread wakes ten times a second."""

    def open(self) -> None:
        pin = self.settings.pin
        button = self.device(lambda: Button(pin, pin_factory=self.factory), pin, "broken switch")
        if button is not None:
            button.when_pressed = lambda: self.emit(Intent("roll", source="broken switch"))


class CrashesOnClose(Broken):
    def close(self) -> None:
        for device in self.devices:
            device.close()  # one failing close stops it, and raises


@pytest.mark.parametrize(("kind", "says"), [
    (SendsText, "an input sends only intents and edges"),
    (SendsUnlisted, "not among what the key test lists"),
    (KeepsItsPin, "did not free GPIO26"),
    (OpensAnotherPin, "which it does not claim"),
    (RaisesOnABusyPin, "made opening raise"),
    (SaysNothingOfABusyPin, "left no line in the log"),
    (HoldsAThread, "idle"),
    (CrashesOnClose, "closing with its lines gone raised"),
], ids=lambda value: value.__name__ if isinstance(value, type) else "")
def test_check_input_catches_an_input_that_breaks_a_promise(kind: type[Broken], says: str) -> None:
    with pytest.raises(AssertionError, match=says):
        check_input(partial(kind, ShakeSettings(26)), idle=0.3)


def test_the_unbroken_input_passes() -> None:
    check_input(partial(Broken, ShakeSettings(26)), idle=0.05)
