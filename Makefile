# The two commands a newcomer runs: `make demo` and `make test`.
# Both create .venv on first use and are fast when it is already set up.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JOBS ?= 2

.PHONY: setup demo test clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[test]'
	@touch $@

setup: $(STAMP)

demo: $(STAMP)
	@echo "== examples/histogram.cu, built and run (backend: auto) =="
	$(BIN)/python -m instrument.run examples/histogram.cu -- 4096

test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(JOBS) tests

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
