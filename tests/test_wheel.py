"""The package works installed, away from its source tree: a wheel built from what a clone
holds, installed with pip into a folder of its own, and run from elsewhere. ``companion
bench`` reads its session's records and the reference engine it compares replay with from
the installed package; so does the whole of ``companion bench --quick`` (about a minute:
run by hand, docs/startup.md), of which this runs replay against the reference.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: What a clone holds that the build reads.
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "companion")
#: Run by the installed copy: where it was loaded from, and replay against the reference
#: engine through the benchmark's own code, on a short race.
PROBE = """
import json, pathlib, sys
import companion, companion.bench as bench
work = pathlib.Path(sys.argv[1])
header, lines = bench.long_race(200)
record = bench.write_record(work / "race.record", header, lines)
run = bench.report_replay(record, len(lines))
print(json.dumps({"package": companion.__file__, "records": len(bench.session_records()),
                  "reference": str(bench.bench_data() / bench.REFERENCE), "cpu": run.cpu}))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """The package built as a wheel from a copy of the sources and installed into a folder."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in SOURCES:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy2
        copy(ROOT / name, source / name)
    for cached in source.rglob("__pycache__"):
        shutil.rmtree(cached)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-index", "--no-build-isolation", "--wheel-dir",
                    str(work / "dist"), str(source)], check=True, timeout=300, cwd=work)
    [wheel] = (work / "dist").glob("companion-*.whl")
    site = work / "site"
    subprocess.run([*pip, "install", "--no-deps", "--no-index", "--target", str(site), str(wheel)],
                   check=True, timeout=300, cwd=work)
    return site


def test_the_installed_package_benches_replay_against_its_own_reference(
        installed: pathlib.Path, tmp_path: pathlib.Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # The installed copy first on the path (the dependencies are this interpreter's).
    env = {**os.environ, "PYTHONPATH": str(installed)}
    done = subprocess.run([sys.executable, "-c", PROBE, str(elsewhere)], capture_output=True, text=True,
                          cwd=elsewhere, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    *printed, last = done.stdout.splitlines()
    found = json.loads(last)
    assert pathlib.Path(found["package"]).is_relative_to(installed)
    assert pathlib.Path(found["reference"]).is_relative_to(installed)
    assert found["records"] == len(list((ROOT / "companion" / "benchdata").glob("*.record")))
    assert any("the plain reference engine (benchdata/reference_replay.py)" in line for line in printed)


def test_the_wheel_holds_every_file_the_package_reads(installed: pathlib.Path) -> None:
    """Every file of the source package that is not Python is in the installed one: the
    fonts, the phone page, the benchmark's records and its reference engine."""
    package = ROOT / "companion"
    wanted = {path.relative_to(package) for path in package.rglob("*")
              if path.is_file() and "__pycache__" not in path.parts}
    got = {path.relative_to(installed / "companion") for path in (installed / "companion").rglob("*")
           if path.is_file() and "__pycache__" not in path.parts}
    assert wanted - got == set()
