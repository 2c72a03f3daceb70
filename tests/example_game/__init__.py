"""The example game of docs/adding-a-game.md: Pig, a folk dice game, in its own modules.

It is registered with the same one line a game of the box has in ``companion/games``, here
for the tests of this folder only (see ``conftest.py``), so the box's own menus and the
other tests never see it.
"""

from __future__ import annotations

from companion.games import Kit

#: Pig's one registration line's kit: where its rules and its screens live.
KIT = Kit("pig", "tests.example_game.rules:Pig", events="tests.example_game.rules:events",
          screens="tests.example_game.screens:SCREENS")
