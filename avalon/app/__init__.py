"""The application layer: the ``avalon`` command, one module per command group, each with the
orchestration it calls (:mod:`avalon.app.main` assembles them). Nothing below imports it."""
