"""Deterministic ``dataset.vision`` transforms applied to one fixed image; scripts/record_vision_transforms.py
records MindSpore 2.10's outputs into tests/fixtures/mindspore/vision_transforms.npz and
tests/dataset/test_vision_transforms.py compares opbuild's. ``build(V)`` takes the framework's vision module."""

import numpy as np


def image() -> np.ndarray:
    """The input: a (7, 9, 3) uint8 image."""
    return np.random.RandomState(0).randint(0, 255, size=(7, 9, 3)).astype(np.uint8)


def build(V) -> dict:
    """name -> transform."""
    return {
        "HorizontalFlip": V.HorizontalFlip(), "VerticalFlip": V.VerticalFlip(),
        "RandomHorizontalFlip_1": V.RandomHorizontalFlip(1.0), "RandomVerticalFlip_0": V.RandomVerticalFlip(0.0),
        "Crop": V.Crop((1, 2), (3, 4)), "CenterCrop": V.CenterCrop(4), "CenterCrop_big": V.CenterCrop((9, 12)),
        "Pad": V.Pad([1, 2, 3, 4], fill_value=(10, 20, 30)), "Pad_edge": V.Pad(2, padding_mode=V.Border.EDGE),
        "Pad_reflect": V.Pad(2, padding_mode=V.Border.REFLECT),
        "Pad_symmetric": V.Pad(2, padding_mode=V.Border.SYMMETRIC), "PadToSize": V.PadToSize((10, 12)),
        "PadToSize_offset": V.PadToSize((10, 12), offset=(1, 2), fill_value=5),
        "Invert": V.Invert(), "Posterize": V.Posterize(3), "Solarize": V.Solarize(100),
        "Solarize_range": V.Solarize((50, 150)), "Equalize": V.Equalize(), "AutoContrast": V.AutoContrast(),
        "AutoContrast_cutoff": V.AutoContrast(cutoff=10.0), "AdjustBrightness": V.AdjustBrightness(1.5),
        "AdjustContrast": V.AdjustContrast(0.5), "AdjustSaturation": V.AdjustSaturation(2.0),
        "AdjustSharpness": V.AdjustSharpness(2.0), "AdjustGamma": V.AdjustGamma(0.5, 1.0),
        "AdjustHue": V.AdjustHue(0.2), "GaussianBlur": V.GaussianBlur(3, 1.0), "GaussianBlur_5": V.GaussianBlur(5),
        "Erase": V.Erase(1, 1, 2, 3, value=7), "ToTensor": V.ToTensor(),
        "NormalizePad": V.NormalizePad([100.0, 110.0, 120.0], [50.0, 60.0, 70.0]),
        "ResizedCrop": V.ResizedCrop(1, 1, 4, 5, (6, 6)), "SlicePatches": V.SlicePatches(2, 2),
        "SlicePatches_drop": V.SlicePatches(2, 2, V.SliceMode.DROP),
        "ToType": V.ToType(np.float32), "ToNumpy": V.ToNumpy(),
        "ResizeWithBBox": lambda img: V.ResizeWithBBox((5, 12), V.Inter.NEAREST)(
            img, np.array([[1, 2, 4, 3]], np.float32)),
        "ResizeWithBBox_short": lambda img: V.ResizeWithBBox(5)(img.astype(np.float32),
                                                               np.array([[0, 0, 9, 7], [2, 1, 3, 3]], np.float32)),
        "Affine": V.Affine(degrees=30, translate=[0.2, 0.1], scale=1.2, shear=[10, 5]),
        "Affine_shear_x": V.Affine(degrees=0, translate=[0, 0], scale=1.0, shear=15.0),
        "Affine_bilinear": V.Affine(degrees=-25, translate=[0.1, -0.2], scale=0.8, shear=[0, 5],
                                    resample=V.Inter.BILINEAR, fill_value=3),
        "Rotate_90": V.Rotate(90), "Rotate_30": V.Rotate(30), "Rotate_30_expand": V.Rotate(30, expand=True),
        "Rotate_45_bilinear": V.Rotate(45, V.Inter.BILINEAR, fill_value=(9, 9, 9)),
        "Rotate_center": V.Rotate(-20, center=(2, 3)),
        "FiveCrop": lambda img: tuple(np.asarray(c) for c in V.FiveCrop((3, 4))(V.ToPIL()(img))),
        "TenCrop": lambda img: tuple(np.asarray(c) for c in V.TenCrop(3)(V.ToPIL()(img))),
        "TenCrop_vertical": lambda img: tuple(np.asarray(c) for c in V.TenCrop(3, True)(V.ToPIL()(img))),
        "Grayscale": lambda img: np.asarray(V.Grayscale()(V.ToPIL()(img))),
        "Grayscale_3": lambda img: np.asarray(V.Grayscale(3)(V.ToPIL()(img))),
        "ToTensor_pil": lambda img: V.ToTensor()(V.ToPIL()(img)),
        "LinearTransformation": lambda img: V.LinearTransformation(np.eye(12) * 0.5, np.full(12, 0.25))(
            img[:2, :2].transpose(2, 0, 1).astype(np.float32) / 255),
        "RgbToHsv": lambda img: V.RgbToHsv(is_hwc=True)(img.astype(np.float32) / 255),
        "HsvToRgb": lambda img: V.HsvToRgb(is_hwc=True)(img.astype(np.float32) / 255),
        "RgbToHsv_chw": lambda img: V.RgbToHsv()(img.transpose(2, 0, 1).astype(np.float32) / 255),
    }
