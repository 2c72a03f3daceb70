"""Every test in this folder runs with the example input registered, as an input of the box is."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from companion.io import INPUTS, register
from tests.example_input import KIT


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    register(KIT)  # the one line an input of the box has in companion/io/__init__.py
    yield
    del INPUTS[KIT.table]
