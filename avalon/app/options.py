"""What several commands parse alike: task lists, difficulty lists, the episode a video shows."""

from __future__ import annotations


def task_list(text: str) -> tuple[str, ...]:
    tasks = tuple(task.strip() for task in text.split(",") if task.strip())
    if not tasks:
        raise ValueError(f"--tasks {text!r} names no task (e.g. --tasks eat,move)")
    return tasks


def difficulty_list(text: str) -> tuple[float, ...]:
    """A comma-separated list of difficulties (``0,0.5,1``), each checked."""
    from avalon.tasks import check_difficulty

    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"--difficulties {text!r}: expected comma-separated numbers in [0, 1], e.g. 0,0.5,1") from None
    if not values:
        raise ValueError(f"--difficulties {text!r}: expected at least one number in [0, 1]")
    return tuple(check_difficulty(value) for value in values)


def video_episode(chosen: dict | None) -> str:
    if chosen is None:
        return "an evaluation episode"
    outcome = "it succeeds" if chosen["success"] else "it fails"
    return f"the episode of evaluation world {chosen['world']} ({outcome})"
