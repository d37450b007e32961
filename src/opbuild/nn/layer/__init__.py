"""``mindspore.nn.layer``: the module paths MindSpore's layers live under (``nn.layer.activation.PReLUExt``,
``from mindspore.nn.layer.conv import Conv2d``). opbuild keeps its layers in ``nn/layers/``; this package
gives each of MindSpore's layer modules as a small module holding the names MindSpore puts there that
opbuild has (the same classes as ``opbuild.nn``'s), and exports all of them at the package level as
MindSpore's ``nn.layer`` does."""

from __future__ import annotations

import sys
from types import ModuleType

# MindSpore 2.10's layer modules and the public names each defines (its __all__).
_MODULES: dict[str, tuple[str, ...]] = {
    "activation": ("Softmin", "Softmax", "Softmax2d", "LogSoftmax", "LogSoftmaxExt", "ReLU", "ReLU6", "RReLU",
                   "SeLU", "SiLU", "Tanh", "Tanhshrink", "Hardtanh", "GELU", "FastGelu", "Sigmoid", "Softsign",
                   "PReLU", "PReLUExt", "get_activation", "LeakyReLU", "HSigmoid", "HSwish", "ELU", "LogSigmoid",
                   "LRN", "SoftShrink", "HShrink", "CELU", "Threshold", "Mish", "GLU"),
    "basic": ("Dropout", "Flatten", "Dense", "Linear", "ClipByNorm", "Norm", "OneHot", "Pad", "Unfold", "Tril",
              "Triu", "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "L1Regularizer", "Dropout1d", "Dropout2d",
              "Dropout3d", "Upsample", "Roll", "Identity", "Unflatten", "DropoutExt", "Dropout2dExt"),
    "channel_shuffle": ("ChannelShuffle",),
    "combined": ("Conv2dBnAct", "DenseBnAct"),
    "container": ("SequentialCell", "CellList", "CellDict"),
    "conv": ("Conv2d", "Conv2dTranspose", "Conv1d", "Conv1dTranspose", "Conv3d", "Conv3dTranspose"),
    "dense": ("BiDense",),
    "embedding": ("Embedding", "EmbeddingExt", "EmbeddingLookup", "MultiFieldEmbeddingLookup"),
    "image": ("ImageGradients", "SSIM", "MSSSIM", "PSNR", "CentralCrop", "PixelShuffle", "PixelUnshuffle"),
    "math": ("ReduceLogSumExp", "Range", "LGamma", "DiGamma", "IGamma", "LBeta", "CosineSimilarity", "MatMul",
             "Moments", "MatInverse", "MatDet"),
    "normalization": ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "LayerNormExt", "GroupNorm",
                      "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"),
    "padding": ("ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d",
                "ReflectionPad3d", "ZeroPad2d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d"),
    "pooling": ("AvgPool3d", "MaxPool3d", "AvgPool2d", "MaxPool2d", "AvgPool1d", "MaxPool1d", "FractionalMaxPool2d",
                "FractionalMaxPool3d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
                "AdaptiveMaxPool3d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "MaxUnpool1d", "MaxUnpool2d",
                "MaxUnpool3d", "LPPool1d", "LPPool2d", "AvgPool2dExt", "AvgPool3dExt", "MaxPool2dExt",
                "AvgPool1dExt"),
    "rnn_cells": ("LSTMCell", "GRUCell", "RNNCell"),
    "rnns": ("LSTM", "GRU", "RNN"),
    "thor_layer": ("DenseThor", "Conv2dThor", "EmbeddingThor", "EmbeddingLookupThor"),
    "timedistributed": ("TimeDistributed",),
    "transformer": ("MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
                    "TransformerDecoder", "Transformer"),
}


def _module(name: str, names: tuple[str, ...], source: dict) -> ModuleType:
    mod = ModuleType(f"{__name__}.{name}", f"MindSpore's ``mindspore.nn.layer.{name}``: the names of it opbuild has.")
    present = [n for n in names if n in source]
    for n in present:
        setattr(mod, n, source[n])
    mod.__all__ = present
    sys.modules[mod.__name__] = mod
    return mod


# Names in MindSpore's layer modules that are a different class from ``mindspore.nn``'s same name (nn's
# CosineSimilarity is the metric, layer.math's a layer opbuild lacks): never filled from opbuild.nn.
_NOT_NN = frozenset({"CosineSimilarity"})


def _build() -> None:
    # opbuild.nn imports this package last, so its namespace already holds every layer and container
    nn = vars(sys.modules[__name__.rsplit(".", 1)[0]])
    source = {n: v for n, v in nn.items() if not n.startswith("_") and n not in _NOT_NN}
    exported: list[str] = []
    for name, names in _MODULES.items():
        mod = _module(name, names, source)
        globals()[name] = mod
        # MindSpore's nn.layer package exports its modules' names too (``nn.layer.CellList``)
        for n in mod.__all__:
            globals()[n] = getattr(mod, n)
        exported += mod.__all__
    globals()["__all__"] = exported


_build()
