# `make run` and `make test` each set everything up first (idempotent `make setup`).
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup run demo test test-fast benchmark generate clean

setup:
	@bin/setup.sh $(VENV)

# The main job: PPO learns the eat task from scratch with the difficulty curriculum, then the
# trained and the random policy are evaluated on the same 30 fresh worlds; prints both, and where
# the learning curve (PNG), the GIF and the logs went. What makes it short and reliable (README,
# "The first run"): the mouse-and-keyboard actions and PPO's cpu preset (2 simulators, 48x48,
# the learning rate, entropy cost, clip range and curriculum step that learn eat fastest here;
# printed at the start). `make run SEED=3` trains another seed.
SEED ?= 0
run: setup
	$(BIN)/avalon train ppo --preset cpu --tasks eat --steps 60000 --action-space mouse_keyboard --seed $(SEED) \
		--eval-episodes 30 --eval-max-difficulty 0.2 --eval-time-limits training --baseline random

demo: setup
	$(BIN)/avalon run

# Lint first (ruff; its rules are in pyproject.toml), then the whole suite.
test: setup
	$(BIN)/ruff check .
	$(BIN)/pytest

test-fast: setup
	$(BIN)/pytest -m "not godot"

benchmark: setup
	$(BIN)/avalon benchmark --json runs/benchmark.json

# Regenerates the checked-in files derived from Python (the tests fail while they are stale).
generate: setup
	$(BIN)/python -m avalon.dev.codegen

clean:
	rm -rf $(VENV) runs .pytest_cache
