# Two commands do all the set-up on a fresh clone:
#   make emulator   start the companion in this terminal (no Pi needed)
#   make test       run the whole test suite
PYTHON ?= python3
VENV ?= .venv
STAMP := $(VENV)/.installed

.PHONY: emulator test window screenshots pi-check clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test,emulator]'
	touch $(STAMP)

# No --state: the games go where `companion games` and `companion export` look by default.
emulator: $(STAMP)
	$(VENV)/bin/companion run --emulator terminal

window: $(STAMP)
	$(VENV)/bin/companion run --emulator pygame

# Lint and types first (seconds), then every test on every core (two workers a core, see
# tests/conftest.py; a worker that runs out of tests takes some from the others). Python keeps
# its compiled modules, as it does by default: every worker and every `companion` process the
# tests start would otherwise compile the same sources again.
test: $(STAMP)
	$(VENV)/bin/ruff check companion tests
	$(VENV)/bin/mypy
	PYTHONDONTWRITEBYTECODE= $(VENV)/bin/python -m pytest -n auto --dist worksteal

screenshots: $(STAMP)
	COMPANION=$(VENV)/bin/companion docs/screenshots.sh

# systemd/install.sh run for real in an arm64 Debian Bookworm root under qemu-user, then
# checked there (hardware/pi-check says how). Needs root, the network and a few minutes, so it
# is not part of `make test`. The root is cached in /var/cache/companion-pi-check.
pi-check:
	hardware/pi-check

clean:
	rm -rf $(VENV) .state captures .pytest_cache .hypothesis
