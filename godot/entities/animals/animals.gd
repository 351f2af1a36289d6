extends Reference
# The animals of one episode (entities/animals/animal.gd), driven by the simulation: each step,
# after the agent has moved, every animal thinks and moves in scene order; after the physics
# step their hits are counted. Collects what the simulation needs: the energy lost to attacks,
# achievements (hit_, kill_, escaped_) and the ground-truth `animals` feature (each animal keeps
# its slot up to date: animal.gd, join).

const Protocol = preload("res://generated/protocol.gd")
const Animal = preload("res://entities/animals/animal.gd")
const AnimalMaterials = [preload("res://entities/animals/animal_material.tres"),
		preload("res://entities/animals/animal_material_two_sided.tres")]
const Terrain = preload("res://world/terrain.gd")

var animals = []  # in scene order
var _bodies = []  # their AnimalBodies (animal.gd), in the same order
var attack_damage = 0.0  # energy lost to attacks this step
var _previous_feet = Vector3.ZERO
var _struck = []  # the animals hit in this step's physics (animal.gd: on_hit)
var _down = []  # the knocked-out animals (animal.gd: knock_out)
var _clock = [0]  # [the step of the episode, from 1]: the animals' cooldowns end at a step (animal.gd)
var _agent = {"feet": Vector3.ZERO, "head": Vector3.ZERO, "speed": 0.0, "camera": null, "holds": null, "exclude": null,
		"escaped": []}  # what the animals see of the agent this step (animal.gd: _answer, after_think)


# Finds the animals of the world and readies them for the episode; their slots of the `animals`
# feature are in `features` (the simulation's, kept from step to step). Returns "" or what went
# wrong.
func setup(world_root, terrain, player, features):
	animals = []
	_bodies = []
	attack_damage = 0.0
	var terrain_body = null  # the height field collider: animals use the surface height instead (animal.gd)
	if terrain != null:
		for child in terrain.get_children():
			if child is PhysicsBody and child.is_in_group("terrain"):
				terrain_body = child
	var buildings = world_root.get_node_or_null("Buildings")  # world/buildings.gd
	var footprints = buildings.footprints if buildings != null else []
	var entities = world_root.get_node_or_null("Entities")
	if entities != null:
		for node in entities.get_children():
			if node.is_in_group("animals"):
				var error = node.set_terrain(terrain)
				if error == "":
					error = node.keep_out_of(footprints)
				if error != "":
					return error
				animals.append(node)
				_bodies.append(node._body)
				# Animals and the agent pass through each other: Bullet resolves a kinematic body
				# against the other's position before this step's move, which held chasers a
				# step behind a running agent. Animals keep their distance by themselves.
				for part in [player.body] + player.hands:
					node.add_collision_exception_with(part)
					part.add_collision_exception_with(node)
				if terrain_body != null:
					node.add_collision_exception_with(terrain_body)
	# Nor do animals collide with each other, for the same reason (each moves in turn, against
	# the others' positions before theirs). It also spares Bullet's costly recovery from the
	# overlaps of a crowd around the agent.
	for i in range(animals.size()):
		for j in range(i + 1, animals.size()):
			animals[i].add_collision_exception_with(animals[j])
			animals[j].add_collision_exception_with(animals[i])
	# The animals' materials share the static world's shader; they take this world's fog from the
	# terrain's (none: the shader's defaults, no fog).
	for material in AnimalMaterials:
		Terrain.copy_fog(terrain.static_material if terrain != null else null, material)
	if terrain != null and not animals.empty():
		var error = _set_obstacles(terrain, entities)
		if error != "":
			return error
	_previous_feet = player.body.global_transform.origin
	_agent.camera = player.head.get_node("Camera")
	_agent.holds = player.mechanics.holds
	_join(features)
	return ""


# Hands each animal its slot of the `animals` feature; the slots past the last animal are marked
# absent (they never change).
func _join(features):
	var stride = Protocol.ANIMAL_STATE_FIELD_COUNT
	for slot in range(Protocol.MAX_REPORTED_ANIMALS):
		var offset = Protocol.F_ANIMALS + slot * stride
		if slot < animals.size():
			animals[slot].join(features, offset, _struck, _down, _clock, _agent)
		else:
			for k in range(stride):
				features[offset + k] = 0.0
			features[offset + 3] = float(Protocol.STATE_ABSENT)
	var scratch = []  # for the animals past MAX_REPORTED_ANIMALS, whose state is not reported
	scratch.resize(stride)
	for i in range(Protocol.MAX_REPORTED_ANIMALS, animals.size()):
		animals[i].join(scratch, 0, _struck, _down, _clock, _agent)



# The clearance of each cell of the terrain's grid from the static obstacles: tree trunks
# of the terrain and static bodies among the entities (boxes), each a vertical cylinder (a box:
# its bounding sphere's). A cell's value is the least horizontal distance from any point of the
# cell to an obstacle's surface, for obstacles within OBSTACLE_MARGIN_M of the cell (a cell with
# none holds OBSTACLE_MARGIN_M), with the obstacles near each cell that has some, [x, z, radius]
# after one another. Animals move with physics queries only when a step could bring them near one
# of these (native/animal_body.c); the terrain's sampler keeps both for them. Returns "" or what
# went wrong.
func _set_obstacles(terrain, entities):
	var cell = terrain.cell_size_m
	var cols = terrain.cols - 1
	var rows = terrain.rows - 1
	var grid = PoolRealArray()
	grid.resize(rows * cols)
	for i in range(grid.size()):
		grid[i] = Protocol.OBSTACLE_MARGIN_M
	var near_obstacles = {}  # cell -> PoolRealArray of [x, z, radius] after one another
	var obstacles = []  # [x, z, radius]
	obstacles += terrain.tree_obstacles
	if entities != null:
		for node in entities.get_children():
			if node is StaticBody:
				var size = node.get("size")
				var extent = size.length() / 2.0 if size is Vector3 else 1.0  # whatever its rotation
				obstacles.append([node.global_transform.origin.x, node.global_transform.origin.z, extent])
	var half = terrain.size_m / 2.0
	for obstacle in obstacles:
		var reach = obstacle[2] + Protocol.OBSTACLE_MARGIN_M
		var c0 = int(max(0.0, floor((obstacle[0] - reach + half) / cell)))
		var c1 = int(min(cols - 1, floor((obstacle[0] + reach + half) / cell)))
		var r0 = int(max(0.0, floor((obstacle[1] - reach + half) / cell)))
		var r1 = int(min(rows - 1, floor((obstacle[1] + reach + half) / cell)))
		for r in range(r0, r1 + 1):
			# (the nearest point of the cell to the obstacle's axis, per axis)
			var dz = max(0.0, max(r * cell - half - obstacle[1], obstacle[1] - ((r + 1) * cell - half)))
			for c in range(c0, c1 + 1):
				var index = r * cols + c
				var dx = max(0.0, max(c * cell - half - obstacle[0], obstacle[0] - ((c + 1) * cell - half)))
				grid[index] = max(0.0, min(grid[index], sqrt(dx * dx + dz * dz) - obstacle[2]))
				var near = near_obstacles.get(index, PoolRealArray())
				near.append(obstacle[0])
				near.append(obstacle[1])
				near.append(obstacle[2])
				near_obstacles[index] = near  # (a PoolRealArray is copied on write)
	var runs = PoolRealArray()  # [cell, count, x, z, radius, ...] per cell with obstacles near
	for index in near_obstacles:
		var near = near_obstacles[index]
		runs.append(index)
		runs.append(near.size() / 3)
		runs.append_array(near)
	if not terrain.sampler.set_obstacles(grid, runs):
		return "the native TerrainSampler refused the obstacle grid: " + Animal.NATIVE_LIBRARY_STALE
	return ""


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
	_agent.exclude = null  # the agent's and held items' RIDs, once an animal needs them (animal.gd: _clear_line)
	_previous_feet = feet
	var eye = _agent.camera.global_transform.origin
	var escaped = _agent.escaped
	var now = _clock[0] + 1
	_clock[0] = now
	var speed = _agent.speed
	var damage = 0.0
	var bodies = _bodies
	for i in range(bodies.size()):
		# Its state machine and step (native/animal_mind.c); the script acts on the bits it returns.
		var code = bodies[i].think(feet, eye, speed, now)
		if code != 0:
			damage += animals[i].after_think(code)
	attack_damage = damage
	if not escaped.empty():
		for species in escaped:
			player.mechanics.achievements.unlock("escaped_" + species)
		escaped.clear()


# After the physics step: the hits it brought (to the animals in `_struck`, in the order struck).
func after_physics(achievements):
	if _struck.empty():
		return
	for animal in _struck:
		var outcome = animal.after_physics()
		if outcome != Animal.NOT_HIT:
			achievements.unlock("hit_" + animal.species)
			if outcome == Animal.KNOCKED_OUT:
				achievements.unlock("kill_" + animal.species)
	_struck.clear()


# Brings the `animals` feature up to date: the animals write their own slots as they change
# (animal.gd: join), but for the knocked out, whose bodies fall, are carried and eaten.
func write_features():
	for animal in _down:
		animal.write_feature()
