"""The building blocks of DreamerV2's networks: MLPs, the RGBD convolutional encoder and decoder,
and the world model's input form of a flat action. ELU activations, as DreamerV2."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from avalon.agent.common.distributions import ActionLayout


def mlp(inputs: int, units: int, layers: int, outputs: int) -> nn.Sequential:
    """``layers`` hidden layers of ``units`` ELU units, then a linear layer of ``outputs``."""
    modules: list[nn.Module] = []
    for _ in range(layers):
        modules += [nn.Linear(inputs, units), nn.ELU()]
        inputs = units
    modules.append(nn.Linear(inputs, outputs))
    return nn.Sequential(*modules)


def check_image_side(image_shape: tuple[int, int, int], layers: int) -> None:
    """Raises ``ValueError`` unless both sides of the image halve ``layers`` times exactly."""
    height, width, _channels = image_shape
    step = 2**layers
    if height % step or width % step:
        raise ValueError(
            f"images of {height} x {width} do not halve {layers} times (cnn_layers={layers}): the sides must be "
            f"multiples of {step}"
        )


class ConvEncoder(nn.Module):
    """uint8 images ``(N, H, W, C)`` -> ``(N, features)``: ``layers`` convolutions with 4 x 4
    kernels and stride 2, each halving the side, ``depth * 2**i`` channels, ELU; then flattened.
    Pixels go in as ``x / 255 - 0.5`` (the decoder's target)."""

    def __init__(self, image_shape: tuple[int, int, int], depth: int, layers: int) -> None:
        super().__init__()
        check_image_side(image_shape, layers)
        height, width, channels = image_shape
        modules: list[nn.Module] = []
        for index in range(layers):
            modules += [nn.Conv2d(channels, depth * 2**index, 4, 2, 1), nn.ELU()]
            channels = depth * 2**index
        self.convolutions = nn.Sequential(*modules)
        self.features = channels * (height // 2**layers) * (width // 2**layers)

    def forward(self, images: Tensor) -> Tensor:
        return self.convolutions(image_to_float(images).permute(0, 3, 1, 2)).flatten(1)


class ConvDecoder(nn.Module):
    """``(N, inputs)`` -> the mean of each pixel value ``(N, H, W, C)`` in the encoder's ``x / 255 - 0.5``
    units: a linear layer to the encoder's last feature map, then transposed convolutions mirroring it."""

    def __init__(self, inputs: int, image_shape: tuple[int, int, int], depth: int, layers: int) -> None:
        super().__init__()
        check_image_side(image_shape, layers)
        height, width, channels = image_shape
        self.start = (depth * 2 ** (layers - 1), height // 2**layers, width // 2**layers)
        self.projection = nn.Linear(inputs, self.start[0] * self.start[1] * self.start[2])
        modules: list[nn.Module] = []
        in_channels = self.start[0]
        for index in range(layers - 2, -2, -1):
            out_channels = depth * 2**index if index >= 0 else channels
            modules.append(nn.ConvTranspose2d(in_channels, out_channels, 4, 2, 1))
            if index >= 0:
                modules.append(nn.ELU())
            in_channels = out_channels
        self.deconvolutions = nn.Sequential(*modules)

    def forward(self, features: Tensor) -> Tensor:
        x = self.projection(features).reshape(-1, *self.start)
        return self.deconvolutions(x).permute(0, 2, 3, 1)


def image_to_float(images: Tensor) -> Tensor:
    """uint8 pixels -> floats in [-0.5, 0.5]."""
    return images.float() * (1.0 / 255.0) - 0.5


class ActionEncoding:
    """A flat action (see :mod:`avalon.agent.common.distributions`) as the world model reads it:
    each continuous value clipped to [-1, 1] (the normalised value the env applies), each
    Discrete part one-hot."""

    def __init__(self, layout: ActionLayout) -> None:
        self.layout = layout
        self.categories = [part.categories for part in layout.parts if part.kind == "categorical"]
        self.size = layout.normal_size + sum(self.categories)

    def __call__(self, flat: Tensor) -> Tensor:
        n = self.layout.normal_size
        parts = [flat[..., :n].clamp(-1.0, 1.0)]
        for column, categories in enumerate(self.categories):
            index = flat[..., n + column].long()
            parts.append(nn.functional.one_hot(index, categories).to(flat.dtype))
        return torch.cat(parts, dim=-1)
