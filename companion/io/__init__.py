"""Devices: the inputs, the display, the serial ports, the keyboard emulator. They know no game.

The inputs are kits, as the games are (:mod:`companion.games`): one :class:`InputKit` per
input, one line each, naming its table in the configuration file and where its
:class:`~companion.io.base.Input` class lives, imported the first time it is needed. The
configuration, ``companion run``, its pin check, ``companion doctor`` and the key test all
go through this registry; none of them names an input.

>>> INPUTS["shake"].input.__name__
'ShakeSwitch'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from companion.games import WHERE, import_part
from companion.io.base import Input

#: A table of the configuration file: a lower-case word.
TABLE = re.compile(r"[a-z][a-z_]*")


@dataclass(frozen=True)
class InputKit:
    """One input: its configuration table and where its class lives (``module:Class``)."""

    table: str
    where: str

    def __post_init__(self) -> None:
        if not TABLE.fullmatch(self.table):
            raise ValueError(f"{self.table!r} is not a table name: a lower-case word")
        if not WHERE.fullmatch(self.where):
            raise ValueError(f"{self.where!r} must be written 'package.module:Class'")

    @property
    def input(self) -> type[Input[Any]]:
        """The input's class, imported on first use."""
        found = import_part(self.where)
        if not (isinstance(found, type) and issubclass(found, Input)) or found.table != self.table:
            raise TypeError(f"{self.where} is not the input of [{self.table}]")
        return found


#: Every input the box knows, by table, in the order they are opened and listed.
INPUTS: dict[str, InputKit] = {}


def register(kit: InputKit) -> InputKit:
    """Add an input: its table is read, its pins checked and its device opened from now on.

    >>> register(INPUTS["shake"])
    Traceback (most recent call last):
    ...
    ValueError: [shake] is registered already
    """
    if kit.table in INPUTS:
        raise ValueError(f"[{kit.table}] is registered already")
    INPUTS[kit.table] = kit
    return kit


# The inputs: one line each, and nothing else to touch but the input's own module.
register(InputKit("buttons", "companion.io.buttons:Keys"))
register(InputKit("encoder", "companion.io.encoder:Encoder"))
register(InputKit("shake", "companion.io.shake:ShakeSwitch"))
