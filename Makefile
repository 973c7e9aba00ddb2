# Every target sets itself up: a fresh clone with python3 (3.11+), make and git is enough.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test lint demo run soak bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check differ tests bench
	$(BIN)/ruff format --check differ tests bench
	$(BIN)/mypy

test: lint
	$(BIN)/pytest

demo: $(STAMP)
	$(BIN)/differ demo

run: $(STAMP)
	$(BIN)/differ --config config.toml run

soak: $(STAMP)
	$(BIN)/python -m bench.soak

bench: $(STAMP)
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
