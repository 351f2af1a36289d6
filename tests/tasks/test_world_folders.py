"""World folders are byte-identical across processes, pinned by golden hashes.

A golden hash changes whenever generation or export changes on purpose: update it in the same
commit and say why. It also pins numpy/scipy behaviour, so a library upgrade may move it.
"""

import json
import subprocess
import sys

import pytest

GOLDEN_FOLDER_HASHES = {
    # trivial changed when the flat ground joined group "ground" (food rules, docs/items.md).
    "trivial/0.0/0": "sha256:a234f66f3669d62cee39a15d5cc5271692079eb9e37320d55aa82f122f5fcc51",
    # eat/0.0/0 changed when food at low difficulty went on an altar (docs/tasks.md).
    "eat/0.0/0": "sha256:795c36c122db5196d4a4401c4af474f980d8b3484432b679af3ab7126a2d0b0e",
    "eat/1.0/3": "sha256:fedf4b916eae0e425412aba3c3fa12f108e1d7467e036c272581d9345eb98d3a",
    "move/0.5/3": "sha256:c944802cf2dad36747a8740538d493eed0f020f217c1e0c6db3459d695a4b3d0",
    "move/1.0/7": "sha256:4080ca6476ad975a671a836a70122d97d7d6479b8e6813676063a9f9d96104f6",
}

_CHILD = """
import json, sys, tempfile
from avalon.datagen.export import content_hash
from avalon.tasks import generate_world
hashes = {}
for key in sys.argv[1:]:
    task, difficulty, seed = key.split("/")
    folder = generate_world(task, float(difficulty), int(seed), tempfile.mkdtemp() + "/w")
    hashes[key] = content_hash(folder)
print(json.dumps(hashes))
"""


def _hashes_in_a_fresh_process(tmp_path) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, *GOLDEN_FOLDER_HASHES], capture_output=True, text=True, timeout=300,
        env={"TMPDIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.slow
def test_world_folders_are_byte_identical_across_processes_and_match_the_golden_hashes(tmp_path):
    first = _hashes_in_a_fresh_process(tmp_path)
    second = _hashes_in_a_fresh_process(tmp_path)
    assert first == second
    assert first == GOLDEN_FOLDER_HASHES
