"""DreamerV2's presets (``avalon train dreamer --preset cpu|gpu``; :mod:`avalon.agent.common.presets`).

``gpu`` is the paper's Table 7 (Dreamer column) with DreamerV2's own network sizes, 96 px.
``cpu`` is what learned eat fastest here on 2 cores (docs/agent.md, "Presets"). Light on purpose
(no torch): the registry reads them when ``avalon``'s parser is built.
"""

from avalon.agent.common.presets import CPU, GPU, Preset

TABLE_7 = Preset(
    name=GPU,
    summary="the paper's Table 7 and DreamerV2's network sizes, for a GPU machine",
    run={"envs": 2, "resolution": 96, "difficulty_step": 6e-4},
    config={
        "model_learning_rate": 1e-4, "critic_learning_rate": 1e-4, "actor_learning_rate": 1e-5, "adam_epsilon": 1e-5,
        "weight_decay": 1e-6, "max_grad_norm": 100.0, "entropy_cost": 2e-3, "discount": 0.99, "return_lambda": 0.95,
        "batch_size": 116, "unroll": 30, "horizon": 15, "deter_size": 600, "stoch_size": 32, "rssm_hidden": 600,
        "cnn_depth": 48, "cnn_layers": 4, "mlp_units": 400, "mlp_layers": 4, "continuous_entropy_cost": None,
    },
    for_gpu=True,
)

#: Each value's reason (docs/agent.md, "DreamerV2 learning eat on a CPU"): 32 px and networks about
#: 1/40 of DreamerV2's make an update 0.6 s here; 10 steps of each simulator between updates (a
#: train ratio of 16 replayed steps per env step) keep the simulators busy half the time; larger
#: learning rates for so few updates; DreamerV2's entropy costs by kind of action: 1e-3 on the
#: choices, which with 1e-4 collapsed onto what the world model could not tell apart (throwing the
#: food), 1e-4 on the continuous values, whose std Table 7's 2e-3 held at its bound of 1.
FAST_ON_CPU = Preset(
    name=CPU,
    summary="what learns eat fastest on a 2-core CPU",
    run={"envs": 2, "resolution": 32, "difficulty_step": 6e-4},
    config={
        "batch_size": 16, "unroll": 20, "deter_size": 128, "rssm_hidden": 128, "stoch_size": 16, "cnn_depth": 16,
        "cnn_layers": 3, "mlp_units": 128, "mlp_layers": 2, "collect_steps": 10, "prefill_steps": 2000,
        "model_learning_rate": 3e-4, "actor_learning_rate": 1e-4, "critic_learning_rate": 1e-4, "entropy_cost": 1e-3,
        "continuous_entropy_cost": 1e-4, "replay_gb": 2.0,
    },
)

PRESETS = (FAST_ON_CPU, TABLE_7)
