"""Bridges to other libraries' training frameworks. Each submodule imports its library, so
``import avalon.integrations`` alone imports none of them.

- :mod:`avalon.integrations.rllib`: RLlib (Ray 2.x, new API stack): an env creator for
  ``tune.register_env`` and an RLModule spec with the project's encoder (``docs/rllib.md``).
"""
