"""The daemon's start path loads only what the chosen mode needs."""

from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys

PROBE = """
import json, sys
from companion.cli import main
main(sys.argv[1:])
heavy = [m for m in sys.modules if m.split('.')[0] in ('pygame', 'luma', 'waitress', 'segno') or
         m.startswith('companion.web') or
         (m.startswith('companion.games.') and m not in ('companion.games.base', 'companion.games.frozen'))
         or m in ('companion.bench', 'companion.ui.driver', 'hypothesis')]
print(json.dumps(sorted(heavy)))
"""


def loaded(*args: str) -> list[str]:
    run = subprocess.run([sys.executable, "-c", PROBE, "run", "--emulator", "none", *args],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return list(json.loads(run.stdout.strip().splitlines()[-1]))


def test_a_fresh_start_loads_no_game_no_pygame_no_luma_and_no_phone_view(tmp_path: pathlib.Path) -> None:
    assert loaded("--state", str(tmp_path), "--keys", "") == []


def test_resuming_loads_only_the_game_being_played(tmp_path: pathlib.Path) -> None:
    loaded("--state", str(tmp_path), "--keys", "select select select select select")
    assert loaded("--state", str(tmp_path), "--keys", "") == ["companion.games.microbot_racers"]


# --- imports inside functions: each one keeps something off a start path ---

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: Imports itself and reports, for each module given, which of the modules (or lazily made
#: names, ``module:name``) it imports inside its functions are loaded already once the module
#: is: one forked child a module, so that each starts from a bare interpreter.
DEFERS = """
import importlib, json, os, sys
found = {}
for name, inner in json.loads(sys.argv[1]).items():
    read, write = os.pipe()
    if os.fork() == 0:
        importlib.import_module(name)
        loaded = [m for m in inner if m.partition(":")[0] in sys.modules and (
            ":" not in m or m.partition(":")[2] in vars(sys.modules[m.partition(":")[0]]))]
        os.write(write, json.dumps(loaded).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        found[name] = json.loads(pipe.read() or '"crashed"')
    os.wait()
print(json.dumps(found))
"""


def inner_imports() -> dict[str, list[str]]:
    """Per module of the companion: what its functions import, as ``module`` for a whole
    module and ``module:name`` for a name that is not a module of its own."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "companion").rglob("*.py")):
        if "benchdata" in path.parts:
            continue
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        inner: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Import):
                        inner.update(alias.name for alias in sub.names)
                    elif isinstance(sub, ast.ImportFrom) and sub.module:
                        inner.add(sub.module)
                        inner.update(f"{sub.module}:{alias.name}" for alias in sub.names)
        if inner:
            found[name] = sorted(inner)
    return found


def test_every_import_inside_a_function_keeps_something_off_a_start_path() -> None:
    """An import inside a function is a start-up trick (docs/startup.md): it must put off
    loading something that importing its module does not load anyway. Otherwise it belongs
    at the top of the module, where a reader looks for what a module needs."""
    inner = inner_imports()
    done = subprocess.run([sys.executable, "-c", DEFERS, json.dumps(inner)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    # ``from m import name`` defers something when either m or its name (a submodule, or a
    # class made on first use such as exc.Unreadable) is not there yet.
    wasted = {}
    for module, names in inner.items():
        whole = {m for m in names if ":" not in m}
        for m in whole:
            parts = [n for n in names if n.startswith(m + ":")]
            if m in loaded[module] and (not parts or all(p in loaded[module] or f"{m}.{p.partition(':')[2]}"
                                                         in loaded[module] for p in parts)):
                wasted.setdefault(module, []).append(m)
    assert wasted == {}
