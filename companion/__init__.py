"""companion: a Raspberry Pi box that keeps a board game's dice, state and rules."""

__version__ = "0.1.0"
