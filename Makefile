# `make run` and `make test` each set everything up first (idempotent `make setup`).
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup run demo test test-fast benchmark generate clean

setup:
	@bin/setup.sh $(VENV)

# The main job: a short PPO training run on the eat task with the difficulty curriculum (a few
# minutes on a laptop CPU), then an evaluation; prints where its logs, checkpoint and video went.
run: setup
	$(BIN)/avalon train ppo --tasks eat --steps 30000 --envs 2 --eval-episodes 4 --eval-time-limits training

demo: setup
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
