"""The ``carry`` task: another task's world whose items lie away from where they are used.

Paper, Appendix F.1: "carry spawns a task world that requires objects from one of throw, fight,
stack, or bridge, and then moves the objects a distance away from where they would normally spawn.
Thus, the agent must carry the object to the location where it will be used. As difficulty
increases, objects spawn farther away and must be found and carried a longer distance."

Carry's base tasks are the tasks whose spec names a carry variant (``TaskSpec.carry_variant``, a
:class:`~avalon.tasks.kit.carrying.CarryVariant`: which items move and where they are used, how
they are laid out at a distance, the way they are carried and the base task's certificate of the
world as it is); :func:`base_tasks` reads them from the registry, in the order the variants
declare for carry's draw (``CarryVariant.draw_position``). A world draws its base task from its
rng (``Forcing("base_task", ...)`` pins it), builds the base task's layout with the base task's
own generator (its spec's ``generate``) at ``base_difficulty`` (0: its easiest world, where its
items already stand in place), and has the variant move the items ``carry_distance_m`` away: the
difficulty sets only that (:data:`KNOBS`), so the carrying is what gets harder. Plants are cleared
from each moved item's footprint and from the way it is carried.

Every world is certified at generation (:func:`check_carry`): the base task's certificate holds
on the world as it is (its item halves with the items at their place of use), and every moved item
is at least the knob's distance from its place, on ground the spawn walks to (out of the
predators' reach where the variant keeps out of it), with room to walk round it to both its ends,
and from it the agent walks to where it is used (:func:`~avalon.tasks.kit.carrying.carry_reasons`).
docs/tasks/carry.md describes each variant.
"""

from __future__ import annotations

import functools
from typing import Any, Mapping, Optional

import attr
import numpy as np

from avalon import errors as check
from avalon.datagen.world import World
from avalon.rules import mechanics
from avalon.tasks.kit import ImpossibleWorldError, carrying
from avalon.tasks.kit.assembly import TIME_LIMIT_FRAMES, resolve_config
from avalon.tasks.kit.carrying import CarryVariant, ItemUse
from avalon.tasks.kit.certificate import Certificate
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.forcing import Forcing
from avalon.tasks.kit.spec import TaskSpec, resolve_reference


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class CarryKnobs:
    """Every factor of a carry world that the difficulty d in [0, 1] sets (docs/tasks/carry.md quotes it).
    Bands are drawn from uniformly."""

    #: The base task's world is built at this difficulty (0: its easiest, where its items stand in
    #: place; carrying them there is what gets harder).
    base_difficulty: Ramp = Ramp(0.0)
    #: Horizontal distance from each moved item's centre to its centre at its place of use, metres
    #: (10-12 m at d = 0, 20-24 m at 1: the far side of bridge's ring).
    carry_distance_m: Band = Band(Ramp(10.0, 10.0), Ramp(12.0, 12.0))
    #: Training episodes are truncated after this many seconds (60 s at d = 0, 240 s at 1): a few
    #: times fetching the items, carrying them up to 24 m and using them take.
    training_time_limit_s: Ramp = Ramp(60.0, 180.0)


#: The carry task's difficulty curves.
KNOBS = CarryKnobs()
#: A carry world's own time limit: ten minutes (paper, Appendix G.3).
CARRY_TIME_LIMIT_FRAMES = 10 * 60 * mechanics.STEPS_PER_SECOND


# --- the base tasks -------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class BaseTask:
    """A task whose spec names a carry variant, as carry draws it."""

    name: str
    spec: TaskSpec
    variant: CarryVariant

    def certify(self, world: World, layout: Any) -> Certificate:
        """The base task's certificate of ``world`` as it is: the variant's, else the spec's own."""
        if self.variant.certify is not None:
            return self.variant.certify(world, layout)
        return self.spec.certificate(world)


def order_base_tasks(specs: Mapping[str, TaskSpec]) -> tuple[BaseTask, ...]:
    """The tasks of ``specs`` whose spec names a carry variant, in carry's draw order; ``ValueError``
    naming the task whose reference is no ``CarryVariant`` or that has no certificate, or the draw
    positions when they do not run from 0, each once."""
    found = []
    for name, spec in specs.items():
        if spec.carry_variant is None:
            continue
        variant = resolve_reference(spec.carry_variant)
        if not isinstance(variant, CarryVariant):
            raise ValueError(f"TaskSpec(name={name!r}).carry_variant={spec.carry_variant!r} names a "
                             f"{type(variant).__name__}: expected a CarryVariant")
        if variant.certify is None and spec.certificate is None:
            raise ValueError(f"TaskSpec(name={name!r}): its carry variant has no certify and the task no certificate")
        found.append(BaseTask(name=name, spec=spec, variant=variant))
    found.sort(key=lambda base: base.variant.draw_position)
    positions = [base.variant.draw_position for base in found]
    if positions != list(range(len(found))):
        named = ", ".join(f"{base.name} {base.variant.draw_position}" for base in found)
        raise ValueError(f"the carry variants' draw positions ({named}): expected 0 to {len(found) - 1}, each once")
    return tuple(found)


@functools.lru_cache(maxsize=None)
def base_tasks() -> tuple[BaseTask, ...]:
    """Carry's base tasks: every registered task whose spec names a carry variant, in draw order."""
    from avalon.tasks import TASKS  # the registry imports this module

    return order_base_tasks(TASKS)


def base_task_names() -> tuple[str, ...]:
    """The names of carry's base tasks, in name order (the values ``Forcing("base_task")`` takes)."""
    return tuple(sorted(base.name for base in base_tasks()))


def base_task_named(name: str) -> BaseTask:
    """The base task named ``name``; ``ValueError`` listing the base tasks if there is none."""
    for base in base_tasks():
        if base.name == name:
            return base
    return check.refuse("base_task", name, f"one of {', '.join(base_task_names())}")


# --- the certificate ------------------------------------------------------------------------------


def check_carry(world: World, base: BaseTask, base_layout: Any, uses: tuple[ItemUse, ...],
                min_distance_m: float) -> Certificate:
    """The base task's certificate of ``world`` (its item halves with the items at their place of
    use), failing too when :func:`~avalon.tasks.kit.carrying.carry_reasons` finds a moved item that
    breaks carry's guarantee."""
    certified = base.certify(world, base_layout)
    reasons = carrying.carry_reasons(world, uses, min_distance_m, base.variant.keep_out(world))
    if not reasons:
        return certified
    return attr.evolve(certified, solvable=False, route=None,
                       reason="; ".join(([certified.reason] if certified.reason else []) + reasons))


# --- the task -------------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class CarryLayout:
    """A carry world and what was chosen for it."""

    world: World
    base_task: BaseTask
    #: The base task's layout (its world with the items in their base places).
    base: Any
    uses: tuple[ItemUse, ...]
    certificate: Certificate


def build_layout(rng: np.random.Generator, difficulty: float, config: Optional[object] = None,
                 forced: Optional[Mapping[str, str]] = None) -> CarryLayout:
    """The carry world for ``difficulty`` and what was chosen; ``forced`` may pin ``base_task`` (it
    is drawn all the same). Raises ``ImpossibleWorldError`` when the draws cannot keep the guarantees."""
    config = resolve_config(config)
    if config.time_limit_frames == TIME_LIMIT_FRAMES:  # the config's default, the five-minute tasks' limit
        config = attr.evolve(config, time_limit_frames=CARRY_TIME_LIMIT_FRAMES)
    bases = base_tasks()
    base = bases[int(rng.integers(len(bases)))]  # drawn even when forced: the later draws stay
    if (forced or {}).get("base_task") is not None:
        base = base_task_named(forced["base_task"])
    carry_rng = np.random.default_rng(int(rng.integers(2**63)))
    base_layout = base.spec.generate(rng, KNOBS.base_difficulty.at(difficulty), config)
    variant = base.variant
    uses = variant.uses(base_layout)
    band = KNOBS.carry_distance_m.at(difficulty)
    try:
        moved = variant.relocate(carry_rng, base_layout, uses, band)
    except ImpossibleWorldError as error:
        raise ImpossibleWorldError(f"carry ({base.name}): {error}") from error
    world = attr.evolve(base_layout.world,
                        entities=tuple(moved.get(entity.name, entity) for entity in base_layout.world.entities))
    discs = [disc for item in moved.values() for disc in carrying.footprint_discs(item)]
    world = carrying.clear_plants(world, discs + variant.carry_corridor(base_layout, moved))
    certified = check_carry(world, base, base_layout, uses, band[0])
    if not certified.ok:
        raise ImpossibleWorldError(f"carry ({base.name}): {certified.reason}")
    return CarryLayout(world=world, base_task=base, base=base_layout, uses=uses, certificate=certified)


def layout_of(world: World) -> CarryLayout:
    """The layout of a carry world, rebuilt from its seed with ``build_world``'s retry rule and the
    default config: unforced, or else forced to the base task whose items it holds (a forced world
    may come from another attempt than the unforced one: an attempt that failed for the drawn
    base task may work for the forced one); ``ValueError`` for another task's world or one made
    with another config."""
    from avalon.tasks import with_retries  # the registry imports this module

    if world.task != "carry":
        check.refuse("world.task", world.task, "'carry'")
    kinds = {entity.kind for entity in world.entities}
    candidates = [None] + [{"base_task": base.name} for base in base_tasks() if set(base.variant.item_kinds) <= kinds]
    for forced in candidates:
        layout = with_retries(lambda rng, pinned=forced: build_layout(rng, world.difficulty, forced=pinned), "carry",
                              world.difficulty, world.seed)
        if layout.world.spawn_position == world.spawn_position and set(layout.base_task.variant.item_kinds) <= kinds:
            return layout
    raise ValueError(f"the carry world of difficulty {world.difficulty} and seed {world.seed} is not one its seed builds "
                     f"for any base task ({', '.join(base_task_names())}): was it made with another config?")


def certificate(world: World) -> Certificate:
    """The solvability certificate of a carry world (see the module doc)."""
    layout = layout_of(world)
    return check_carry(world, layout.base_task, layout.base, layout.uses, KNOBS.carry_distance_m.at(world.difficulty)[0])


TASK = TaskSpec(
    name="carry", generate=build_layout, knobs=KNOBS, certificate=certificate,
    evaluation_time_limit_frames=CARRY_TIME_LIMIT_FRAMES,
    food_visible_from_spawn=False, food_reachable_on_foot=False,  # a base world's food may stand on a plateau
    forcing=(Forcing("base_task", base_task_names),),
    table_row=16, in_sets_from_version=3, reference_agent="avalon.agent.scripted.carry_task:carry_follower",
)
