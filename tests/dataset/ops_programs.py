"""Deterministic calls of ``mindspore.dataset.vision`` and ``mindspore.dataset.transforms`` operations on
fixed images, run by scripts/record_dataset_ops.py under MindSpore 2.10 and by tests/dataset/test_vision_ops.py
under opbuild. Imports neither framework: ``run(vision, transforms, ds)`` takes the modules."""

from __future__ import annotations

import numpy as np


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.RandomState(11)
    img = rng.randint(0, 256, (9, 12, 3)).astype(np.uint8)
    return {"img": img, "gray": img[..., 0].copy(), "float": rng.uniform(0, 1, (6, 5, 3)).astype(np.float32),
            "low": (img // 4 + 60).astype(np.uint8), "chw": rng.uniform(0, 1, (3, 4, 5)).astype(np.float32)}


def cases(vision, transforms, ds) -> dict:
    x = _inputs()
    img, low, flt = x["img"], x["low"], x["float"]
    # MindSpore's bounding-box operations write into the box array they are given: each case gets a copy.
    corners = [[0, 0], [11, 0], [11, 8], [0, 8]]
    fimg, boxes = img.astype(np.float32), np.array([[1, 2, 4, 3], [6, 5, 5, 4]], np.float32)
    R = transforms.Relational
    return {
        "hflip": lambda: vision.HorizontalFlip()(img),
        "vflip": lambda: vision.VerticalFlip()(img),
        "random_hflip_1": lambda: vision.RandomHorizontalFlip(1.0)(img),
        "random_vflip_0": lambda: vision.RandomVerticalFlip(0.0)(img),
        "center_crop": lambda: vision.CenterCrop((4, 5))(img),
        "center_crop_odd": lambda: vision.CenterCrop(6)(img),
        "center_crop_big": lambda: vision.CenterCrop((11, 13))(img),
        "crop": lambda: vision.Crop((2, 3), (4, 6))(img),
        "pad": lambda: vision.Pad([1, 2, 3, 4], fill_value=(7, 8, 9))(img),
        "pad_edge": lambda: vision.Pad(2, padding_mode=vision.Border.EDGE)(img),
        "pad_reflect": lambda: vision.Pad([1, 2], padding_mode=vision.Border.REFLECT)(img),
        "pad_symmetric": lambda: vision.Pad(2, padding_mode=vision.Border.SYMMETRIC)(img),
        "pad_to_size": lambda: vision.PadToSize([12, 15])(img),
        "pad_to_size_offset": lambda: vision.PadToSize([12, 15], [1, 2], 5)(img),
        "random_crop_full": lambda: vision.RandomCrop((9, 12))(img),
        "invert": lambda: vision.Invert()(img),
        "posterize": lambda: vision.Posterize(3)(img),
        "solarize_range": lambda: vision.Solarize((50, 150))(img),
        "solarize_one": lambda: vision.Solarize(128.0)(img),
        "equalize": lambda: vision.Equalize()(low),
        "autocontrast": lambda: vision.AutoContrast()(low),
        "autocontrast_cut": lambda: vision.AutoContrast(cutoff=10.0, ignore=[70, 80])(low),
        "brightness": lambda: vision.AdjustBrightness(1.7)(img),
        "brightness_float": lambda: vision.AdjustBrightness(0.6)(flt),
        "contrast": lambda: vision.AdjustContrast(1.6)(img),
        "contrast_low": lambda: vision.AdjustContrast(0.3)(img),
        "saturation": lambda: vision.AdjustSaturation(2.0)(img),
        "saturation_low": lambda: vision.AdjustSaturation(0.4)(img),
        "gamma": lambda: vision.AdjustGamma(2.2, 1.0)(img),
        "gamma_gain": lambda: vision.AdjustGamma(0.5, 0.8)(img),
        "hue": lambda: vision.AdjustHue(0.2)(img),
        "hue_neg": lambda: vision.AdjustHue(-0.35)(img),
        "sharpness": lambda: vision.AdjustSharpness(2.0)(img),
        "sharpness_0": lambda: vision.AdjustSharpness(0.0)(img),
        "rgb_to_hsv": lambda: vision.RgbToHsv()(x["chw"]),
        "hsv_to_rgb": lambda: vision.HsvToRgb()(x["chw"]),
        "rgb_to_hsv_hwc": lambda: vision.RgbToHsv(is_hwc=True)(flt),
        "gray": lambda: vision.ConvertColor(vision.ConvertMode.COLOR_RGB2GRAY)(img),
        "bgr": lambda: vision.ConvertColor(vision.ConvertMode.COLOR_RGB2BGR)(img),
        "rgba": lambda: vision.ConvertColor(vision.ConvertMode.COLOR_RGB2RGBA)(img),
        "gray2rgb": lambda: vision.ConvertColor(vision.ConvertMode.COLOR_GRAY2RGB)(x["gray"]),
        "to_tensor": lambda: vision.ToTensor()(img),
        "to_type": lambda: vision.ToType(np.int16)(img),
        "linear_transformation": lambda: vision.LinearTransformation(
            np.eye(60)[::-1] * 0.5, np.full(60, 0.25))(x["chw"]),
        "gaussian_blur": lambda: vision.GaussianBlur(3, 1.0)(img),
        "gaussian_blur_rect": lambda: vision.GaussianBlur((5, 3))(img),
        "erase": lambda: vision.Erase(1, 2, 3, 4, (10, 20, 30))(img),
        "rotate_90": lambda: vision.Rotate(90.0)(img[:, :9]),
        "rotate_expand": lambda: vision.Rotate(30.0, expand=True)(img),
        "rotate_bilinear": lambda: vision.Rotate(20.0, vision.Inter.BILINEAR)(img),
        "affine_rotation": lambda: vision.Affine(30.0, [0.0, 0.0], 1.0, 0.0)(img),
        "affine_translate": lambda: vision.Affine(0.0, [0.2, -0.3], 1.0, 0.0)(img),
        "affine_scale": lambda: vision.Affine(0.0, [0.0, 0.0], 1.3, 0.0)(img),
        "affine_shear": lambda: vision.Affine(0.0, [0.0, 0.0], 1.0, [10.0, 0.0])(img),
        "affine_all": lambda: vision.Affine(15.0, [0.2, 0.1], 1.1, [5.0, 3.0])(img),
        "resize_cubic_down": lambda: vision.Resize((5, 7), vision.Inter.CUBIC)(img),
        "resize_cubic_up": lambda: vision.Resize((14, 17), vision.Inter.BICUBIC)(img),
        "resize_cubic_float": lambda: vision.Resize((4, 9), vision.Inter.CUBIC)(flt),
        "resized_crop": lambda: vision.ResizedCrop(1, 1, 6, 8, (3, 4), vision.Inter.NEAREST)(img),
        "slice_patches": lambda: list(vision.SlicePatches(2, 3)(img[:8])),
        "slice_patches_pad": lambda: list(vision.SlicePatches(2, 5, vision.SliceMode.PAD, 9)(img)),
        "slice_patches_drop": lambda: list(vision.SlicePatches(2, 5, vision.SliceMode.DROP)(img)),
        "resize_bbox": lambda: list(vision.ResizeWithBBox((6, 8), vision.Inter.NEAREST)(fimg, boxes.copy())),
        "hflip_bbox": lambda: list(vision.RandomHorizontalFlipWithBBox(1.0)(fimg, boxes.copy())),
        "vflip_bbox": lambda: list(vision.RandomVerticalFlipWithBBox(1.0)(fimg, boxes.copy())),
        "crop_bbox_full": lambda: list(vision.RandomCropWithBBox((9, 12))(fimg, boxes[:1].copy())),
        "crop_bbox_pad": lambda: list(vision.RandomCropWithBBox((13, 16), [2, 2, 2, 2])(fimg, boxes[:1].copy())),
        "png_roundtrip": lambda: vision.Decode()(vision.encode_png(img)),
        "jpeg_decoded_shape": lambda: np.array(vision.Decode()(vision.encode_jpeg(img, 90)).shape),
        "five_crop": lambda: [np.asarray(c) for c in vision.FiveCrop((4, 5))(vision.ToPIL()(img))],
        "ten_crop": lambda: [np.asarray(c) for c in vision.TenCrop(4)(vision.ToPIL()(img))],
        "ten_crop_vertical": lambda: [np.asarray(c) for c in vision.TenCrop((3, 4), True)(vision.ToPIL()(img))],
        "grayscale": lambda: np.asarray(vision.Grayscale()(vision.ToPIL()(img))),
        "grayscale_3": lambda: np.asarray(vision.Grayscale(3)(vision.ToPIL()(img))),
        "random_grayscale_1": lambda: np.asarray(vision.RandomGrayscale(1.0)(vision.ToPIL()(img))),
        "decode_to_pil": lambda: np.asarray(vision.Decode(to_pil=True)(vision.encode_png(img))),
        "perspective_nearest": lambda: vision.Perspective(corners, [[1, 0], [10, 1], [11, 8], [0, 7]],
                                                          vision.Inter.NEAREST)(img),
        "perspective_linear": lambda: vision.Perspective(corners, [[2, 1], [11, 0], [9, 8], [1, 6]],
                                                         vision.Inter.BILINEAR)(img),
        "mask": lambda: transforms.Mask(R.GE, 2)(np.array([1, 2, 3])),
        "mask_ne_int": lambda: transforms.Mask(R.NE, 2, _ms("int32"))(np.array([1, 2, 3])),
        "mask_str": lambda: transforms.Mask(R.EQ, "b")(np.array(["a", "b"])),
        "fill": lambda: transforms.Fill(7)(np.array([[1, 2], [3, 4]])),
        "fill_float": lambda: transforms.Fill(2.5)(np.array([1.0, 2.0], np.float32)),
        "slice": lambda: transforms.Slice(slice(1, 3))(np.array([1, 2, 3, 4])),
        "slice_list": lambda: transforms.Slice([0, 2])(np.array([1, 2, 3, 4])),
        "slice_2d": lambda: transforms.Slice(1, slice(0, 2))(np.arange(6).reshape(2, 3)),
        "pad_end": lambda: transforms.PadEnd([5], 10)(np.array([1, 2, 3])),
        "pad_end_2d": lambda: transforms.PadEnd([3, 2])(np.arange(6).reshape(2, 3)),
        "pad_end_str": lambda: transforms.PadEnd([3], "x")(np.array(["a"])),
        "concatenate": lambda: transforms.Concatenate(0, np.array([1, 2]), np.array([9]))(np.array([5, 6])),
        "concatenate_str": lambda: transforms.Concatenate(0, np.array(["<s>"]))(np.array(["a", "bc"])),
        "duplicate": lambda: list(transforms.Duplicate()(np.array([1, 2]))),
        "unique": lambda: list(transforms.Unique()(np.array([[0, -1, -2, -1, 2], [2, 0, 2, 1, -3]]))),
        "onehot_column": lambda: transforms.OneHot(4)(np.array([[1], [3]])),
        "random_apply_1": lambda: transforms.RandomApply([transforms.Fill(3)], 1.0)(np.array([1, 2])),
        "random_choice_1": lambda: transforms.RandomChoice([transforms.Fill(3)])(np.array([1, 2])),
        "compose": lambda: transforms.Compose([transforms.Fill(10), transforms.Mask(R.EQ, 10)])(np.array([1, 2])),
    }


def _ms(name):
    import importlib
    for mod in ("mindspore", "opbuild"):
        try:
            return getattr(importlib.import_module(mod), name)
        except ImportError:
            continue
    raise ImportError("neither mindspore nor opbuild is importable")


def run(vision, transforms, ds) -> dict:
    """Each case's result as arrays (a list for several outputs), or the name of the exception it raised."""
    out = {}
    for name, fn in cases(vision, transforms, ds).items():
        try:
            res = fn()
        except Exception as e:  # recorded: a case where MindSpore refuses is compared as a refusal
            out[name] = type(e).__name__
            continue
        out[name] = [np.asarray(r) for r in res] if isinstance(res, list) else np.asarray(res)
    return out
