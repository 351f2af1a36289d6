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


#: Worlds below difficulty 0.5, hashed with eat's altars but before food could hang in fruit trees
#: (branch `altar`, c1ab009): hanging food (eat from d = 0.5) must leave every easier world
#: byte-identical (eat agents are trained on d <= 0.2).
BEFORE_HANGING_FOOD_HASHES = {
    "eat/0.0/0": "sha256:795c36c122db5196d4a4401c4af474f980d8b3484432b679af3ab7126a2d0b0e",
    "eat/0.0/1": "sha256:32f8141c6d2e4d53b7ac623fea154ee0212099408364298ce5bbc6900fd65bdc",
    "eat/0.0/2": "sha256:c44fa7fef38ab2b1760efa0568cfd46f80ee45c2b4ee53568b339b15e2629e82",
    "eat/0.0/3": "sha256:c05c54b300648603ed1daf3ee2c1408c6511af6ce758f97496e28d19f2f4127d",
    "eat/0.0/4": "sha256:7084930e5938b2a0080071eae3a63df951628b513f6afb8658b187073585f12a",
    "eat/0.1/0": "sha256:62f2cede1ca4b692e2e5eaf1cb9ff63642c0474a2b802fc385375aa2e588862f",
    "eat/0.1/1": "sha256:fd0d70f15b4f79808f16a9917190767a6d77c91e83bd835a5de7425887fe9284",
    "eat/0.1/2": "sha256:f689b4f0dd4c1e0be21a8095985d9a6a07e5d8b64e26890c15be0e93ff0f1d72",
    "eat/0.1/3": "sha256:b62eb5ed17a2d032e4f1536213666f02e410f0b953500a498c131761a4b689e7",
    "eat/0.1/4": "sha256:d01cce926c50e853862dbdb27db5854d4c4a0364a7bfd50f8731088c27eb3537",
    "eat/0.2/0": "sha256:a20863f5a4de9ab989051b0743b441ec50ec1c33575a1ddd4c11c47e669c76d5",
    "eat/0.2/1": "sha256:be1e189347a507caa16b2846cebf408bf880339770c37047dc2ee66a144cc3a2",
    "eat/0.2/2": "sha256:509947aaab1b1fe30c36b5a9571c229e8b82f3e69009df6fb6fa81dc1f50faba",
    "eat/0.2/3": "sha256:61677b9769370c6483d36ea67f43efe17e4ead862fceff8db044b5412d304aae",
    "eat/0.2/4": "sha256:27ca073d1d433a0997259ea522be1b53a23c2b4da989b1dfb79e9bdab2c580c1",
    "eat/0.3/0": "sha256:a8fba75ea1fc9745b1869e8c015580271dd7cf0a10ad296da5cbfed0b7e36b84",
    "eat/0.3/1": "sha256:b72c9bfec66c0c6a1f235c6d96c4e64ddef9c67fd853576e9cd1c6097981c2ab",
    "eat/0.3/2": "sha256:bb2a10c5ab9a748a63f0abe1dacbd66c77ca50924d8fbe772d789f1f137d69a6",
    "eat/0.3/3": "sha256:d4219081a092bebdf392b1ea25213d371eec5c578e51dabc6717020ed3c8a5a8",
    "eat/0.3/4": "sha256:6d1cd523d30964307efd057ac66203ecc4d052752b4bf34f22322c187a8e0584",
    "eat/0.4/0": "sha256:0233c74fe0e8f30801ceacefe706a73e6d90510537b0baacab33a882e98b163b",
    "eat/0.4/1": "sha256:d7650246cc3fcbd6a7e7bcfafe97ca2574e3e98ce46d44d1de9a198a09bc1d7a",
    "eat/0.4/2": "sha256:6a6aa3e0831860d51806a4179ed4dd9c144f69b9fab893da13d8997abba0c48b",
    "eat/0.4/3": "sha256:096cc3794e45993b6f496843dcfc72e7246cc14b39bf72d855d4f8fbbc28f931",
    "eat/0.4/4": "sha256:03db43a3b2173347b75e81ab002f495f24573c204802da057bfac281bb735502",
    "eat/0.49/0": "sha256:e6806dec1ae82f33a726fa42a41fdc5522a73cc96a848aaeac0e3c019f615500",
    "eat/0.49/1": "sha256:b77341077236ca3eaf12189dc1dc03b515c9444d1147ab143b6180cf8bf51f59",
    "eat/0.49/2": "sha256:3c145d4665b27091225ffd8417a7aae7d6b9d0bd05fc4fa619df4c1b1d9619c7",
    "eat/0.49/3": "sha256:5670c3aa88b3d2b6c6e28dc70fa9c780a364c72f48cef1db43a89cd48e5917b0",
    "eat/0.49/4": "sha256:2dae7c39d616786173988cddb14380443ef8e2eb9c131ca492d7dd2bff85e096",
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
