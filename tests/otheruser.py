"""Another user running ``companion``: the service's group reading its games, someone outside
it, a service user meeting files root left behind. Needs root (to become that user) and
setpriv; the tests that use it skip, saying why, without them.

The clone may sit in a private directory (a 0700 home, ``mktemp -d``) that the other user
cannot reach, so that user runs a copy of the code and of the packages it loads, by the
Python this venv was made from (the venv's own ``bin/python`` is inside the clone).
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import Distribution, distribution

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = pathlib.Path(__file__).parent.parent
OTHER_USER = ["--reuid=65534", "--regid=65534"]  # nobody


def runtime_distributions() -> list[Distribution]:
    """What the installed companion needs to run: its requirements without extras, and theirs."""
    found: dict[str, Distribution] = {}
    todo = [distribution("companion")]
    while todo:
        dist = todo.pop()
        for line in dist.requires or []:
            wanted = Requirement(line)
            if wanted.marker and not wanted.marker.evaluate({"extra": ""}):
                continue
            name = canonicalize_name(wanted.name)
            if name not in found:
                found[name] = distribution(name)
                todo.append(found[name])
    return list(found.values())


#: Runs each `companion ARGS` (a JSON list of them) in this process, then writes down the file
#: of every module they loaded (not those the interpreter had loaded before, as .pth files do).
LOADS = """import json, os, runpy, sys
before = set(sys.modules)
for args in json.loads(sys.argv[1]):
    sys.argv = ["companion", *args]
    try:
        runpy.run_module("companion", run_name="__main__", alter_sys=True)
    except SystemExit:
        pass
files = (getattr(sys.modules[name], "__file__", None) for name in set(sys.modules) - before)
with open(os.environ["LOADS_TO"], "w") as out:
    out.write("\\n".join(os.path.realpath(file) for file in files if file))
"""


def copy_for_others(top: pathlib.Path, *commands: list[str]) -> None:
    """The clone's code and the installed packages that COMMANDS load, copied where anybody
    may read them: the clone itself may sit in a private directory (a 0700 home, `mktemp -d`)."""
    shutil.copytree(ROOT / "companion", top / "companion")
    listing = top / "loads.txt"
    subprocess.run([sys.executable, "-c", LOADS, json.dumps(commands)], capture_output=True,
                   env={**os.environ, "LOADS_TO": str(listing)}, timeout=60, check=True)
    loaded = set(listing.read_text().splitlines())
    for dist in runtime_distributions():
        files = [(file, pathlib.Path(str(dist.locate_file(file)))) for file in dist.files or []]
        if not any(os.path.realpath(source) in loaded for _, source in files):
            continue
        for file, source in files:  # all of it: a package's shared libraries are no modules
            if ".." not in file.parts and source.is_file():  # not the scripts in the venv's bin/
                (top / file).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, top / file)  # with its time: the compiled modules stay valid
    for path in [top, *top.rglob("*")]:  # whatever the umask of whoever cloned
        path.chmod(0o755 if path.is_dir() else 0o644)


def as_other_user(python: str, groups: tuple[int, ...], *args: str, top: pathlib.Path,
                  cwd: str = "/tmp") -> subprocess.CompletedProcess[str]:
    setpriv = shutil.which("setpriv") or "setpriv"
    extra = [f"--groups={','.join(map(str, groups))}"] if groups else ["--clear-groups"]
    env = {**os.environ, "PYTHONPATH": str(top), "GPIOZERO_PIN_FACTORY": "mock",
           "HOME": cwd, "XDG_STATE_HOME": cwd}
    return subprocess.run([setpriv, *OTHER_USER, *extra, python, *args], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=60, check=False)


@contextmanager
def companion_for_others() -> Iterator[Callable[..., subprocess.CompletedProcess[str]]]:
    """`companion ARGS` as another user (in GROUPS, or none): a function that runs it."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to act as another user")
    top = pathlib.Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        python = os.path.realpath(sys._base_executable)
        probe = as_other_user(python, (), "-c", "import sqlite3", top=top)
        if probe.returncode != 0:  # a Python built into a private home, such as pyenv's in /root
            pytest.skip(f"another user cannot run {python}: "
                        f"{(probe.stderr.strip().splitlines() or ['no message'])[-1]}")
        empty = top / "no-games-here"
        empty.mkdir()
        copy_for_others(top, ["games", "--state", str(empty)], ["export", "--state", str(empty)],
                        ["run", "--emulator", "none", "--keys", "", "--state", str(empty / "run")],
                        ["doctor", "--state", str(empty)])

        def run(groups: tuple[int, ...], *args: str) -> subprocess.CompletedProcess[str]:
            return as_other_user(python, groups, "-m", "companion", *args, top=top)

        yield run
    finally:
        shutil.rmtree(top)
