"""Shared fixtures: every test runs on gpiozero's mock pins, never real hardware."""

from __future__ import annotations

import os

os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
