"""Scoring an evaluation: per-episode files that resume, per-world score files, normalisation
(random agent 0, reference 1; section 5.4 and Appendix M), aggregates with intervals (rliable),
Crafter's score, score against difficulty, the report and its plots, and ``avalon eval compare``.

Built on lists of ``WorldRequest`` and per-world files keyed by ``WorldRequest.folder_name``; the
evaluation sets are reached only through :func:`avalon.evaluation.scoring.sets.set_requests`. See
docs/evaluation.md, "Scoring".
"""
