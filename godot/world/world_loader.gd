extends Reference
# Loads a world folder written by avalon/datagen/export.py: world.tscn with a SpawnPoint node.

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
		return {"error": "%s could not be parsed as a Godot scene (the Godot log says why)" % scene_path}
	var scene = packed.instance()
	if scene == null:
		return {"error": "%s could not be instanced (the Godot log says why)" % scene_path}
	var spawn = scene.get_node_or_null("SpawnPoint")
	if spawn == null or not spawn is Spatial:
		scene.free()
		return {"error": "%s has no SpawnPoint node" % scene_path}
	return {"error": "", "scene": scene, "spawn": spawn.transform}
