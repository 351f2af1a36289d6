"""``NetworkConfig``, the sizes of the actor-critic network any algorithm may use, the argument
checks of the trainers' configs (``avalon.agent.ppo.config`` uses them too) and
:class:`ActorCriticConfigBase`, what PPO's and IMPALA's configs share."""

from __future__ import annotations

from typing import Any

import attr

from avalon.errors import int_validator, is_int_in, number_validator

_positive_number = number_validator(above=0)
_non_negative_number = number_validator(low=0)
_optional_non_negative_number = number_validator(low=0, optional=True)
_unit_interval = number_validator(low=0, high=1)
_positive_int = int_validator(low=1)
_optional_positive_int = int_validator(low=1, optional=True)


def _conv_layers(_instance, attribute, value):
    def valid(layer) -> bool:
        return (
            isinstance(layer, tuple)
            and len(layer) == 3
            and all(is_int_in(v, low=1) for v in layer)
        )

    if not isinstance(value, tuple) or not value or not all(valid(layer) for layer in value):
        raise ValueError(
            f"{attribute.name}={value!r} must be a non-empty tuple of (channels, kernel, stride) int triples >= 1"
        )


def _to_layers(value):
    if not isinstance(value, (list, tuple)):
        return value
    return tuple(tuple(layer) if isinstance(layer, (list, tuple)) else layer for layer in value)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class NetworkConfig:
    """Sizes of the actor-critic network (see docs/agent.md for the picture).

    The image encoder is a stack of convolutions with ReLU, one per ``(channels, kernel,
    stride)`` of ``conv_layers``, each padded by ``(kernel - stride + 1) // 2`` so that it divides
    the image side by its stride (rounded up); the output is flattened and projected to
    ``image_features``. The default turns 96 x 96 into 24 x 24 non-overlapping 4 x 4 patches,
    then 12 x 12 and 6 x 6: the cheapest of the CNNs measured on this CPU for its size (a stride-2
    first layer costs twice as much to learn; docs/agent.md). The proprioceptive variables go
    through an MLP of ``proprio_layers`` layers of ``proprio_features`` units. Both are
    concatenated and pass one hidden layer of ``hidden_features`` units shared by the policy and
    value heads.
    """

    #: (output channels, kernel side, stride) of each convolution, in order.
    conv_layers: tuple[tuple[int, int, int], ...] = attr.ib(
        default=((32, 4, 4), (64, 3, 2), (64, 3, 2)), converter=_to_layers, validator=_conv_layers
    )
    #: Units of the linear projection of the flattened convolution output.
    image_features: int = attr.ib(default=256, validator=_positive_int)
    #: Units of each layer of the proprioception MLP.
    proprio_features: int = attr.ib(default=64, validator=_positive_int)
    #: Layers of the proprioception MLP.
    proprio_layers: int = attr.ib(default=2, validator=_positive_int)
    #: Units of the hidden layer shared by the policy and value heads.
    hidden_features: int = attr.ib(default=256, validator=_positive_int)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> "NetworkConfig":
        return cls(**values)


class ActorCriticConfigBase:
    """What the frozen attrs configs of the actor-critic trainers (PPO's, IMPALA's) share: the
    checks of their ``network`` and policy std fields, and their plain-dict form."""

    network: NetworkConfig
    initial_std: float
    min_std: float
    learning_rate: float
    learning_rate_end: float | None

    def learning_rate_at(self, env_steps: int, total_steps: int) -> float:
        """The learning rate of an update that starts at ``env_steps`` of a run of ``total_steps``:
        ``learning_rate`` falling linearly to ``learning_rate_end`` (None: constant)."""
        if self.learning_rate_end is None or total_steps <= 0:
            return self.learning_rate
        done = min(max(env_steps / total_steps, 0.0), 1.0)
        return self.learning_rate + (self.learning_rate_end - self.learning_rate) * done

    def check_network_and_std(self) -> None:
        """Raises ``ValueError`` unless ``network`` is a :class:`NetworkConfig` and ``min_std`` is below ``initial_std``."""
        if not isinstance(self.network, NetworkConfig):
            raise ValueError(f"network={self.network!r} must be a NetworkConfig")
        if self.min_std >= self.initial_std:
            raise ValueError(f"min_std={self.min_std!r} must be below initial_std={self.initial_std!r}")

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values (for checkpoints and logs); :meth:`from_dict` reverses it."""
        values = attr.asdict(self, recurse=True)
        values["network"]["conv_layers"] = [list(layer) for layer in self.network.conv_layers]
        return values

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Any:
        values = dict(values)
        network = values.pop("network", None)
        return cls(**values, network=NetworkConfig.from_dict(network) if network is not None else NetworkConfig())
