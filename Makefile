# `make run` and `make test` each set everything up first (idempotent `make setup`).
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup run demo test test-fast benchmark generate clean

setup:
	@bin/setup.sh $(VENV)

# The main job: PPO learns the eat task from scratch with the difficulty curriculum (about four
# minutes on a 2-core CPU), then the trained and the random policy are evaluated on the same 30
# fresh worlds; prints both, and where the learning curve (PNG), the GIF and the logs went.
# The settings that make it short (README, "The first run"): the mouse-and-keyboard actions,
# 48x48 observations and a PPO clip range of 0.1.
run: setup
	$(BIN)/avalon train ppo --tasks eat --steps 80000 --envs 2 --action-space mouse_keyboard --resolution 48 \
		--clip-range 0.1 --eval-episodes 30 --eval-max-difficulty 0.2 --eval-time-limits training --baseline random

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
