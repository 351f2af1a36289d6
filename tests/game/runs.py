"""Driving the agent through purpose-built worlds in the real simulator, for the game-rule tests:
:class:`Run` (steps an env with zero actions but the parts given, keeping the energy trace), the
world builders (boxes on flat ground, a terrain cliff, a tower), hand rates toward a point, and
the figures of equation 2 (fall damage) and of a stepped jump."""

from __future__ import annotations

import numpy as np

from avalon.datagen.world import Entity, FlatGround, World
from avalon.rules import mechanics
from tests.conftest import zero_action

C_FALL_PER_V2 = mechanics.FALL_DAMAGE_COEFFICIENT * mechanics.BODY_MASS_KG
LETHAL_FALL_M = (1.0 / C_FALL_PER_V2 + mechanics.FALL_SAFE_SPEED_M_PER_S**2) / (2 * mechanics.GRAVITY_M_PER_S2)  # 37.05 m
SAFE_FALL_M = mechanics.FALL_SAFE_SPEED_M_PER_S**2 / (2 * mechanics.GRAVITY_M_PER_S2)  # 5 m
CLIFF_FOOT_M = 1.0  # ground height in front of terrain_world's cliff
CLIFF_TOP_M = 3.5
# A jump's highest point in 10 Hz steps (the speed is set before each move): 0.5 + 0.4 + ... + 0.1
# = 1.5 m, above the continuous v^2 / 2g = 1.25 m.
JUMP_APEX_STEPPED_M = sum(
    max(0.0, mechanics.JUMP_SPEED_M_PER_S - k * mechanics.GRAVITY_M_PER_S2 * mechanics.STEP_SECONDS) * mechanics.STEP_SECONDS
    for k in range(100)
)


def box(name, center, size, color=(0.6, 0.6, 0.6), **params):
    return Entity(kind="box", name=name, position=center, params={"size": size, "color": color, **params})


def flat_world(entities, spawn=(0.0, 0.0, 0.0), time_limit=1000):
    return World(task="mechanics", difficulty=0.0, seed=0, ground=FlatGround(size_m=100.0), entities=tuple(entities),
                 spawn_position=spawn, spawn_yaw_rad=0.0, time_limit_frames=time_limit)


def tower(height):
    return [box("tower", (0.0, height / 2, 0.5), (2.0, height, 2.0))]


def terrain_world(climbable, cliff=True, scenery=()):
    """Terrain 1 m high and, with ``cliff``, a step up to 3.5 m whose face is 0.75-1.0 m in front
    of the agent; bare rock (climbable) or cliff."""
    from avalon.datagen.biomes import Biome, BiomeMap
    from avalon.datagen.terrain import HeightMap
    from avalon.datagen.world import Terrain

    size_m, points = 20.0, 81  # 0.25 m between grid points: the face rises 2.5 m over one cell
    z = np.linspace(-size_m / 2, size_m / 2, points)
    heights = np.where(cliff & (z[:, None] <= -1.0), CLIFF_TOP_M, CLIFF_FOOT_M) * np.ones((1, points))
    heightmap = HeightMap(heights=heights, size_m=size_m, water_height_m=0.0)
    biome = Biome.BARE_MOUNTAIN if climbable else Biome.UNCLIMBABLE_MOUNTAIN
    biome_map = BiomeMap(biome_ids=np.full((points, points), int(biome)), climbable=np.full((points, points), climbable),
                         colors=np.full((points, points, 3), 0.5), heightmap=heightmap)
    return World(task="mechanics", difficulty=0.0, seed=0, ground=Terrain(biome_map=biome_map), entities=(),
                 scenery=scenery, spawn_position=(0.0, CLIFF_FOOT_M, 0.0), spawn_yaw_rad=0.0, time_limit_frames=1000)


class Run:
    """Steps an env, recording the energy trace and the last observation and info."""

    def __init__(self, env, world_dir, seed=0):
        self.env = env
        self.observation, self.info = env.reset(seed=seed, options={"world_dir": world_dir})
        self.terminated = False
        self.trace = []
        self.infos = []

    def step(self, **parts):
        action = zero_action(self.env.config.action_space, **parts)
        self.observation, _, self.terminated, _, self.info = self.env.step(action)
        self.trace.append((float(self.observation["energy"][0]), self.info["movement_penalty"]))
        self.infos.append(self.info)
        return self.info

    @property
    def body(self):
        return self.info["world_body_position"]

    def hand(self, i):
        return self.observation["left_hand_relative_position" if i == 0 else "right_hand_relative_position"].copy()

    def grasping(self, i):
        return self.observation["left_hand_is_grasping" if i == 0 else "right_hand_is_grasping"][0] > 0.5

    def grasp_and_eat_with_mouse_and_keyboard(self, grasp_steps: int, eat_steps: int) -> None:
        """Mouse and keyboard, looking at food: close the right hand until it holds, then eat;
        asserts both happened (within the given numbers of steps)."""
        for _ in range(grasp_steps):  # the hand goes where the camera looks and closes there
            self.step(right_grasp=1)
            if self.grasping(1):
                break
        assert self.grasping(1)
        for _ in range(eat_steps):
            self.step(right_grasp=1, eat=1)
            if self.info["food_eaten"]:
                break
        assert self.info["food_eaten"] == 1 and self.info["success"]


def rate_toward(current, target):
    """The hand rate (at most 1) that moves a hand from ``current`` toward ``target`` (body frame)."""
    rate = (np.asarray(target) - current) / (mechanics.MAX_HAND_SPEED_M_PER_S * mechanics.STEP_SECONDS)
    norm = np.linalg.norm(rate)
    return rate / norm if norm > 1 else rate


def fall_from(run, max_steps=60):
    """Walks off the tower the agent stands on and returns the fall damage of the landing."""
    damage = 0.0
    for _ in range(max_steps):
        run.step(head_position=[0, 0, -1])
        damage += run.info["energy_lost_to_falls"]
        if run.terminated or run.body[1] < 0.01:
            break
    for _ in range(3):
        if run.terminated:
            break
        run.step()
        damage += run.info["energy_lost_to_falls"]
    return damage
