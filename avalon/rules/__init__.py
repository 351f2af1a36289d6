"""What exists in the game, as frozen tables: the agent's constants (``mechanics``), the foods
(``foods``: ``FoodSpec`` rows), the tools (``tools``: ``ToolSpec`` rows) and the animals
(``animals``: ``AnimalSpec`` rows). The bottom layer: it imports nothing else of ``avalon``;
``avalon.dev.codegen`` writes the Godot scenes and constants from it.
"""
