"""``mindspore.dataset.vision``: image transforms on NumPy arrays (in ``Dataset.map`` or eagerly), with
MindSpore's names, defaults and output dtypes: decoding and resizing (basic), geometry (flips, crops, padding,
rotation), colour and tone, tensor/batch operations and augmentation policies. Random transforms draw from
the stream ``ds.config.set_seed`` seeds (not MindSpore's stream: random results match in distribution, shape
and dtype). PIL-image operations (``Decode(to_pil=True)``, ``ToPIL``, ``FiveCrop``, ...) use Pillow."""

from __future__ import annotations

# The five colour adjustments (dataset/vision_adjust.py) match MindSpore's uint8 results bit for bit.
from ..vision_adjust import AdjustBrightness, AdjustContrast, AdjustGamma, AdjustSaturation, AdjustSharpness
from ._common import Border
from .affine import Affine, RandomAffine
from .augment import RandomSelectSubpolicy, UniformAugment
from .autoaugment import AutoAugment, AutoAugmentPolicy, RandAugment, TrivialAugmentWide
from .basic import HWC2CHW, Decode, Inter, Normalize, Rescale, Resize, decode_image
from .bbox import (
    RandomCropWithBBox,
    RandomHorizontalFlipWithBBox,
    RandomResizedCropWithBBox,
    RandomResizeWithBBox,
    RandomVerticalFlipWithBBox,
    ResizeWithBBox,
)
from .bbox_augment import BoundingBoxAugment
from .color import (
    AdjustHue,
    AutoContrast,
    ConvertColor,
    ConvertMode,
    Equalize,
    HsvToRgb,
    Invert,
    Posterize,
    RandomAdjustSharpness,
    RandomAutoContrast,
    RandomColor,
    RandomColorAdjust,
    RandomEqualize,
    RandomInvert,
    RandomPosterize,
    RandomSharpness,
    RandomSolarize,
    RgbToHsv,
    Solarize,
)
from .extras import MixUp, RandomLighting, encode_jpeg, encode_png
from .geometry import (
    CenterCrop,
    Crop,
    HorizontalFlip,
    Pad,
    PadToSize,
    RandomCrop,
    RandomCropDecodeResize,
    RandomHorizontalFlip,
    RandomResize,
    RandomResizedCrop,
    RandomRotation,
    RandomVerticalFlip,
    ResizedCrop,
    Rotate,
    VerticalFlip,
)
from .image_io import (
    ImageReadMode,
    get_image_num_channels,
    get_image_size,
    read_file,
    read_image,
    write_file,
    write_jpeg,
    write_png,
)
from .perspective import Perspective
from .pil_ops import FiveCrop, Grayscale, RandomGrayscale, RandomPerspective, TenCrop, ToPIL
from .tensor_ops import (
    CutMixBatch,
    CutOut,
    Erase,
    GaussianBlur,
    ImageBatchFormat,
    LinearTransformation,
    MixUpBatch,
    NormalizePad,
    RandomErasing,
    SliceMode,
    SlicePatches,
    ToNumpy,
    ToTensor,
    ToType,
)

__all__ = ["Inter", "Border", "ConvertMode", "ImageBatchFormat", "SliceMode", "Decode", "Resize", "Rescale",
           "Normalize", "HWC2CHW", "decode_image",
           "AdjustBrightness", "AdjustContrast", "AdjustGamma", "AdjustHue", "AdjustSaturation", "AdjustSharpness",
           "AutoContrast", "ConvertColor", "Equalize", "HsvToRgb", "Invert", "Posterize", "RandomAdjustSharpness",
           "RandomAutoContrast", "RandomColor", "RandomColorAdjust", "RandomEqualize", "RandomInvert",
           "RandomPosterize", "RandomSharpness", "RandomSolarize", "RgbToHsv", "Solarize",
           "CenterCrop", "Crop", "HorizontalFlip", "Pad", "PadToSize", "RandomCrop", "RandomHorizontalFlip",
           "RandomResize", "RandomResizedCrop", "RandomRotation", "RandomVerticalFlip", "ResizedCrop", "Rotate",
           "VerticalFlip",
           "CutMixBatch", "CutOut", "Erase", "GaussianBlur", "LinearTransformation", "MixUpBatch", "NormalizePad",
           "RandomErasing", "SlicePatches", "ToNumpy", "ToTensor", "ToType",
           "RandomSelectSubpolicy", "UniformAugment", "RandomCropWithBBox", "RandomHorizontalFlipWithBBox",
           "RandomResizedCropWithBBox", "RandomResizeWithBBox", "RandomVerticalFlipWithBBox", "ResizeWithBBox",
           "MixUp", "RandomLighting", "encode_jpeg", "encode_png", "Affine", "RandomAffine",
           "AutoAugment", "AutoAugmentPolicy", "RandAugment", "TrivialAugmentWide", "FiveCrop", "Grayscale",
           "RandomGrayscale", "RandomPerspective", "TenCrop", "ToPIL", "RandomCropDecodeResize",
           "Perspective", "BoundingBoxAugment", "ImageReadMode", "read_file", "read_image", "write_file",
           "write_jpeg", "write_png", "get_image_size", "get_image_num_channels"]
