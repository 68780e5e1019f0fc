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
	@$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[test,report]'
	@touch $@

setup: $(STAMP)

demo: $(STAMP)
	@echo "== examples/histogram.cu, built and run unmodified (backend: auto) =="
	$(BIN)/python -m instrument.run examples/histogram.cu -- 4096
	@echo "== hirace race check of examples/reduce_race.cu (backend: auto) =="
	@$(BIN)/hirace run --prior-sites examples/reduce_race.cu -- 1024; \
	  status=$$?; test $$status -eq 1 && echo "(hirace exit status 1: races found, as expected)"
	@echo "== cltc coverage of the suite examples/cltc_suite (backend: auto) =="
	$(BIN)/cltc coverage --suite examples/cltc_suite

test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(JOBS) tests

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
