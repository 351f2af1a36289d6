"""IMPALA (Espeholt et al. 2018): the pieces built so far. ``vtrace.py``: V-trace targets and
policy-gradient advantages, the off-policy correction the learner applies to actors' unrolls."""
