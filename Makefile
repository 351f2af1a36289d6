# `make run` and `make test` each set everything up first (idempotent `make setup`).
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup run test test-fast benchmark generate clean

setup:
	@bin/setup.sh $(VENV)

run: setup
	$(BIN)/avalon run

test: setup
	$(BIN)/pytest

test-fast: setup
	$(BIN)/pytest -m "not godot"

benchmark: setup
	$(BIN)/avalon benchmark --json runs/benchmark.json

# Regenerates the checked-in files derived from Python (the tests fail while they are stale).
generate: setup
	$(BIN)/python -m avalon.env.codegen

clean:
	rm -rf $(VENV) runs .pytest_cache
