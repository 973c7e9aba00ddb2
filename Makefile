# Every target sets itself up: a fresh clone with python3 (3.11+), make and git is enough.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test lint fuzz demo run soak bench clean

# The modules that write a page's Markdown (setup.py's list) run compiled to C by mypyc (README, Dependencies),
# rebuilt whenever they change; `make DIFFER_COMPILE=0 …` runs them as plain Python instead.
DIFFER_COMPILE ?= 1
COMPILED := differ/normalize/html.py differ/normalize/marks.py differ/normalize/mdescape.py \
	differ/normalize/root.py differ/normalize/tree.py differ/normalize/writer.py
BUILT := differ/normalize/*.so differ_compiled__mypyc*.so
COMPILED_STAMP := $(VENV)/.compiled-$(DIFFER_COMPILE)

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip 'setuptools>=77'
	DIFFER_COMPILE= $(BIN)/python -m pip install --quiet --quiet -e '.[test]'
	touch $(STAMP)

$(COMPILED_STAMP): $(STAMP) $(COMPILED) setup.py
	rm -f $(VENV)/.compiled-* $(BUILT)
ifeq ($(DIFFER_COMPILE),1)
	DIFFER_COMPILE=1 $(BIN)/python -m pip install --quiet --quiet --no-build-isolation --no-deps -e .
endif
	touch $(COMPILED_STAMP)

lint: $(STAMP)
	$(BIN)/ruff check differ tests bench examples setup.py
	$(BIN)/ruff format --check differ tests bench examples setup.py
	$(BIN)/mypy

# Four processes on two cores: the suite mostly waits on its local servers, processes and timers (one process:
# 7.7 minutes; four: 2.2).
test: lint $(COMPILED_STAMP)
	$(BIN)/pytest -n 4

# The property tests with new random examples (`make test` draws the same ones every run).
fuzz: $(COMPILED_STAMP)
	DIFFER_HYPOTHESIS=explore $(BIN)/pytest -n 4 -q -p no:cacheprovider -m hypothesis

demo: $(COMPILED_STAMP)
	$(BIN)/differ demo

run: $(COMPILED_STAMP)
	$(BIN)/differ --config config.toml run

soak: $(COMPILED_STAMP)
	$(BIN)/python -m bench.soak

bench: $(COMPILED_STAMP)
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build
	rm -f $(BUILT)
