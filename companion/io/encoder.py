"""A rotary encoder with an optional push switch (``[encoder]``, gpiozero's ``RotaryEncoder``).

A detent clockwise is ``down``, anticlockwise ``up`` (intents marked with this input's
name, so the key test can tell them from keys); the push is a second select key, reporting
edges as the build's own select does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from companion.intents import Intent
from companion.io.base import Claim, Input, Table

#: What the encoder's turns name as their source (the key test lists it).
SOURCE = "encoder"


@dataclass(frozen=True)
class EncoderSettings:
    a: int
    b: int
    push: int | None = None


class Encoder(Input[EncoderSettings]):
    """The encoder's two contacts (and its push): the turns can be lost as one, the push
    apart."""

    table = "encoder"
    example: ClassVar[Mapping[str, object]] = {"a": 5, "b": 6, "push": 13}

    @classmethod
    def read(cls, table: Table) -> EncoderSettings | None:
        a, b, push = table.pin("a"), table.pin("b"), table.pin("push")
        if a is None or b is None:
            if (a, b, push) != (None, None, None):
                raise table.fail("a", "an encoder needs both a and b pins")
            return None
        return EncoderSettings(a, b, push)

    @classmethod
    def claims(cls, settings: EncoderSettings) -> list[Claim]:
        pins = [Claim(settings.a, "encoder A", "encoder.a"), Claim(settings.b, "encoder B", "encoder.b")]
        if settings.push is not None:
            pins.append(Claim(settings.push, "encoder push", "encoder.push", role="select"))
        return pins

    @classmethod
    def sources(cls, settings: EncoderSettings) -> list[str]:
        return [SOURCE]

    def open(self) -> None:
        from gpiozero import RotaryEncoder

        a, b, push = self.settings.a, self.settings.b, self.settings.push
        encoder = self.device(lambda: RotaryEncoder(a, b, pin_factory=self.factory), a, SOURCE,
                              detail=f"GPIO{a}/GPIO{b}")
        if encoder is not None:
            encoder.when_rotated_clockwise = lambda: self.emit(Intent("down", source=SOURCE))
            encoder.when_rotated_counter_clockwise = lambda: self.emit(Intent("up", source=SOURCE))
        if push is not None:
            self.key(push, "select", "encoder push", f"encoder push GPIO{push}")
