extends Reference
# Loads a world folder written by avalon/datagen/export: world.tscn with a SpawnPoint node, and
# the data files its terrain and scenery nodes build themselves from.

static func load_world(world_dir):
	var scene_path = world_dir.plus_file("world.tscn")
	var directory = Directory.new()
	if not directory.dir_exists(world_dir):
		return {"error": "world folder %s does not exist" % world_dir}
	if not directory.file_exists(scene_path):
		return {"error": "world folder %s has no world.tscn" % world_dir}
	# No cache: a folder may be regenerated in place between episodes.
	var packed = ResourceLoader.load(scene_path, "PackedScene", true)
	if packed == null or not packed is PackedScene:
		return {"error": "%s could not be parsed as a Godot scene" % scene_path}
	var scene = packed.instance()
	if scene == null:
		return {"error": "%s could not be instanced" % scene_path}
	var spawn = scene.get_node_or_null("SpawnPoint")
	if spawn == null or not spawn is Spatial:
		scene.free()
		return {"error": "%s has no SpawnPoint node" % scene_path}
	# Terrain and scenery build themselves from data files beside the scene.
	for child in scene.get_children():
		if child.has_method("load_data"):
			var error = child.load_data(world_dir)
			if error != "":
				scene.free()
				return {"error": error}
	return {"error": "", "scene": scene, "spawn": spawn.transform}
