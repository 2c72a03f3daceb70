"""Short records for one game's rule tests: build, replay, and check a refusal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from companion.games import GAMES
from companion.games.base import Line
from companion.record import replay_text, summary


@dataclass(frozen=True)
class Records:
    """Helpers bound to one game ID."""

    game_id: str

    def record(self, *lines: str, players: str = "Ann Bob", options: tuple[str, ...] = ()) -> str:
        """A record's text: the header, then the action lines."""
        head = [f"game {self.game_id}", f"players {players}", *(f"option {o}" for o in options)]
        return "\n".join([*head, *lines]) + "\n"

    def replay(self, *lines: str, **header: Any) -> dict[str, Any]:
        """The summary the record replays to."""
        return summary(replay_text(self.record(*lines, **header)))

    def state_after(self, *lines: str, **header: Any) -> Any:
        """The state the record replays to."""
        return replay_text(self.record(*lines, **header)).state

    def refused(self, error: type[Exception], *lines: str, **header: Any) -> None:
        """The record's last line is refused with ``error``."""
        *before, last = lines
        state = self.state_after(*before, **header)
        with pytest.raises(error):
            GAMES[self.game_id].apply(state, Line.parse(last))
