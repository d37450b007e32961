"""The mindcv CNN models the zoo tests run, shared by scripts/record_zoo_cnn.py (MindSpore) and
tests/zoo/test_zoo_cnn.py (opbuild). Plain data and NumPy only: no MindSpore, no opbuild."""

from __future__ import annotations

import numpy as np

SEED = 7  # ms.set_seed before each model is built
INPUT_SEED = 11  # the input image's NumPy generator seed

# The smallest registered variant of each CNN family, with the smallest square input it accepts.
FAMILIES: dict[str, tuple[str, int]] = {
    "resnet": ("resnet18", 32),
    "resnext": ("resnext50_32x4d", 32),
    "resnetv2": ("resnetv2_50", 32),
    "bit": ("BiT_resnet50", 32),
    "mobilenet_v1": ("mobilenet_v1_025", 32),
    "mobilenet_v2": ("mobilenet_v2_035_96", 32),
    "mobilenet_v3": ("mobilenet_v3_small_075", 32),
    "efficientnet": ("efficientnet_b0", 32),
    "mnasnet": ("mnasnet_050", 32),
    "mixnet": ("mixnet_s", 32),
    "ghostnet": ("ghostnet_050", 32),
    "densenet": ("densenet121", 32),
    "vgg": ("vgg11", 224),
    "googlenet": ("googlenet", 32),
    "inception_v3": ("inception_v3", 96),
    "inception_v4": ("inception_v4", 96),
    "squeezenet": ("squeezenet1_1", 32),
    "shufflenet_v1": ("shufflenet_v1_g3_05", 32),
    "shufflenet_v2": ("shufflenet_v2_x0_5", 32),
    "regnet": ("regnet_x_200mf", 32),
    "repvgg": ("repvgg_a0", 32),
    "res2net": ("res2net50", 32),
    "resnest": ("resnest14", 32),
    "senet": ("seresnet18", 32),
    "sknet": ("skresnet18", 32),
    "dpn": ("dpn92", 32),
    "hrnet": ("hrnet_w32", 32),
    "nasnet": ("nasnet_a_4x1056", 32),
    "pnasnet": ("pnasnet", 32),
    "xception": ("xception", 32),
    "convnext": ("convnext_tiny", 32),
}
CONSTRUCT_ONLY = {"rexnet": "rexnet_09"}  # MindSpore 2.10 fails inside rexnet's construction

# Name prefixes of mindcv's CNN models (the parameter sweep covers every registered name with one of these).
CNN_PREFIXES = ("BiT_", "resnet", "resnext", "resnetv2", "mobilenet_v", "efficientnet", "mnasnet", "mixnet",
                "ghostnet", "rexnet", "densenet", "vgg", "googlenet", "inception", "squeezenet", "shufflenet",
                "regnet", "repvgg", "res2net", "resnest", "senet", "seresne", "skresne", "dpn", "hrnet",
                "nasnet", "pnasnet", "xception", "convnext")

# The variants beyond each family's smallest whose construction (parameter totals) is checked in CI: cheap ones,
# since building every CNN variant means ~10 GB of weights (scripts/record_zoo_cnn.py --all records them all).
SWEEP = ("resnet34", "mobilenet_v1_050", "mobilenet_v2_100_96", "mobilenet_v3_large_075", "efficientnet_b1",
         "mnasnet_075", "mixnet_m", "ghostnet_100", "shufflenet_v1_g8_05", "shufflenet_v2_x1_0",
         "regnet_y_200mf", "regnet_x_400mf", "squeezenet1_0", "repvgg_a1", "res2net50_v1b", "resnest26",
         "seresnext26_32x4d", "skresnext50_32x4d", "densenet169", "convnextv2_atto")


def image(size: int) -> np.ndarray:
    """The fixed float32 input of shape (1, 3, size, size)."""
    return np.random.default_rng(INPUT_SEED).standard_normal((1, 3, size, size)).astype(np.float32)


def param_summary(params) -> list:
    """[name, shape, float64 sum] of each (name, float32 array) pair."""
    return [[name, list(arr.shape), float(np.asarray(arr, dtype=np.float64).sum())] for name, arr in params]
