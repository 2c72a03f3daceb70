"""Every test in this folder runs with the example game registered, as a game of the box is."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from companion.games import KITS, register
from tests.example_game import KIT


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    register(KIT)  # the one line a game of the box has in companion/games/__init__.py
    yield
    del KITS[KIT.id]
