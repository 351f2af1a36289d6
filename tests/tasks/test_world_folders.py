"""World folders are byte-identical across processes, pinned by golden hashes.

A golden hash changes whenever generation or export changes on purpose: update it in the same
commit and say why. It also pins numpy/scipy behaviour, so a library upgrade may move it.
"""

import json
import subprocess
import sys

import pytest

GOLDEN_FOLDER_HASHES = {
    "trivial/0.0/0": "sha256:6a737d97c698bffb863184ba605f7bbad059d12d58161ed26559fb1fee077aea",
    "eat/0.0/0": "sha256:4095eef305f7a7bff3f1b89dc813108085af17556c7a379301be8915e11d161f",
    "eat/1.0/3": "sha256:2f5f0fb03606e2b5f2d49d682b834d71ab4ca178772ea645e6db4e16569f455e",
    "move/0.5/3": "sha256:c5f46ebc28359599eb63fa46a7888298f9042256f39a73c27127eba82990a3b2",
    "move/1.0/7": "sha256:863318c306a05bc2556301ef83676135acbc577d6946d653db2998b30ba4c591",
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
