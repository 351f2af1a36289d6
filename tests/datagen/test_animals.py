"""The animal table (Tables 3 and 4), its generated scenes, animal entities, placement and export
(pure Python, no Godot)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from avalon.datagen.animal_placement import CLUSTER_RADIUS_M, animal_entity, place_animals
from avalon.datagen.export import ENTITY_SCENES, world_scene_text
from avalon.datagen.world import Entity, FlatGround, World
from avalon.rules import animals, mechanics
from avalon.sim.paths import godot_project_dir
from avalon.sim.protocol import ACHIEVEMENTS


def _world(*entities, seed=0):
    return World(task="trivial", difficulty=0.0, seed=seed, ground=FlatGround(size_m=100.0), entities=entities,
                 spawn_position=(0, 0, 0), time_limit_frames=10)


def _scene_file(kind):
    return (godot_project_dir() / ENTITY_SCENES[kind][len("res://"):]).read_text()


def test_the_table_holds_the_papers_17_animals_in_order():
    assert animals.PREDATOR_KINDS == ("bee", "snake", "hawk", "hippo", "alligator", "eagle", "wolf", "jaguar", "bear")
    assert animals.PREY_KINDS == ("frog", "turtle", "mouse", "rabbit", "pigeon", "squirrel", "crow", "deer")
    assert all(animals.ANIMALS[s].is_predator for s in animals.PREDATOR_KINDS)
    assert not any(animals.ANIMALS[s].is_predator for s in animals.PREY_KINDS)


def test_domains_attacks_and_defences_follow_tables_3_and_4():
    spec = animals.ANIMALS
    assert {s for s in spec if spec[s].domain == "air"} == {"bee", "hawk", "eagle", "pigeon", "crow"}
    assert {s for s in spec if spec[s].can_climb} == {"jaguar", "bear", "mouse", "squirrel"}
    assert {s for s in spec if spec[s].no_inside} == {"hippo", "bear"}
    assert (spec["bee"].attack_damage, spec["bee"].respite) == (0.25, "permanent")
    assert spec["snake"].attack_damage == 5.0
    assert (spec["hawk"].attack_damage, spec["hawk"].respite) == (0.25, "temporary") and spec["hawk"].respite_s > 0
    for name in ("hippo", "alligator", "eagle", "wolf", "jaguar", "bear"):
        assert (spec[name].attack_damage, spec[name].respite) == (0.5, "persistent")
    assert all(spec[s].attack_damage == 0.0 for s in animals.PREY_KINDS)
    hits = {s: spec[s].hits_to_ko for s in spec}
    assert {s for s, n in hits.items() if n == 0} == {"hippo", "bear"}  # indestructible
    assert {s for s, n in hits.items() if n == 2} == {"wolf", "jaguar", "deer"}
    # Speeds relative to the agent: slow ones lose a race with it, fast ones win.
    slow = {s for s in spec if 0 < spec[s].active_speed_m_per_s < mechanics.MAX_WALK_SPEED_M_PER_S}
    assert slow == {"alligator", "turtle"}
    assert spec["frog"].activation == () and spec["frog"].active_speed_m_per_s == 0.0
    assert spec["eagle"].activation == ("within_radius", "you_dont_see_it") and "you_see_it" in spec["eagle"].deactivation
    assert "you_stop_moving" in spec["jaguar"].deactivation and "must_see_you" in spec["jaguar"].activation
    assert "outside_territory" in spec["hawk"].deactivation and "outside_territory" not in spec["wolf"].deactivation
    assert spec["snake"].deactivation == ("ko",)
    assert {s for s in spec if spec[s].idle == "static_avoidant"} == {"snake", "hippo", "deer"}


def test_animals_differ_in_shape_size_and_colour():
    looks = {(spec.size_m, spec.color) for spec in animals.ANIMALS.values()}
    assert len(looks) == 17 and len({spec.color for spec in animals.ANIMALS.values()}) >= 15
    assert all(len(spec.parts) >= 5 for spec in animals.ANIMALS.values())
    assert animals.ANIMALS["hippo"].mass_kg > 10 * animals.ANIMALS["wolf"].mass_kg > 100 * animals.ANIMALS["mouse"].mass_kg
    # A knocked-out prey must be liftable to be eaten.
    assert all(animals.ANIMALS[s].mass_kg <= mechanics.MAX_LIFT_MASS_KG for s in animals.PREY_KINDS)


@pytest.mark.parametrize("species", animals.ANIMAL_KINDS)
def test_every_species_has_a_generated_scene_with_its_row_of_the_table(species):
    text = _scene_file(species)
    spec = animals.ANIMALS[species]
    assert 'path="res://entities/animals/animal.gd"' in text and f'species = "{species}"' in text
    assert re.search(rf"^hits_to_ko = {spec.hits_to_ko}$", text, re.M)
    activation = ", ".join(f'"{name}"' for name in spec.activation)
    assert f"activation = PoolStringArray( {activation} )" in text
    parts = re.search(r"^parts = PoolRealArray\( (.*) \)$", text, re.M).group(1).split(", ")
    assert len(parts) == 10 * len(spec.parts)


def test_animal_entities_stand_on_the_ground_or_fly_and_take_overrides():
    wolf = animal_entity("wolf", "w", (1.0, 2.0, 3.0), activation_radius_m=8, activation=["within_radius"])
    assert wolf.position == (1.0, 2.0 + animals.ANIMALS["wolf"].size_m[1] / 2, 3.0)
    assert wolf.param("activation_radius_m") == 8.0 and wolf.param("activation") == ("within_radius",)
    hawk = animal_entity("hawk", "h", (0.0, 1.0, 0.0))
    assert hawk.position[1] == pytest.approx(1.0 + animals.ANIMALS["hawk"].fly_height_m + animals.ANIMALS["hawk"].size_m[1] / 2)


@pytest.mark.parametrize("call, message", [
    (lambda: animal_entity("dragon", "d", (0, 0, 0)), "unknown animal species 'dragon'"),
    (lambda: animal_entity("wolf", "w", (0, 0, 0), speed=3.0), "unknown animal property 'speed'"),
    (lambda: animal_entity("wolf", "w", (0, 0, 0), activation_radius_m=-1.0), "activation_radius_m -1.0 must be a finite number >= 0"),
    (lambda: animal_entity("wolf", "w", (0, 0, 0), activation_radius_m=math.nan), "must be a finite number"),
    (lambda: animal_entity("wolf", "w", (0, 0, 0), activation=("when_hungry",)), "activation ('when_hungry',) must be a tuple"),
    (lambda: animal_entity("wolf", "w", (0, 0, 0), idle="dancing"), "idle 'dancing' is not one of"),
    (lambda: animal_entity("wolf", "w", (0, 0, 0), hits_to_ko=True), "hits_to_ko True must be a int"),
    (lambda: animal_entity("wolf", "w", (0, 0, 0), hits_to_ko=1.5), "hits_to_ko 1.5 must be a int"),
])
def test_bad_animal_input_is_refused_naming_the_value(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


def test_worlds_add_animals_and_count_prey_as_food():
    world = _world(Entity(kind="apple", name="apple", position=(0, 0.15, -2)))
    world = world.add_animal(animal_entity("rabbit", "r", (5, 0, 5))).add_animal(animal_entity("wolf", "w", (9, 0, 9)))
    assert [a.name for a in world.animals] == ["r", "w"] and world.food_count == 2  # apple + rabbit
    with pytest.raises(ValueError, match="already has an entity named 'r'"):
        world.add_animal(animal_entity("frog", "r", (1, 0, 1)))
    with pytest.raises(ValueError, match="unknown animal species 'apple'"):
        world.add_animal(Entity(kind="apple", name="x", position=(0, 0, 0)))


def test_the_exporter_writes_overrides_and_a_seed_per_animal():
    world = _world(animal_entity("wolf", "w1", (5, 0, 5), activation=("within_radius",), hits_to_ko=3),
                   animal_entity("wolf", "w2", (9, 0, 9)))
    text = world_scene_text(world)
    assert 'path="res://entities/animals/wolf.tscn"' in text
    block = text[text.index('[node name="w1"'):text.index('[node name="w2"')]
    assert 'activation = PoolStringArray( "within_radius" )' in block and "hits_to_ko = 3" in block
    assert "water_height_m = -1000000" in block
    seeds = re.findall(r"^rng_seed = (\d+)$", text, re.M)
    assert len(seeds) == 2 and seeds[0] != seeds[1]
    other = re.findall(r"^rng_seed = (\d+)$", world_scene_text(_world(*world.entities, seed=1)), re.M)
    assert other != seeds  # the world seed reseeds them


def test_placement_is_deterministic_avoids_the_spawn_and_clusters_near_food():
    food = [Entity(kind="apple", name=f"apple{k}", position=(x, 0.15, z)) for k, (x, z) in enumerate([(30, 30), (-30, 20)])]
    world = _world(*food)
    species = list(animals.ANIMAL_KINDS)
    first = place_animals(world, np.random.default_rng(4), species)
    assert first.animals == place_animals(world, np.random.default_rng(4), species).animals
    assert first.animals != place_animals(world, np.random.default_rng(5), species).animals
    assert [a.kind for a in first.animals] == species and len({a.name for a in first.animals}) == 17
    for animal in first.animals:
        assert math.hypot(animal.position[0], animal.position[2]) >= 10.0 and abs(animal.position[0]) <= 49
    clustered = place_animals(world, np.random.default_rng(4), species, near_food=True)
    for animal in clustered.animals:
        nearest = min(math.hypot(animal.position[0] - f.position[0], animal.position[2] - f.position[2]) for f in food)
        assert nearest <= CLUSTER_RADIUS_M + 1e-9
    with pytest.raises(ValueError, match="no food to cluster"):
        place_animals(_world(), np.random.default_rng(0), ["wolf"], near_food=True)
    with pytest.raises(ValueError, match="cluster_radius_m -1"):
        place_animals(world, np.random.default_rng(0), ["wolf"], cluster_radius_m=-1.0)


def test_on_an_island_ground_animals_start_on_dry_land():
    from avalon.tasks import build_world
    from avalon.tasks.kit.assembly import OutdoorTaskConfig

    world = build_world("eat", 0.5, 1, OutdoorTaskConfig(world_size="small"))
    heightmap = world.ground.heightmap
    placed = place_animals(world, np.random.default_rng(0), list(animals.ANIMAL_KINDS) * 3)
    for animal in placed.animals:
        spec = animals.ANIMALS[animal.kind]
        x, y, z = animal.position
        if spec.domain == "ground":
            assert float(heightmap.height_at(x, z)) > heightmap.water_height_m
        assert y - spec.size_m[1] / 2 >= float(heightmap.height_at(x, z)) - 1e-6


def test_animal_achievements_exist_for_every_species():
    for species in animals.ANIMAL_KINDS:
        assert f"hit_{species}" in ACHIEVEMENTS and f"kill_{species}" in ACHIEVEMENTS
    assert {f"escaped_{s}" for s in animals.PREDATOR_KINDS} <= set(ACHIEVEMENTS) and "eat_prey" in ACHIEVEMENTS
    assert not {f"escaped_{s}" for s in animals.PREY_KINDS} & set(ACHIEVEMENTS)
