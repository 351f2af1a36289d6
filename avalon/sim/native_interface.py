"""What ``entities/animals/animal.gd`` and its native ``AnimalBody`` (``native/animal_mind.c``,
``native/animal_body.c``) tell each other: the arguments of its set-up methods, the bits a step
returns and the questions the body asks the script. Codegen writes them into ``godot/generated/protocol.gd`` and
``native/generated/animal_interface.h`` (one source; see docs/native.md).
"""

from __future__ import annotations

#: Bits of what an animal's step leaves to its script (``think`` and ``resume`` return them), or to
#: the body's own next stage (MOVE_REFUSED, MOVE_EYE_NEAR).
STEP_BITS: dict[str, int] = {
    "MOVE_REFUSED": 1,  # the step was refused (water, too steep): a wanderer picks a new target
    "MOVE_QUERY": 2,  # move it with move_and_slide at query_velocity(), then resume
    "MOVE_EYE_NEAR": 4,  # the eye is near enough to its origin that it may see through its mesh
    "THINK_ESCAPED": 8,  # a predator stopped chasing the agent: escaped_<species>
    "THINK_ATTACKED": 16,  # it attacked: the agent loses its attack_damage
    "THINK_KNOCK_OUT": 32,  # it dies of its own attack (a bee's sting): knock it out
    "THINK_SIDES": 64,  # it is to be drawn one-sided, or (with THINK_TWO_SIDED) two-sided
    "THINK_TWO_SIDED": 128,
}

#: What the body asks its script (``animal.gd``: ``_answer``), of what only the scene or the
#: animal's random generator knows.
QUESTIONS: dict[str, int] = {
    "ASK_SEES_ME": 1,  # does the agent see it (camera view, line of sight)?
    "ASK_SEES_AGENT": 2,  # does it see the agent (its field of view, line of sight)?
    "ASK_LINE_TO_HEAD": 3,  # is the line from it to the agent's head clear?
    "ASK_NEW_TARGET": 4,  # a wanderer's next target (Vector3)
}

#: How each argument type is read from its Variant (``native/godot.h``) and the C type it becomes.
ARGUMENT_TYPES: dict[str, tuple[str, str]] = {
    "bool": ("bool", "bool_of"),
    "int": ("int64_t", "int_of"),
    "real": ("double", "real_of"),
    "vector3": ("gdn_vector3", "vector3_of"),
    "object": ("gdn_object *", "object_of"),  # an engine object (a node, a FuncRef)
    "native": ("void *", "native_instance_of"),  # the user data of a native class's instance, or NULL
}

#: The arguments of ``AnimalBody``'s two set-up methods, by name and type, in the order the native
#: library reads them. ``animal.gd`` passes each method one Dictionary keyed by these names, put in
#: this order by the generated list (``godot/generated/protocol.gd``: ``ANIMAL_<METHOD>_ARGUMENTS``);
#: the C side reads them into a generated struct (``native/generated/animal_interface.h``:
#: ``<method>_arguments``, ``read_<method>_arguments``). No order is kept by hand.
METHOD_ARGUMENTS: dict[str, tuple[tuple[str, str], ...]] = {
    # setup (animal_body.c): how it moves on the terrain.
    "setup": (
        ("terrain", "native"),  # the world's TerrainSampler, or null: flat ground, every step by physics
        ("flies", "bool"),
        ("can_climb", "bool"),
        ("half_height_m", "real"),
        ("fly_height_m", "real"),
        ("idle_speed_m_per_s", "real"),
        ("active_speed_m_per_s", "real"),
        ("shore_m", "real"),  # ground lower than this is water
        ("reach_m", "real"),
        ("max_slope", "real"),  # the terrain's steepest slope
        ("origin", "vector3"),
        ("yaw", "real"),
        ("dt", "real"),
        ("water_lookahead_s", "real"),
        ("max_walk_slope", "real"),
        ("height_bound_tolerance_m", "real"),
        ("gravity_m_per_s2", "real"),
        ("climb_speed_factor", "real"),
        ("obstacle_margin_m", "real"),
        ("face_min_speed_m_per_s", "real"),
        ("cos_face_min_turn", "real"),
        ("attack_reach_radius_m", "real"),
        ("agent_radius_m", "real"),
        ("agent_height_m", "real"),
        ("chase_stop_gap_m", "real"),
        ("node", "object"),  # the animal, whose transform the body writes
        ("eye_near_sq", "real"),
    ),
    # setup_mind (animal_mind.c): its state machine, after setup.
    "setup_mind": (
        ("answers", "object"),  # a FuncRef to the script's _answer
        ("state_active", "int"),  # the protocol's animal states
        ("state_knocked_out", "int"),
        ("state_idle", "int"),
        ("state_respite", "int"),
        ("state_avoiding", "int"),
        ("avoid_margin_m", "real"),
        ("path_radius_m", "real"),
        ("wander_arrived_m", "real"),
        ("still_speed_m_per_s", "real"),
        ("out_of_reach_height_m", "real"),
        ("attack_reach_m", "real"),
        ("attack_interval_s", "real"),
        ("steps_per_second", "real"),
        ("retarget_frames", "int"),
        ("is_predator", "bool"),
        ("never_activates", "bool"),
        ("act_territory", "bool"),  # activation: within_territory
        ("act_must_see", "bool"),  # must_see_you
        ("act_unseen", "bool"),  # you_dont_see_it
        ("de_radius", "bool"),  # deactivation: outside_radius
        ("de_territory", "bool"),  # outside_territory
        ("de_domain", "bool"),  # outside_domain
        ("de_seen", "bool"),  # you_see_it
        ("de_still", "bool"),  # you_stop_moving
        ("de_cant_see", "bool"),  # cant_see_you
        ("avoidant", "bool"),  # idle: static_avoidant
        ("random", "bool"),  # fast or slow random
        ("periodic", "bool"),  # periodic fixed
        ("respite_temporary", "bool"),
        ("respite_permanent", "bool"),
        ("activation_radius_m", "real"),
        ("deactivation_radius_m", "real"),
        ("territory_radius_m", "real"),
        ("respite_s", "real"),
        ("home", "vector3"),
        ("box_position", "vector3"),  # the mesh's bounds, in its frame
        ("box_end", "vector3"),
        ("near_eye_m", "real"),
        ("path_angle", "real"),
    ),
}


def _check_method_arguments() -> None:
    for method, arguments in METHOD_ARGUMENTS.items():
        names = [name for name, _ in arguments]
        if len(set(names)) != len(names):
            raise ValueError(f"{method}: two arguments share a name: {names}")
        for name, kind in arguments:
            if kind not in ARGUMENT_TYPES:
                raise ValueError(f"{method}: argument {name!r} has type {kind!r}, expected one of {tuple(ARGUMENT_TYPES)}")


_check_method_arguments()
