"""Episode files keep everything that determines the observations; replay rebuilds exactly that
and says what differed; a bad file is a clear EpisodeFileError."""

from __future__ import annotations

import io
import json
import tarfile

import numpy as np
import pytest

from avalon import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.env.spaces import ActionCodec
from avalon.episodes.recording import (
    OBSERVATION_PREFIX,
    EpisodeFileError,
    RecordEpisodes,
    Recording,
    observation_digest,
    replay,
)
from avalon.errors import WorldLoadError
from avalon.tasks import generate_world
from tests.episodes.episode_files import members as read_members, record_random_episode, save, world_files, world_tar


def _with_meta(members: dict[str, np.ndarray], **changes) -> dict[str, np.ndarray]:
    meta = json.loads(str(members["meta"]))
    meta.update(changes)
    return {**members, "meta": np.array(json.dumps(meta))}


@pytest.fixture(scope="module")
def episode_file(tmp_path_factory, trivial_world_dir):
    """A real 12-step episode in evaluation mode (GLES2), cut short by close()."""
    return record_random_episode(tmp_path_factory.mktemp("episodes"), trivial_world_dir, 12, 3, is_training=False)


# ---------------------------------------------------------------------- replays identical


@pytest.mark.godot
@pytest.mark.slow
# Every pair of two settings' values once (an orthogonal array of 4 of the 8 combinations): each
# setting is read from the episode file on its own, so no third one changes how a pair replays.
@pytest.mark.parametrize(
    "is_training, action_space, renderer",
    [(True, "vr", "GLES3"), (True, "mouse_keyboard", "GLES2"), (False, "vr", "GLES2"), (False, "mouse_keyboard", "GLES3")],
    ids=["training-vr-GLES3", "training-mouse_keyboard-GLES2", "evaluation-vr-GLES2", "evaluation-mouse_keyboard-GLES3"],
)
def test_every_mode_action_space_renderer_and_time_limit_override_replays_identically(
    is_training, action_space, renderer, trivial_world_dir, tmp_path
):
    # A C_move other than the default, so that a replay with the default would differ.
    config = EnvConfig(
        renderer=renderer, action_space=action_space, is_training=is_training, movement_coefficient=1e-6,
        world_dir=str(trivial_world_dir),
    )
    env = RecordEpisodes(AvalonEnv(config), tmp_path)
    env.action_space.seed(7)
    try:
        env.reset(seed=5)  # the world's own time limit (200 frames); cut short after 12 steps
        for _ in range(12):
            env.step(env.action_space.sample())
        env.reset(seed=6, options={"time_limit_frames": 9})  # an override the episode runs into
        steps, truncated = 0, False
        while not truncated:
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            steps += 1
            assert not terminated
        assert steps == 9
    finally:
        env.close()
    own_limit, override = sorted(tmp_path.glob("*.npz"))
    for path, time_limit, frames, ending in ((own_limit, 200, 12, "cut_short"), (override, 9, 9, "truncated")):
        meta = Recording.load(path).meta
        assert meta["format_version"] == 2 and meta["renderer"] == renderer and meta["action_space"] == action_space
        assert meta["is_training"] is is_training and meta["movement_coefficient"] == 1e-6
        assert (meta["time_limit_frames"], meta["frames"], meta["ending"]) == (time_limit, frames, ending)
        result = replay(path)
        assert result.identical, result.describe()
        assert result.frames == frames and result.notes == ()


@pytest.mark.godot
def test_eat_episode_recorded_in_evaluation_mode_replays_identically(tmp_path):
    """The issue's own case: evaluation mode (C_move = 0) used to replay in training mode."""
    env = RecordEpisodes(AvalonEnv(EnvConfig(is_training=False, task="eat")), tmp_path)
    env.action_space.seed(0)
    try:
        env.reset(seed=0)
        for _ in range(15):
            env.step(env.action_space.sample())
    finally:
        env.close()
    recording = Recording.load(env.last_path)
    assert recording.meta["world"]["task"] == "eat" and recording.meta["is_training"] is False
    assert recording.observations["energy_spent_on_movement"].max() == 0.0  # no movement penalty
    result = replay(env.last_path)
    assert result.identical, result.describe()
    assert result.frames == 15


@pytest.mark.godot
def test_version_1_file_still_replays_identically_in_training_mode_with_the_worlds_time_limit(
    long_trivial_world_dir, tmp_path
):
    # Written here as version 1 writers wrote it: one digest of each whole observation.
    env = AvalonEnv(renderer="GLES2", world_dir=str(long_trivial_world_dir))
    codec = ActionCodec("vr")
    env.action_space.seed(9)
    actions, rewards = [], []
    try:
        observation, _ = env.reset(seed=9)
        digests = [observation_digest(observation)]
        for _ in range(15):
            action = env.action_space.sample()
            observation, reward, _, _, _ = env.step(action)
            actions.append(codec.encode(action))
            rewards.append(reward)
            digests.append(observation_digest(observation))
        world = env.world
    finally:
        env.close()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(long_trivial_world_dir.iterdir()):
            tar.add(path, arcname=path.name)
    meta = {
        "format_version": 1, "protocol_version": 4, "action_space": "vr", "resolution": 96, "renderer": "GLES2",
        "episode_seed": 9, "frames": 15,
        "world": {"task": world.task, "difficulty": world.difficulty, "seed": world.seed,
                  "content_hash": world.content_hash, "path": str(world.path)},
    }
    members = {
        "meta": np.array(json.dumps(meta, sort_keys=True)),
        "actions": np.array(actions, np.float32),
        "rewards": np.array(rewards, np.float32),
        "observation_sha256": np.frombuffer(b"".join(digests), np.uint8).reshape(-1, 32),
        "world_tar": np.frombuffer(buffer.getvalue(), np.uint8),
    }
    version_1 = save(tmp_path / "version-1.npz", members)
    assert Recording.load(version_1).format_version == 1
    result = replay(version_1)
    assert result.identical, result.describe()
    assert result.frames == 15

    members["actions"] = members["actions"].copy()
    members["actions"][6, 2] = 1.0 if members["actions"][6, 2] != 1.0 else -1.0  # walk otherwise at step 7
    result = replay(save(tmp_path / "version-1-tampered.npz", members))
    assert result.first_mismatch == 7 and "version-1 file" in result.differences[0]


# ---------------------------------------------------------------------- saying what differed


@pytest.mark.godot
def test_a_replay_that_differs_names_the_observation_the_keys_and_the_reward(episode_file, tmp_path):
    members = read_members(episode_file)
    recorded_energy = float(members[OBSERVATION_PREFIX + "energy"][5, 0])
    members["rgbd_sha256"] = members["rgbd_sha256"].copy()
    members["rgbd_sha256"][5, 0] ^= 0xFF
    members[OBSERVATION_PREFIX + "energy"] = members[OBSERVATION_PREFIX + "energy"].copy()
    members[OBSERVATION_PREFIX + "energy"][5, 0] += 0.25
    tampered_energy = float(members[OBSERVATION_PREFIX + "energy"][5, 0])
    members["rewards"] = members["rewards"].copy()
    members["rewards"][2] += 1.0  # step 3's reward
    result = replay(save(tmp_path / "tampered.npz", members))
    assert not result.identical
    assert result.first_mismatch == 5 and result.frames == 5  # the replay stops at the first difference
    assert result.differing_keys == ("rgbd", "energy")
    energy_line = result.differences[1]
    assert f"recorded {tampered_energy:.9g}, replayed {recorded_energy:.9g} (max |difference| 0.25)" in energy_line
    assert result.first_reward_mismatch == 3 and "step 3" in result.reward_difference
    text = result.describe()
    assert "observation 5 of 12 differs" in text and "rgbd: the frame differs" in text and "energy: recorded" in text


@pytest.mark.godot
def test_a_replay_that_ends_otherwise_than_recorded_says_so(episode_file, tmp_path):
    # The recording claims the episode was truncated after its 12 steps; the replayed one goes on.
    result = replay(save(tmp_path / "ending.npz", _with_meta(read_members(episode_file), ending="truncated")))
    assert result.first_mismatch is None and result.rewards_match
    assert not result.identical
    assert result.ending_difference == "the recorded episode truncated after 12 steps, the replayed one did not end"


@pytest.mark.godot
def test_a_chosen_renderer_is_used_and_reported(episode_file):
    result = replay(episode_file, renderer="GLES3")
    assert result.notes == ("renderer: replayed with 'GLES3', recorded with 'GLES2'",)
    # GLES3 draws other pixels than GLES2; everything else is the same.
    assert result.first_mismatch == 0 and result.differing_keys == ("rgbd",)
    with pytest.raises(ValueError, match="the recorded actions are 'vr' actions"):
        replay(episode_file, action_space="mouse_keyboard")


# ---------------------------------------------------------------------- bad files


def _truncated(path, tmp_path):
    data = path.read_bytes()
    target = tmp_path / "truncated.npz"
    target.write_bytes(data[: len(data) * 2 // 3])
    return target


def _empty_file(path, tmp_path):
    target = tmp_path / "empty.npz"
    target.write_bytes(b"")
    return target


def _text_file(path, tmp_path):
    target = tmp_path / "notes.npz"
    target.write_text("not an episode\n")
    return target


def _npy_file(path, tmp_path):
    target = tmp_path / "one-array.npz"
    with open(target, "wb") as file:
        np.save(file, np.zeros(3))
    return target


def _edited(**changes):
    def make(path, tmp_path):
        members = read_members(path)
        for key, value in changes.items():
            if value is None:
                members.pop(key)
            elif callable(value):
                members[key] = value(members[key])
            else:
                members[key] = value
        return save(tmp_path / "edited.npz", members)

    return make


def _meta(**changes):
    return lambda path, tmp_path: save(tmp_path / "meta.npz", _with_meta(read_members(path), **changes))


@pytest.mark.godot
@pytest.mark.parametrize(
    "make, message",
    [
        (lambda path, tmp_path: tmp_path / "missing.npz", "does not exist"),
        (lambda path, tmp_path: tmp_path, "is a folder"),
        (_truncated, "is truncated or corrupt"),
        (_empty_file, "is truncated or corrupt"),
        (_text_file, "is not an episode file"),
        (_npy_file, "it holds one array, not a .npz archive"),
        (_edited(meta=None), "it has no 'meta' member"),
        (_edited(rgbd_sha256=None), "is not a version-2 episode file: it lacks ['rgbd_sha256']"),
        (_edited(meta=np.array("{not json")), "meta is not valid JSON"),
        (_edited(meta=np.array("[1, 2]")), "meta must be a JSON object, not list"),
        (_edited(meta=np.arange(3)), "meta is int64 (3,), expected a 0-d string"),
        (_meta(format_version=3), "has format_version 3; this version reads 1, 2"),
        (_meta(resolution="96"), "meta['resolution'] is '96', expected int"),
        (_meta(is_training=1), "meta['is_training'] is 1, expected bool"),
        (_meta(world={"task": "eat"}), "meta['world'] lacks 'difficulty'"),
        (_meta(renderer="GLES4"), "meta holds a setting the env refuses: renderer='GLES4'"),
        (_meta(frames=-1), "meta['frames'] is -1, expected >= 0"),
        (_meta(episode_seed=-5), "meta['episode_seed'] is -5"),
        (_meta(time_limit_frames=0), "meta['time_limit_frames'] is 0, expected 1 to 10**7"),
        (_meta(ending="exploded"), "meta['ending'] is 'exploded'"),
        (_edited(actions=lambda a: a[:-1]), "actions is float32 (11, 21), expected float32 (12, 21)"),
        (_edited(actions=lambda a: a.astype(np.float64)), "actions is float64 (12, 21), expected float32 (12, 21)"),
        (_edited(rewards=lambda r: r[:5]), "rewards is float32 (5,), expected float32 (12,)"),
        (_edited(rgbd_sha256=lambda d: d[1:]), "rgbd_sha256 is uint8 (12, 32), expected uint8 (13, 32)"),
        (_edited(**{OBSERVATION_PREFIX + "energy": lambda e: e[:3]}), "observation/energy is float32 (3, 1)"),
        (_edited(actions=lambda a: np.where(np.arange(21) == 0, 2.0, a).astype(np.float32)), "the action of step 1 is refused"),
        (_edited(actions=lambda a: np.where(np.arange(21) == 20, 0.5, a).astype(np.float32)), "neither 0 nor 1"),
    ],
)
def test_a_bad_episode_file_is_a_clear_error_and_the_next_load_works(make, message, episode_file, tmp_path):
    bad = make(episode_file, tmp_path)
    with pytest.raises(EpisodeFileError) as caught:
        Recording.load(bad)
    assert message in str(caught.value) and str(bad) in str(caught.value)
    assert isinstance(caught.value, ValueError)
    assert Recording.load(episode_file).frames == 12


@pytest.mark.godot
@pytest.mark.parametrize(
    "change, message",
    [
        (lambda files: {**files, "../outside.txt": b"x"}, "'../outside.txt' is not a plain file of a world folder"),
        (lambda files: {**files, "sub/extra.bin": b"x"}, "'sub/extra.bin' is not a plain file"),
        (lambda files: {**files, "world.tscn": files["world.tscn"] + b"\n"}, "the folder's files hash to"),
        (lambda files: None, "is corrupt"),
    ],
    ids=["outside", "subfolder", "hash", "not-a-tar"],
)
def test_a_world_inside_that_is_unsafe_or_corrupt_is_refused_before_the_simulator(change, message, episode_file, tmp_path):
    files = change(world_files(read_members(episode_file)))
    archive = np.frombuffer(b"not a tar archive", np.uint8) if files is None else world_tar(files)
    members = {**read_members(episode_file), "world_tar": archive}
    with pytest.raises(WorldLoadError, match="the world inside .*") as caught:
        replay(save(tmp_path / "unsafe.npz", members))
    assert message in str(caught.value)


@pytest.mark.godot
def test_a_world_inside_that_is_not_the_recorded_one_is_refused(episode_file, tmp_path):
    other = generate_world("eat", 0.0, 1, tmp_path / "eat")  # a sound world folder, but not the recorded one
    members = {**read_members(episode_file), "world_tar": world_tar({p.name: p.read_bytes() for p in other.iterdir()})}
    with pytest.raises(WorldLoadError, match="not to the recorded sha256:"):
        replay(save(tmp_path / "other-world.npz", members))
