"""The image file functions, ``BoundingBoxAugment`` and the word vectors against MindSpore 2.10's recorded
results (tests/fixtures/mindspore/image_io.npz, written by scripts/record_image_io.py from the cases of
tests/dataset/image_io_cases.py)."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PIL")

from opbuild import dataset as ds  # noqa: E402
from opbuild.dataset import text as X  # noqa: E402
from opbuild.dataset import vision as V  # noqa: E402
from tests.dataset import image_io_cases as cases  # noqa: E402

FIXTURE = dict(np.load(Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "image_io.npz"))
NAMES = sorted({k.split("/")[0] for k in FIXTURE if "/" in k} | {k[6:] for k in FIXTURE if k.startswith("error:")}
               | {k[3:] for k in FIXTURE if k.startswith("ok:")})
# Encoded bytes: Pillow and MindSpore both use libjpeg-turbo/zlib, but only the decoded pixels are MindSpore's
# contract; the bytes are compared where they are equal today (see test_encoded_bytes).
ENCODED = [n for n in NAMES if n.startswith(("write_jpeg", "write_png"))]
# Regions resized back up to their box: vision.Resize's known one-level difference at upsampled borders.
UPSAMPLED = ("bba_crop", "bba_resize")
# MindSpore's eager call refuses an empty (0, 4) box array ("Input Tensor has no data") while its pipeline
# returns the image unchanged (map_bba_no_boxes); opbuild does the latter in both.
PIPELINE_ONLY = {"bba_no_boxes": "map_bba_no_boxes"}
# SentencePieceTokenizer cases that need the optional sentencepiece library (the argument checks do not).
NEEDS_SPM = [n for n in NAMES if n.startswith("spm_") and n not in ("spm_out_type_str", "spm_mode_int")]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The recorded input files, written back."""
    path = tmp_path_factory.mktemp("image_io")
    for key, data in FIXTURE.items():
        if key.startswith("file:"):
            (path / key[5:]).write_bytes(data.tobytes())
    return str(path)


@pytest.fixture(scope="module")
def calls(folder):
    return {**cases.build_sentencepiece(X, folder), **cases.build_read(V, folder),
            **cases.build_write(V, folder), **cases.build_size(V),
            **cases.build_bbox(V), **cases.build_vectors(X, folder), **cases.build_map(ds, V, X, folder)}


def _outputs(out) -> list:
    if out is None:
        return []
    return [np.asarray(a) for a in out] if isinstance(out, (tuple, list)) else [np.asarray(out)]


def _decoded(data: np.ndarray) -> np.ndarray:
    from PIL import Image  # after importorskip above

    return np.asarray(Image.open(io.BytesIO(np.asarray(data, np.uint8).tobytes())))


@pytest.mark.parametrize("name", NAMES)
def test_matches_mindspore(name, calls):
    if name in NEEDS_SPM:
        pytest.importorskip("sentencepiece", reason="the optional sentencepiece extra")
    if name in PIPELINE_ONLY:
        name, want = PIPELINE_ONLY[name], calls[name]()
        for g, i in zip(want, range(2)):
            np.testing.assert_array_equal(g, FIXTURE[f"{name}/{i}"])
        return
    if f"error:{name}" in FIXTURE:
        with pytest.raises((TypeError, ValueError, RuntimeError)) as err:
            calls[name]()
        assert str(FIXTURE[f"error:{name}"]).startswith(type(err.value).__name__), (name, err.value)
        return
    got = _outputs(calls[name]())
    assert len(got) == int(FIXTURE[f"ok:{name}"])
    for i, g in enumerate(got):
        want = FIXTURE[f"{name}/{i}"]
        if name in ENCODED:  # the file's pixels, decoded by the same decoder
            np.testing.assert_array_equal(_decoded(g), _decoded(want), err_msg=name)
            continue
        assert g.dtype == want.dtype and g.shape == want.shape, (name, i, g.dtype, g.shape, want.dtype, want.shape)
        if name in UPSAMPLED:
            assert np.abs(g.astype(np.int64) - want).max() <= 1, name
        elif g.dtype.kind == "f":
            np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-6, err_msg=name)
        else:
            np.testing.assert_array_equal(g, want, err_msg=name)


def test_bounding_box_augment_draws_follow_the_dataset_seed():
    """Each box is transformed with probability ratio; the same seed gives the same boxes."""
    img = np.zeros((20, 40), np.uint8)
    boxes = np.array([[2 * i, 0, 2, 20] for i in range(20)], np.float32)
    op = V.BoundingBoxAugment(V.Invert(), 0.25)

    def picked():
        out, kept = op(img, boxes)
        np.testing.assert_array_equal(kept, boxes)
        return (out[0, ::2] == 255).astype(int)

    ds.config.set_seed(7)
    first = np.stack([picked() for _ in range(40)])
    ds.config.set_seed(7)
    again = np.stack([picked() for _ in range(40)])
    np.testing.assert_array_equal(first, again)
    assert 0.15 < first.mean() < 0.35  # 800 draws of p = 0.25


def test_read_image_errors_say_what_is_wrong(folder):
    with pytest.raises(RuntimeError, match="rgb.gif.*GIF"):
        V.read_image(os.path.join(folder, "rgb.gif"))
    with pytest.raises(RuntimeError, match="does not exist"):
        V.read_image(os.path.join(folder, "nothing.png"))
    with pytest.raises(TypeError, match="ImageReadMode"):
        V.read_image(os.path.join(folder, "rgb.png"), "COLOR")


def test_written_files_read_back(tmp_path):
    """write_png is lossless; write_jpeg at quality 100 stays within a few levels."""
    rgb = cases.pixels(5, (16, 16, 3))
    V.write_png(str(tmp_path / "a.png"), rgb)
    np.testing.assert_array_equal(V.read_image(str(tmp_path / "a.png")), rgb)
    smooth = np.repeat(np.linspace(0, 255, 16, dtype=np.uint8)[None, :, None], 16, 0).repeat(3, 2)
    V.write_jpeg(str(tmp_path / "a.jpg"), smooth, 100)
    assert np.abs(V.read_image(str(tmp_path / "a.jpg")).astype(int) - smooth).max() <= 3


def test_sentencepiece_tokenizer_names_the_missing_library(folder, monkeypatch):
    monkeypatch.setitem(sys.modules, "sentencepiece", None)  # as if not installed
    with pytest.raises(ImportError, match=r"opbuild\[sentencepiece\]"):
        X.SentencePieceTokenizer(os.path.join(folder, "spm.model"), X.SPieceTokenizerOutType.INT)
