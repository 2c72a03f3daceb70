"""What a press means, whatever produced it (a GPIO button, the encoder, a key, a test).

>>> Intent("digit", 4)
Intent(kind='digit', value=4)
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Meaning-level events, as EdgeTX turns raw keys into them.
KINDS = frozenset({"up", "down", "left", "right", "select", "back", "context", "roll",
                   "undo", "redo", "digit"})


@dataclass(frozen=True)
class Intent:
    """One meaningful press; ``value`` carries a digit's number. ``source`` names the input
    that sent it when that is not a key (``encoder``), for the key test; equal intents from
    different sources mean the same."""

    kind: str
    value: int = 0
    source: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown intent {self.kind!r}")
