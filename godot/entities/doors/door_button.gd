extends StaticBody
# A door's button (a lock of avalon/rules/doors.py; entities/doors/button.tscn): touched by a hand
# or the body (agent/loose_items.gd calls pushed_by_agent), it unlocks its door (door.gd) for
# BUTTON_UNLOCK_S seconds; its colour shows whether it does.

const DoorMesh = preload("res://entities/doors/door_mesh.gd")

export var kind = "button"
export var size = Vector3(0.16, 0.16, 0.06)
export var color = Color(0.85, 0.1, 0.1)  # while it locks
export var unlocked_color = Color(0.1, 0.8, 0.2)
export var height_m = 1.2
export var travel = 0.0
export var unlocked_from = 0.0

var door  # door.gd
var _mesh


func _ready():
	add_child(DoorMesh.box_shape(Vector3.ZERO, size))
	_mesh = DoorMesh.mesh_instance([[Vector3.ZERO, size, Color(1, 1, 1)]])
	add_child(_mesh)
	show_unlocked(false)


func show_unlocked(unlocked):
	_mesh.material_override.albedo_color = unlocked_color if unlocked else color


func pushed_by_agent(_normal, _velocity, _exclude):
	door.press_button()
