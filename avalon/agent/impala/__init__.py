"""IMPALA (Espeholt et al. 2018; the paper's section 6.2, Table 7) on Ray actors.

``config`` (``IMPALAConfig``), ``vtrace`` (the off-policy targets), ``learner`` (one update),
``actor`` (a Ray actor stepping its simulators with a copy of the policy), ``pool`` (the actors
seen from the driver: Ray's lifecycle, one request outstanding per actor, restarts), ``trainer``
(``train_impala``, on the common training loop) and ``policy`` (a checkpoint as a policy).

Light on purpose (no torch, no Ray): the registry reads ``NAME`` when ``avalon``'s parser is built.
"""

#: The algorithm's name: ``avalon train impala``, and the ``"algorithm"`` of its checkpoints.
NAME = "impala"
