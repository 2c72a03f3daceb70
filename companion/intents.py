"""What a press means, whatever produced it (a GPIO button, the encoder, a key, a test).

>>> Intent("digit", 4)
Intent(kind='digit', value=4)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

#: What a key may mean: each key of the build has one of these roles, and its short press is
#: that intent (a long press may mean another: :mod:`companion.io.keylogic`).
Role = Literal["up", "down", "left", "right", "select", "back", "context", "roll"]
#: Meaning-level events, as EdgeTX turns raw keys into them: the keys' roles, and what only
#: the encoder, a keyboard or a console sends.
Kind = Literal[Role, "undo", "redo", "digit"]
KINDS: frozenset[Kind] = frozenset(get_args(Kind))
ROLES: tuple[Role, ...] = get_args(Role)
#: The joystick's four ways (a cursor's moves on a board or a list).
Arrow = Literal["up", "down", "left", "right"]
ARROWS: tuple[Arrow, ...] = get_args(Arrow)


@dataclass(frozen=True)
class Intent:
    """One meaningful press; ``value`` carries a digit's number. ``source`` names the input
    that sent it when that is not a key (``encoder``), for the key test; equal intents from
    different sources mean the same."""

    kind: Kind
    value: int = 0
    source: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown intent {self.kind!r}")
