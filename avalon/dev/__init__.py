"""The developer layer: code generation (``python -m avalon.dev.codegen``, ``make generate``), the
benchmarks (:mod:`avalon.dev.bench`, run by ``avalon benchmark NAME``) and the carry pictures of the
docs. It may use every other layer, the application's included; nothing imports it."""
