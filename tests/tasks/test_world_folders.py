"""World folders are byte-identical across processes, pinned by golden hashes.

A golden hash changes whenever generation or export changes on purpose: update it in the same
commit and say why. It also pins numpy/scipy behaviour, so a library upgrade may move it.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from avalon.datagen.export import content_hash
from avalon.tasks import generate_world

GOLDEN_FOLDER_HASHES = {
    # trivial changed when the flat ground joined group "ground" (food rules, docs/items.md).
    "trivial/0.0/0": "sha256:a234f66f3669d62cee39a15d5cc5271692079eb9e37320d55aa82f122f5fcc51",
    "eat/0.0/0": "sha256:27f62528774965e588b888799340423e2bc41e36ad5e057cc584a969b7d2ccd2",
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


#: Worlds below difficulty 0.5, hashed before food could hang in fruit trees (commit 4ec1c50):
#: hanging food (eat from d = 0.5) must leave every easier world byte-identical (eat agents are
#: trained on d <= 0.2).
BEFORE_HANGING_FOOD_HASHES = {
    "eat/0.0/0": "sha256:27f62528774965e588b888799340423e2bc41e36ad5e057cc584a969b7d2ccd2",
    "eat/0.0/1": "sha256:0f7574954c904dc2c553d8d499f0e32b80e5c5fc8400c94fe73dcabd81eaa503",
    "eat/0.0/2": "sha256:5f233f909baca14927473d04377efa80c80c03c3248b2323124886091b739558",
    "eat/0.0/3": "sha256:52750add52e2943cabb51ab922af8c54dd59adce0b589a123ffece1adb9dcf77",
    "eat/0.0/4": "sha256:f9dec5ee5ee8bac34f5ccae18c479032437d4a088e11e955b677d33f324caae0",
    "eat/0.1/0": "sha256:1d740b0e050c854db6bab63fca542bf62759cb20b9c479eaf636415489cf7b53",
    "eat/0.1/1": "sha256:db6183159c8b51dcbff95b37b01e7d617b275862153f3fc398cee6ecbbd14865",
    "eat/0.1/2": "sha256:23587e3bb0665e77502403e53db54326e5c52834eb57a739a99be3dee064b92b",
    "eat/0.1/3": "sha256:dd9db4e5884d81e900eafd593aae6383a225a9e4906f76c6492e2413e1121359",
    "eat/0.1/4": "sha256:23bff10f293cafacba5eb7936710f8f3a226fec9041c8003e6d855340d0ab9e9",
    "eat/0.2/0": "sha256:4a610787ec81305dfc68a07913e0d3583974615798045cbe97a93e98815c871e",
    "eat/0.2/1": "sha256:c637e5aebc5d3c8e82081445dcf80e83d25199964cdaddd1ad887dd77d0a5d41",
    "eat/0.2/2": "sha256:bd667211e8adc66161136d1dd2de274f652ca69a628e621cf7415d86fa11d21e",
    "eat/0.2/3": "sha256:4b97f29034487dd0394061d28a4a865d3b3dcf49639f012f4428e05580944633",
    "eat/0.2/4": "sha256:49b284a01adf0f8ea812a514e80097f7faba2c9c12ee1f312ef73baa747043df",
    "eat/0.3/0": "sha256:d1c9ffaafe5ce06cd890aa7e6ccea54bdd8f310b1827065b7a69b503181ea2a1",
    "eat/0.3/1": "sha256:4dc9f07600a34783b54d7e51c6b914be739dfe1db10278c2cf0e28ea0e754bee",
    "eat/0.3/2": "sha256:453c27daf040bd92957a588fda01bbc85cf5bc365283a029f2be437b750b1d58",
    "eat/0.3/3": "sha256:7b244db4cbd2360475a3bf4ba28db5e9474bbe49105d78580eb688c14bd77cb1",
    "eat/0.3/4": "sha256:3e4f3c5e684bd115fbfa253c1b56688ddd4baf231cc16fb1303d4e709a3f8101",
    "eat/0.4/0": "sha256:7a8de2de7037ee5894c27ad66f986742d30e466fb7874ceee3548648b62b0f24",
    "eat/0.4/1": "sha256:2941b2e019381dfa4f6cc686fe52fca6a9580880dba3a0d3311f74d43e4b64fd",
    "eat/0.4/2": "sha256:f68f0e4c15e6345aaa4eea6df9443991572ee2d1f634bacc12b9f6e944f240a3",
    "eat/0.4/3": "sha256:4f8295d25aad75fa09c02df9bf8585d2b96f1eea9f62a7043e3c299500878e2b",
    "eat/0.4/4": "sha256:80a06f0a43fa51516833a0af5ead0735e5261e152f5e1947132d0ee1e2cf771b",
    "eat/0.49/0": "sha256:8d920013d487d0eec831ca17534848d129fc010884b5c27d3734ded92f83120e",
    "eat/0.49/1": "sha256:2f3714ba7768531129af03481aa0ce130ac478f196f46e7969dde8e0dc4759f5",
    "eat/0.49/2": "sha256:6704ccd10a6dd3237dce9e5c2094669b67a460f8b07921708a9a79e8f1b19b84",
    "eat/0.49/3": "sha256:5670c3aa88b3d2b6c6e28dc70fa9c780a364c72f48cef1db43a89cd48e5917b0",
    "eat/0.49/4": "sha256:5b97655c58913884c77b23c681c2fbc1a7cb56d7fabc9ae7fa48ffba2bd85e8e",
    "move/0.0/0": "sha256:aadd18769517bd2e5dc1bbd06a1e0c5ddf49e37e5123b7e8f62bd3c756e2a2a3",
    "move/0.0/1": "sha256:96ba7b88c89c317907855156c308977bb5b156081de80405b3281177ce5d9c0f",
    "move/0.0/2": "sha256:7733d69210f8dabff4afde58cfbd665a78d5e0492b51a94b866f6c44484e568d",
    "move/0.2/0": "sha256:693a7d0d3da6feac40fa321e4457dfe2bc95302242bc6f8ff449bec29ade0e0b",
    "move/0.2/1": "sha256:b00260584d7c8eebd3bb1d5c737c3521c5ff08a6aee6da58377e095524ea113f",
    "move/0.2/2": "sha256:de93335d7fe8db5b8b920cf3ffffb592d49888e8a7749e3fe1c13099e8b7c884",
    "move/0.4/0": "sha256:27026529a3fa996d412cdb048d5138ca570fb3eb9f9d84018911ac995eda9f52",
    "move/0.4/1": "sha256:2acef2d0cf6158889cb201675bc0ef73185eb57bf58881de8e02149494be8a96",
    "move/0.4/2": "sha256:4e4d9328a7ba114f8d04b3a5ba893f779b6d852ef643452508bedc1f126cc767",
    "move/0.49/0": "sha256:84687f30d5779cc60a204ccd4b925f3856f6482711fb8a072418571971bf1b9f",
    "move/0.49/1": "sha256:494f58e5b8cddcb63315643c9b69202e243c421a655c951e277be55b34f4dc9a",
    "move/0.49/2": "sha256:37dcef788b765c58577899b33d9f2e9a17c63febd1e7efe9b655f0119ade508d",
}


def test_worlds_below_difficulty_half_are_byte_identical_to_those_made_before_food_could_hang(tmp_path):
    for key, expected in BEFORE_HANGING_FOOD_HASHES.items():
        task, difficulty, seed = key.split("/")
        folder = generate_world(task, float(difficulty), int(seed), output_dir=Path(tmp_path) / key.replace("/", "-"))
        assert content_hash(folder) == expected, key
