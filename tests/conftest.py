"""Shared fixtures: every test runs on gpiozero's mock pins, never real hardware."""

from __future__ import annotations

import os
import pathlib
from collections.abc import Iterator

import pytest

from companion.store import Store

os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")


@pytest.fixture
def path(tmp_path: pathlib.Path) -> str:
    """Where a test's store file goes."""
    return str(tmp_path / "companion.db")


@pytest.fixture
def store(path: str) -> Iterator[Store]:
    """A store on disk, closed after the test."""
    opened = Store(path)
    yield opened
    opened.close()
