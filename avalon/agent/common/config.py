"""``NetworkConfig``, the sizes of the actor-critic network any algorithm may use, and the
argument checks of the trainers' configs (``avalon.agent.ppo.config`` uses them too)."""

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
