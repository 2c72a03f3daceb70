"""The example input of docs/adding-an-input.md: a foot switch, in a module of its own.

It is registered with the same one line an input of the box has in ``companion/io``, here
for the tests of this folder only (see ``conftest.py``), so the box's own configuration and
the other tests never see it.
"""

from __future__ import annotations

from companion.io import InputKit

#: The foot switch's one registration line's kit: its table, and where its class lives.
KIT = InputKit("foot", "tests.example_input.foot:FootSwitch")
