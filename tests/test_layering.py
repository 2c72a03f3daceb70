"""The layering docs/development.md states, read from the imports themselves.

Every ``import`` of a companion module anywhere in a file counts, at the top or inside a
function. ``KNOWN`` lists the imports that break a rule today, each with why: it may only
shrink. A new import that breaks a rule fails here; so does a listed one that is gone
(remove it from the list).
"""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys
from functools import cache

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "companion"

SCREENS = "companion.ui"
DEVICES = "companion.io"
ENGINES = "companion.games"
#: Every error the companion raises on purpose (every layer may import it).
ERRORS = "companion.exc"
#: Wiring: the modules that may import screens and devices both.
WIRING = {
    "companion.runner": "wires devices, the app and the loop for `companion run`",
    "companion.cli": "the command line: runs the runner and the other commands",
    "companion.daemon": "the loop: takes the app and the devices it is handed",
    "companion.bench": "`companion bench`: wires the real loop to counting panels",
}

#: (importer, imported): imports that break a rule today, and why they are still there.
KNOWN: dict[tuple[str, str], str] = {}
#: Screens that write a file themselves (the wiring should, when a screen asks).
KNOWN_WRITERS: dict[str, str] = {}
#: Screens that reach through the session into the store, and how many times.
KNOWN_REACHES: dict[str, int] = {}


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, pathlib.Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


@cache
def imports(name: str) -> frozenset[str]:
    """The companion modules ``name`` imports (``from a import b`` counts ``a.b`` when that
    is a module; relative imports are resolved)."""
    path = modules()[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            origin = ".".join([*base, node.module] if node.module else base)
            found.add(origin)
            found.update(f"{origin}.{alias.name}" for alias in node.names
                         if f"{origin}.{alias.name}" in modules())
    return frozenset(m for m in found if m == "companion" or m.startswith("companion."))


def under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def reachable(name: str) -> set[str]:
    """Every companion module that importing ``name`` may load (through any import)."""
    seen, todo = set(), [name]
    while todo:
        for imported in imports(todo.pop()):
            if imported not in seen and imported in modules():
                seen.add(imported)
                todo.append(imported)
    return seen


def breaking(rule: str) -> set[tuple[str, str]]:
    """The imports that break ``rule``."""
    out = set()
    for importer in modules():
        for imported in imports(importer):
            if RULES[rule](importer, imported):
                out.add((importer, imported))
    return out


def engine_imports_more_than_base(importer: str, imported: str) -> bool:
    # The registry (games/__init__.py) gathers the engines; the engines themselves are pure,
    # and may use the pure modules beside them (``frozen``); a game's words (``*_events``)
    # import its engine, never the other way.
    engine = under(importer, ENGINES) and importer not in (ENGINES, f"{ENGINES}.base")
    return engine and imported != f"{ENGINES}.base" and not (
        under(imported, ENGINES) and imported != ENGINES)


def base_imports_more_than_the_errors(importer: str, imported: str) -> bool:
    # The engines' one shared module hands on the rules' errors from the error module.
    return importer == f"{ENGINES}.base" and imported != ERRORS


def errors_import_the_companion(importer: str, imported: str) -> bool:
    return importer == ERRORS


def screen_imports_device(importer: str, imported: str) -> bool:
    return under(importer, SCREENS) and under(imported, DEVICES)


def device_imports_screen(importer: str, imported: str) -> bool:
    return under(importer, DEVICES) and under(imported, SCREENS)


def unwired_module_imports_both(importer: str, imported: str) -> bool:
    if importer in WIRING or under(importer, SCREENS) or under(importer, DEVICES):
        return False  # screens and devices have rules of their own
    both = [any(under(m, side) for m in imports(importer)) for side in (SCREENS, DEVICES)]
    return all(both) and (under(imported, SCREENS) or under(imported, DEVICES))


RULES = {
    "rules engines import nothing of the companion but games/base.py": engine_imports_more_than_base,
    "games/base.py imports nothing of the companion but the error module": base_imports_more_than_the_errors,
    "the error module imports nothing of the companion": errors_import_the_companion,
    "screens never import devices": screen_imports_device,
    "devices never import screens": device_imports_screen,
    "only the wiring imports screens and devices both": unwired_module_imports_both,
}


@pytest.mark.parametrize("rule", RULES)
def test_no_import_breaks_the_rule_beyond_the_known_ones(rule: str) -> None:
    assert breaking(rule) <= set(KNOWN), rule


def test_every_known_exception_is_still_there() -> None:
    broken = set().union(*(breaking(rule) for rule in RULES))
    assert set(KNOWN) <= broken, "fixed: remove it from KNOWN"


def imported_names(name: str) -> set[str]:
    """``module.name`` for every ``from module import name`` in ``name``'s file."""
    tree = ast.parse(modules()[name].read_text(encoding="utf-8"))
    return {f"{node.module}.{alias.name}" for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module for alias in node.names}


def test_screens_write_no_files() -> None:
    """A screen asks for a change; the wiring writes it (config writers are ``save_*``)."""
    writers = {name for name in modules() if under(name, SCREENS)
               and any(n.startswith("companion.config.save") for n in imported_names(name))}
    assert writers == set(KNOWN_WRITERS)


def reaches_into_the_store(name: str) -> int:
    """How often ``name`` reads ``<...>session.store``: asking the store behind the session."""
    tree = ast.parse(modules()[name].read_text(encoding="utf-8"))
    return sum(1 for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "store"
               and ((isinstance(node.value, ast.Name) and node.value.id == "session")
                    or (isinstance(node.value, ast.Attribute) and node.value.attr == "session")))


def test_screens_and_the_console_ask_the_session_not_its_store() -> None:
    reaching = {name: reaches_into_the_store(name) for name in modules()
                if under(name, SCREENS) or name == "companion.console"}
    assert {name: count for name, count in reaching.items() if count} == KNOWN_REACHES


def test_only_the_store_runs_sql_on_its_connection() -> None:
    """Every module asks the store for what it needs (a method of :class:`Store`); none
    reaches for its connection (``store.db``). A module's own connection (``self.db``, a
    copy's, a file being salvaged) is its own business."""
    reaching = {name for name, path in modules().items() if name != "companion.store" and any(
        isinstance(node, ast.Attribute) and node.attr == "db"
        and not (isinstance(node.value, ast.Name) and node.value.id == "self")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))))}
    assert reaching == set()


@pytest.mark.parametrize("name", ["companion.session", "companion.store", "companion.record",
                                  "companion.console", "companion.salvage"])
def test_the_game_record_and_the_console_load_no_screen_and_no_device(name: str) -> None:
    loaded = reachable(name)
    assert not {m for m in loaded if under(m, SCREENS) or under(m, DEVICES)}, name


def test_the_serial_protocol_loads_no_pixels() -> None:
    """console.py answers text lines: importing it loads neither PIL nor luma nor gpiozero."""
    probe = ("import sys, companion.console\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PIL', 'luma', 'gpiozero')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          cwd=ROOT, timeout=60)
    assert done.stdout.strip() == "[]"


def test_the_reader_sees_every_kind_of_import() -> None:
    # The parser itself: a top-level, a relative and an in-function import are all found.
    assert "companion.games.base" in imports("companion.games.leaf_climbers")
    assert "companion.io.pages" in imports("companion.io.display")  # imported inside a function
    assert "companion.cli" in imports("companion.__main__")


def cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """Every import cycle of ``graph`` (module -> the modules it imports), each as the path
    that closes it (``[a, b, a]``): one for each module reached again while its own imports
    are still being followed (a depth-first walk)."""
    found: list[list[str]] = []
    done: set[str] = set()
    path: list[str] = []

    def walk(name: str) -> None:
        path.append(name)
        for imported in sorted(graph.get(name, ())):
            if imported in path:
                found.append(path[path.index(imported):] + [imported])
            elif imported not in done:
                walk(imported)
        path.pop()
        done.add(name)

    for name in sorted(graph):
        if name not in done:
            walk(name)
    return found


def test_no_module_of_the_companion_imports_itself_through_others() -> None:
    """Arrows one way: no import cycle, counting every import anywhere in a file (at the top,
    inside a function, under ``TYPE_CHECKING``). A part that needs another lazily is named
    by the one that wires them (a game's kit names its engine, words and screens)."""
    graph = {name: frozenset(m for m in imports(name) if m in modules() and m != name)
             for name in modules()}
    assert cycles(graph) == []


def test_the_cycle_finder_finds_cycles() -> None:
    # A cycle through a lazy import (``b`` imports ``a`` inside a function) is one too.
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a", "d"}),
             "d": frozenset()}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"x": frozenset({"y"}), "y": frozenset({"x"})}) == [["x", "y", "x"]]
    assert cycles({"a": frozenset({"b"}), "b": frozenset()}) == []
    assert "companion.games.base" in imports("companion.games.leaf_climbers_events")


#: Names that several modules define, each meaning the same thing: the two registries'
#: ``register`` (of games and of inputs).
SAME_MEANING = {"register"}


def defined(name: str) -> set[str]:
    """The functions and classes a module defines at its top level."""
    tree = ast.parse(modules()[name].read_text(encoding="utf-8"))
    return {node.name for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def one_of_a_game(name: str) -> bool:
    """A game's own module (its rules, its words, its screens, its advisor): each game names
    its state, its endings and its errors alike, as the kits' convention asks."""
    return name.rpartition(".")[0] in (ENGINES, f"{SCREENS}.games", "companion.ai") and name not in (
        f"{ENGINES}.base", f"{ENGINES}.frozen")


def test_one_name_means_one_thing() -> None:
    """A name two modules define means two things to whoever imports one of them, unless
    only one of the two is ever imported by that name (the other is private to its module)."""
    sources = [*PACKAGE.rglob("*.py"), *(ROOT / "tests").rglob("*.py")]
    taken: dict[str, set[str]] = {}  # a name -> the modules it is imported from by name
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in modules():
                for alias in node.names:
                    taken.setdefault(alias.name, set()).add(node.module)
    by_name: dict[str, set[str]] = {}
    for module in modules():
        for name in defined(module):
            by_name.setdefault(name, set()).add(module)
    ambiguous = {name: sorted(where) for name, where in by_name.items()
                 if len(where & taken.get(name, set())) > 1 and name not in SAME_MEANING
                 and not all(one_of_a_game(module) for module in where)}
    assert ambiguous == {}


def test_test_modules_share_helpers_through_helper_modules_not_each_other() -> None:
    """Helpers several tests need live in tests/harness.py, tests/playout.py and the like;
    a test module imported by another would run its tests twice and tie the two together."""
    tests = ROOT / "tests"
    found = set()
    for path in tests.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found.update((path.name, name) for name in named
                         if name.rpartition(".")[2].startswith("test_"))
    assert found == set()


def test_nothing_sets_gpiozeros_global_pin_factory() -> None:
    """Devices are handed their pin factory; ``Device.pin_factory = ...`` would change it for
    every gpiozero device in the process."""
    setting = set()
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else []
            setting.update(name for target in targets
                           if isinstance(target, ast.Attribute) and target.attr == "pin_factory")
    assert setting == set()
