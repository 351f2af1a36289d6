extends Reference
# The animals of one episode (entities/animals/animal.gd), driven by the simulation: each step,
# after the agent has moved, every animal thinks and moves in scene order; after the physics
# step their hits are counted. Collects what the simulation needs: the energy lost to attacks,
# achievements (hit_, kill_, escaped_) and the ground-truth `animals` feature.

const P = preload("res://generated/protocol.gd")

var animals = []  # in scene order
var attack_damage = 0.0  # energy lost to attacks this step
var _previous_feet = Vector3.ZERO
var _agent = {"feet": Vector3.ZERO, "head": Vector3.ZERO, "speed": 0.0, "camera": null, "exclude": []}


func setup(world_root, terrain, player):
	animals = []
	attack_damage = 0.0
	var entities = world_root.get_node_or_null("Entities")
	if entities != null:
		for node in entities.get_children():
			if node.is_in_group("animals"):
				node.terrain = terrain
				animals.append(node)
				# Animals and the agent pass through each other: Bullet resolves a kinematic body
				# against the other's position before this step's move, which held chasers a
				# step behind a running agent. Animals keep their distance by themselves.
				for part in [player.body] + player.hands:
					node.add_collision_exception_with(part)
					part.add_collision_exception_with(node)
	_previous_feet = player.body.global_transform.origin
	_agent.camera = player.head.get_node("Camera")


func prey_count():
	var count = 0
	for animal in animals:
		if not animal.is_predator:
			count += 1
	return count


func step(player, dt):
	attack_damage = 0.0
	if animals.empty():
		return
	var feet = player.body.global_transform.origin
	_agent.feet = feet
	_agent.head = player.head.global_transform.origin
	_agent.speed = Vector2(feet.x - _previous_feet.x, feet.z - _previous_feet.z).length() / dt
	_agent.exclude = player.mechanics.agent_and_held_rids()
	_previous_feet = feet
	for animal in animals:
		animal.think(_agent, dt)
		attack_damage += animal.damage_dealt
		if animal.escaped:
			player.mechanics.unlock("escaped_" + animal.species)


func after_physics(mechanics):
	for animal in animals:
		animal.after_physics()
		if animal.hit_now:
			mechanics.unlock("hit_" + animal.species)
		if animal.killed_now:
			mechanics.unlock("kill_" + animal.species)


func write_features(features):
	for slot in range(P.MAX_REPORTED_ANIMALS):
		var offset = P.F_ANIMALS + slot * P.ANIMAL_STATE_FIELD_COUNT
		if slot >= animals.size():
			features[offset + 3] = float(P.STATE_ABSENT)
			for k in [0, 1, 2, 4]:
				features[offset + k] = 0.0
			continue
		var animal = animals[slot]
		var position = animal.reported_position()
		features[offset] = position.x
		features[offset + 1] = position.y
		features[offset + 2] = position.z
		features[offset + 3] = float(animal.reported_state())
		features[offset + 4] = float(animal.hits)
