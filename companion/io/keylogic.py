"""The key logic: edges from every input's keys become intents, on the main loop's thread.

Debouncing (a level must hold for ``debounce`` seconds to count: ours, so tests can prove
it; lgpio's own bounce time may sit on top) and the long press (held ``long_press`` seconds:
the context menu, and the release then does nothing, as on EdgeTX radios). It applies to
every key alike, whichever input it belongs to: the build's keys, the encoder's push, a
foot switch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.intents import Intent, Kind, Role
from companion.io.base import Edge

#: What a long press of a role means; such a role's short press acts on its release.
HOLDS: dict[Role, Kind] = {"select": "context"}
#: A box whose select key cannot be opened still plays: a long press of the first of these
#: keys it has acts as select (its short press keeps its own meaning), and where there is
#: no context key either, a long press of the first other key opens the context menu.
SELECT_STAND_INS: tuple[Role, ...] = ("right", "down", "roll", "up", "left", "back", "context")
CONTEXT_STAND_INS: tuple[Role, ...] = ("left", "up", "back", "roll", "down", "right")


@dataclass
class _Key:
    raw: bool = False
    stable: bool = False
    changed: float = 0.0
    down_since: float | None = None
    held: bool = False


@dataclass
class KeyLogic:
    """Debounce and long press, driven by edges and the clock; no threads, no sleeping.

    >>> keys = KeyLogic(debounce=0.02, long_press=0.6)
    >>> keys.feed(Edge("up", True, 0.0)); keys.due(0.01)
    []
    >>> keys.due(0.03)
    [Intent(kind='up', value=0)]
    """

    debounce: float = 0.02
    long_press: float = 0.6
    keys: dict[Role, _Key] = field(default_factory=dict)
    holds: dict[Role, Kind] = field(default_factory=lambda: dict(HOLDS))

    def feed(self, edge: Edge) -> None:
        """A raw edge; it counts only once it has held for the debounce time."""
        key = self.keys.setdefault(edge.role, _Key())
        if edge.pressed != key.raw:
            key.raw = edge.pressed
            key.changed = edge.at

    def deadline(self) -> float | None:
        """When :meth:`due` next has something to do (``None``: nothing pending)."""
        times = [k.changed + self.debounce for k in self.keys.values() if k.raw != k.stable]
        times += [k.down_since + self.long_press for role, k in self.keys.items()
                  if role in self.holds and k.down_since is not None and not k.held]
        return min(times) if times else None

    def due(self, now: float) -> list[Intent]:
        """The intents that became true by ``now``."""
        out: list[Intent] = []
        for role, key in self.keys.items():
            if key.raw != key.stable and now >= key.changed + self.debounce:
                key.stable = key.raw
                out += self._settled(role, key, key.changed + self.debounce)
            if (role in self.holds and key.down_since is not None and not key.held
                    and now >= key.down_since + self.long_press):
                key.held = True
                out.append(Intent(self.holds[role]))
        return out

    def _settled(self, role: Role, key: _Key, at: float) -> list[Intent]:
        if role not in self.holds:
            return [Intent(role)] if key.stable else []
        if key.stable:
            key.down_since, key.held = at, False
            return []
        held, key.down_since, key.held = key.held, None, False
        return [] if held else [Intent(role)]


def stand_ins(roles: set[Role]) -> dict[Role, Kind]:
    """What a long press of each key means, given the roles that still have a key.

    >>> stand_ins({"up", "down", "select"})
    {'select': 'context'}
    >>> stand_ins({"up", "down"})  # the minimal build without its select key
    {'down': 'select', 'up': 'context'}
    """
    if "select" in roles:
        return dict(HOLDS)
    holds: dict[Role, Kind] = {}
    select = next((role for role in SELECT_STAND_INS if role in roles), None)
    if select is None:
        return holds
    holds[select] = "select"
    if "context" not in roles:
        context = next((r for r in CONTEXT_STAND_INS if r in roles and r != select), None)
        if context is not None:
            holds[context] = "context"
    return holds


def hold_hint(holds: dict[Role, Kind]) -> str:
    """How to play without a select key, in words (``""`` when select works)."""
    if "select" in holds:
        return ""
    words = [f"hold {role} = {meaning}" for role, meaning in holds.items()]
    return "; ".join(words) if words else "no key left to select with"
