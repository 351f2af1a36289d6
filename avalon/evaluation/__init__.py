"""Evaluation: a policy on a list of worlds, its results and their scores, and the versioned sets.

- :mod:`avalon.evaluation.worlds`: the worlds of an evaluation on fresh worlds;
  :mod:`avalon.evaluation.policies`: what a policy is, and the random baseline;
  :mod:`avalon.evaluation.runner`: episodes in parallel, reruns after simulator crashes, the video;
  :mod:`avalon.evaluation.results`: per-episode and per-world results, the success rule, tables.
- :mod:`avalon.evaluation.scoring`: ``avalon eval``: resumable runs, normalisation, aggregates, reports.
- :mod:`avalon.evaluation.sets`: versioned evaluation sets, their manifests and score files.
"""
