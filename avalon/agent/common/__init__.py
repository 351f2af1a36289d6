"""What every training algorithm shares (an algorithm's own package imports these; nothing here
imports an algorithm): observation encoding (``observations``), network pieces (``network``,
``config``: ``NetworkConfig``), distributions over the Dict action space (``distributions``),
episode bookkeeping and the episode log (``episodes``), the checkpoint format naming its
algorithm (``checkpoint``), the policy a checkpoint becomes (``policy``), and the training loop's
shared parts (``loop``: resume, seeding, checkpoints, stop on SIGINT/SIGTERM; ``timers``;
``reporting``: TensorBoard and the progress bar; ``stopping``).
"""
