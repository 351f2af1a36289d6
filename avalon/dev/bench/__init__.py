"""The benchmarks: each module with a ``main(argv, prog)`` is run by ``avalon benchmark NAME``
(its row in :data:`avalon.app.benchmark.BENCHMARKS`); ``stats``, ``animal_worlds`` and
``moving_items`` are pieces they share."""
