"""Cases for the image file functions (``read_image``, ``write_jpeg``, ...), ``BoundingBoxAugment`` and the
word vectors (``Vectors``, ``GloVe``, ``FastText``, ``CharNGram``, ``ToVectors``).
scripts/record_image_io.py writes the input files (``make_files``), runs the cases with MindSpore 2.10 and
stores the files and outputs in tests/fixtures/mindspore/image_io.npz; tests/dataset/test_image_io.py writes
the same files back and compares opbuild's outputs. ``build_*(V|X, folder)`` take the framework's module."""

import os

import numpy as np

VECTOR_FILES = {
    "vec.txt": "ok 0.1 0.2 0.3\n! 0.4 0.5 0.6\nHello 1 2 3\nhello -1 -2 -3\nok 7 7 7\n",
    "hdr.txt": "3 3\nok 0.1 0.2 0.3\n! 0.4 0.5 0.6\nHello 1 2 3\n",
    "bad_dim.txt": "ok 0.1 0.2 0.3\n! 0.4 0.5\n",
    "one_dim.txt": "ok 0.1\n! 0.4\n",
    "glove.6B.3d.txt": "ok 0.1 0.2 0.3\n! 0.4 0.5 0.6\nthe 1e-3 -2.5 3\n",
    "wiki.en.vec": "2 3\nok 0.1 0.2 0.3\n! 0.4 0.5 0.6\n",
    "charNgram.txt": ("1gram-a 0.1 0.2 0.3\n2gram-#BEGIN#h 0.4 0.5 0.6\n2gram-he 1 1 1\n3gram-hel 2 2 2\n"
                      "1gram-h 3 3 3\n2gram-lo 5 5 5\n2gram-o#END# 6 6 6\n4gram-#BEGIN#hel 0 0 0\n"
                      "2gram-#BEGIN#a 9 9 9\n"),
}


def pixels(seed: int, shape: tuple) -> np.ndarray:
    return np.random.RandomState(seed).randint(0, 256, shape).astype(np.uint8)


def make_files(folder: str) -> list:
    """Write the image and vector files (with Pillow); the names written."""
    from PIL import Image

    rgb = pixels(1, (12, 17, 3))
    grey = rgb[..., 0]
    images = {
        "rgb.png": Image.fromarray(rgb), "grey.png": Image.fromarray(grey),
        "palette.png": Image.fromarray(rgb).convert("P"),
        "rgba.png": Image.fromarray(np.dstack([rgb, grey])),
        "la.png": Image.merge("LA", [Image.fromarray(grey), Image.fromarray(rgb[..., 1])]),
        "grey16.png": Image.fromarray((grey.astype(np.uint16) * 251 + 7).astype(np.uint16)),
        "rgb.jpg": (Image.fromarray(rgb), {"quality": 85}),
        "sub420.jpg": (Image.fromarray(rgb[:, :13]), {"quality": 60, "subsampling": 2}),
        "grey.jpg": (Image.fromarray(grey), {"quality": 90}),
        "rgb.bmp": Image.fromarray(rgb), "grey.bmp": Image.fromarray(grey), "rgb.tiff": Image.fromarray(rgb),
        "rgb.gif": Image.fromarray(rgb),
    }
    for name, spec in images.items():
        img, kw = spec if isinstance(spec, tuple) else (spec, {})
        img.save(os.path.join(folder, name), **kw)
    with open(os.path.join(folder, "notimage.png"), "wb") as f:
        f.write(b"plain text, not an image\n")
    words = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "cat", "sat", "on", "a", "mat",
             "hello", "world", "data", "set"]
    pick = np.random.RandomState(6)
    with open(os.path.join(folder, "corpus.txt"), "w") as f:
        for _ in range(200):
            f.write(" ".join(words[i] for i in pick.randint(0, len(words), pick.randint(3, 12))) + "\n")
    for name, text in VECTOR_FILES.items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
    return sorted(images) + ["notimage.png", "corpus.txt"] + sorted(VECTOR_FILES)


def build_sentencepiece(X, folder: str) -> dict:
    """name -> zero-argument SentencePieceTokenizer call with the model file ``spm.model`` (trained and saved
    by MindSpore: scripts/record_image_io.py)."""
    model = os.path.join(folder, "spm.model")
    out = X.SPieceTokenizerOutType
    text = {"plain": "the lazy dogs jumped", "unicode": "  ünï cödé 中文  two  spaces ", "empty": ""}
    cases = {}
    for name, line in text.items():
        for kind in ("STRING", "INT"):
            cases[f"spm_{name}_{kind}"] = _spm(X, model, getattr(out, kind), np.array(line))
    cases.update({
        "spm_str_input": _spm(X, model, out.INT, "the quick fox"),
        "spm_two_strings": _spm(X, model, out.INT, np.array(["the", "fox"])),
        "spm_bytes": _spm(X, model, out.INT, np.array(b"the")),
        "spm_missing_model": _spm(X, os.path.join(folder, "none.model"), out.INT, np.array("a")),
        "spm_out_type_str": lambda: X.SentencePieceTokenizer(model, "INT"),
        "spm_mode_int": lambda: X.SentencePieceTokenizer(3, out.INT),
    })
    return cases


def _spm(X, model: str, out_type, data):
    return lambda: X.SentencePieceTokenizer(model, out_type)(data)


def build_read(V, folder: str) -> dict:
    """name -> zero-argument call reading a file."""
    p = lambda n: os.path.join(folder, n)  # noqa: E731
    cases = {"read_file": lambda: V.read_file(p("rgb.png")), "read_file_missing": lambda: V.read_file(p("none")),
             "read_file_folder": lambda: V.read_file(folder), "read_file_int": lambda: V.read_file(3),
             "read_image_int_mode": lambda: V.read_image(p("rgb.png"), 1),
             "read_image_missing": lambda: V.read_image(p("none.png")),
             "read_image_not_image": lambda: V.read_image(p("notimage.png"))}
    for name in ("rgb.png", "grey.png", "palette.png", "rgba.png", "la.png", "grey16.png", "rgb.jpg", "sub420.jpg",
                 "grey.jpg", "rgb.bmp", "grey.bmp", "rgb.tiff", "rgb.gif"):
        for mode in ("UNCHANGED", "GRAYSCALE", "COLOR"):
            cases[f"read_image_{name}_{mode}"] = _reader(V, p(name), mode)
    cases["read_image_default"] = lambda: V.read_image(p("rgb.jpg"))
    return cases


def _reader(V, path: str, mode: str):
    return lambda: V.read_image(path, getattr(V.ImageReadMode, mode))


def _written(V, folder: str, write, name: str, *args):
    path = os.path.join(folder, name)
    write(path, *args)
    with open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8)


def build_write(V, folder: str) -> dict:
    """name -> zero-argument call writing a file and returning its bytes (or raising)."""
    rgb, grey = pixels(2, (9, 11, 3)), pixels(3, (9, 11))
    cases = {
        "write_file": lambda: _written(V, folder, V.write_file, "w.bin", np.arange(7, dtype=np.uint8)),
        "write_file_empty": lambda: _written(V, folder, V.write_file, "w0.bin", np.zeros(0, np.uint8)),
        "write_file_int32": lambda: V.write_file(os.path.join(folder, "x.bin"), np.arange(3, dtype=np.int32)),
        "write_file_2d": lambda: V.write_file(os.path.join(folder, "x.bin"), np.zeros((2, 2), np.uint8)),
        "write_file_bytes": lambda: V.write_file(os.path.join(folder, "x.bin"), b"abc"),
        "write_file_no_folder": lambda: V.write_file(os.path.join(folder, "no", "x.bin"), np.zeros(2, np.uint8)),
        "write_png_0": lambda: _written(V, folder, V.write_png, "w.png", rgb, 0),
        "write_png_default": lambda: _written(V, folder, V.write_png, "w.png", rgb),
        "write_png_9_grey": lambda: _written(V, folder, V.write_png, "w.png", grey, 9),
        "write_png_hw1": lambda: _written(V, folder, V.write_png, "w.png", grey[..., None]),
        "write_png_level_10": lambda: V.write_png(os.path.join(folder, "x.png"), rgb, 10),
        "write_png_float": lambda: V.write_png(os.path.join(folder, "x.png"), rgb.astype(np.float32)),
        "write_png_rgba": lambda: V.write_png(os.path.join(folder, "x.png"), np.dstack([rgb, grey])),
        "write_png_uint16": lambda: V.write_png(os.path.join(folder, "x.png"), rgb.astype(np.uint16)),
        "write_jpeg_int_name": lambda: V.write_jpeg(3, rgb),
        "write_jpeg_quality_0": lambda: V.write_jpeg(os.path.join(folder, "x.jpg"), rgb, 0),
        "write_jpeg_quality_float": lambda: V.write_jpeg(os.path.join(folder, "x.jpg"), rgb, 75.0),
        "write_jpeg_list": lambda: V.write_jpeg(os.path.join(folder, "x.jpg"), rgb.tolist()),
        "write_jpeg_empty": lambda: V.write_jpeg(os.path.join(folder, "x.jpg"), np.zeros((0, 3, 3), np.uint8)),
    }
    for q in (1, 75, 100):
        cases[f"write_jpeg_{q}"] = _jpeg(V, folder, rgb, q)
    cases["write_jpeg_grey"] = lambda: _written(V, folder, V.write_jpeg, "w.jpg", grey)
    cases["write_jpeg_hw1"] = lambda: _written(V, folder, V.write_jpeg, "w.jpg", grey[..., None], 90)
    return cases


def _jpeg(V, folder: str, rgb: np.ndarray, q: int):
    return lambda: _written(V, folder, V.write_jpeg, "w.jpg", rgb, q)


def build_size(V) -> dict:
    """name -> zero-argument call of get_image_size / get_image_num_channels."""
    from PIL import Image

    cases = {}
    arrays = {"hw": np.zeros((6, 8), np.uint8), "hwc": np.zeros((6, 8, 3), np.uint8),
              "nhwc": np.zeros((2, 6, 8, 4), np.float32), "hw5": np.zeros((3, 4, 5)), "h": np.zeros(5),
              "empty": np.zeros((0, 3, 3)), "pil_rgb": Image.new("RGB", (8, 6)), "pil_rgba": Image.new("RGBA", (5, 7)),
              "pil_l": Image.new("L", (3, 2)), "list": [[1, 2], [3, 4]], "int": 3}
    for name, a in arrays.items():
        cases[f"size_{name}"] = _bound(V.get_image_size, a)
        cases[f"channels_{name}"] = _bound(V.get_image_num_channels, a)
    return cases


def _bound(fn, arg):
    return lambda: np.array(fn(arg))


def bbox_image() -> np.ndarray:
    return pixels(4, (10, 12, 3))


def bbox_boxes() -> np.ndarray:
    return np.array([[1, 1, 4, 3, 7], [5, 2, 3.6, 5.9, 9], [0, 6, 12, 4, 1]], np.float32)


def build_bbox(V) -> dict:
    """name -> zero-argument BoundingBoxAugment call on (image, boxes)."""
    img, boxes = bbox_image(), bbox_boxes()
    run = lambda t, ratio=1.0, i=img, b=boxes: V.BoundingBoxAugment(t, ratio)(i, b)  # noqa: E731
    return {
        "bba_hflip": lambda: run(V.HorizontalFlip()), "bba_invert": lambda: run(V.Invert()),
        "bba_ratio0": lambda: run(V.Invert(), 0.0), "bba_resize": lambda: run(V.Resize((3, 3))),
        "bba_crop": lambda: run(V.CenterCrop(2)), "bba_rescale": lambda: run(V.Rescale(0.5, 1.0)),
        "bba_float_image": lambda: run(V.VerticalFlip(), 1.0, img.astype(np.float32)),
        "bba_grey": lambda: run(V.HorizontalFlip(), 1.0, img[..., 0]),
        "bba_ratio_int": lambda: run(V.Invert(), 1),
        "bba_out_of_bounds": lambda: run(V.Invert(), 1.0, img, np.array([[8, 0, 5, 2]], np.float32)),
        "bba_negative": lambda: run(V.Invert(), 1.0, img, np.array([[-1, 0, 5, 2]], np.float32)),
        "bba_three_columns": lambda: run(V.Invert(), 1.0, img, np.array([[1, 0, 5]], np.float32)),
        "bba_1d_boxes": lambda: run(V.Invert(), 1.0, img, np.array([1, 0, 5, 2], np.float32)),
        "bba_int32_boxes": lambda: run(V.Invert(), 1.0, img, np.array([[1, 1, 3, 2]], np.int32)),
        "bba_float64_boxes": lambda: run(V.Invert(), 1.0, img, np.array([[1, 1, 3, 2]], np.float64)),
        "bba_no_boxes": lambda: run(V.Invert(), 1.0, img, np.zeros((0, 4), np.float32)),
        "bba_ratio_big": lambda: V.BoundingBoxAugment(V.Invert(), 1.5),
        "bba_ratio_str": lambda: V.BoundingBoxAugment(V.Invert(), "0.5"),
        "bba_transform_str": lambda: V.BoundingBoxAugment("x"),
    }


def build_vectors(X, folder: str) -> dict:
    """name -> zero-argument call loading vectors and looking tokens up."""
    p = lambda n: os.path.join(folder, n)  # noqa: E731
    toks = np.array(["ok", "!", "Hello", "HELLO", "hello", "zz"])

    def look(cls, name, tokens=toks, max_vectors=None, **kw):
        return lambda: X.ToVectors(cls.from_file(p(name), max_vectors), **kw)(tokens)

    V, G, F, C = X.Vectors, X.GloVe, X.FastText, X.CharNGram
    return {
        "vec": look(V, "vec.txt"), "vec_lower": look(V, "vec.txt", lower_case_backup=True),
        "vec_unk": look(V, "vec.txt", unk_init=[9, 8.5, 7]),
        "vec_unk_lower": look(V, "vec.txt", unk_init=(1, 2, 3), lower_case_backup=True),
        "vec_max2": look(V, "vec.txt", max_vectors=2), "vec_max0": look(V, "vec.txt", max_vectors=0),
        "vec_one": look(V, "vec.txt", np.array(["ok"])), "vec_scalar": look(V, "vec.txt", np.array("Hello")),
        "vec_2d": look(V, "vec.txt", np.array([["ok", "zz"], ["!", "hello"]])),
        "vec_empty": look(V, "vec.txt", np.array([], dtype=str)),
        "vec_numbers": look(V, "vec.txt", np.array([1, 2])),
        "vec_unk_short": look(V, "vec.txt", unk_init=[1, 2]),
        "vec_header": look(V, "hdr.txt", np.array(["ok", "3", "Hello"])),
        "vec_bad_dim": lambda: V.from_file(p("bad_dim.txt")), "vec_one_dim": lambda: V.from_file(p("one_dim.txt")),
        "vec_missing": lambda: V.from_file(p("none.txt")), "vec_path_int": lambda: V.from_file(3),
        "vec_max_negative": lambda: V.from_file(p("vec.txt"), -1),
        "vec_max_float": lambda: V.from_file(p("vec.txt"), 2.0),
        "glove": look(G, "glove.6B.3d.txt", np.array(["the", "ok", "x"])),
        "glove_bad_name": lambda: G.from_file(p("vec.txt")),
        "fasttext": look(F, "wiki.en.vec", np.array(["!", "ok", "2"])),
        "fasttext_bad_name": lambda: F.from_file(p("vec.txt")),
        "charngram": look(C, "charNgram.txt", np.array(["a", "hello", "he", "zz", "Hello", "hel"])),
        "charngram_lower": look(C, "charNgram.txt", np.array(["Hello", "A"]), lower_case_backup=True),
        "charngram_unk": look(C, "charNgram.txt", np.array(["zz", "hello"]), unk_init=[5, 5, 5]),
        "tovectors_str": lambda: X.ToVectors("x"),
        "tovectors_unk_str": lambda: X.ToVectors(V.from_file(p("vec.txt")), unk_init=["a"]),
        "tovectors_lower_int": lambda: X.ToVectors(V.from_file(p("vec.txt")), lower_case_backup=1),
    }


def build_map(ds, V, X, folder: str) -> dict:
    """name -> zero-argument call running the transforms inside ``Dataset.map``; the rows' arrays."""
    def rows(dataset):
        return [a for row in dataset.create_tuple_iterator(output_numpy=True) for a in row]

    def vectors():
        data = ds.NumpySlicesDataset({"t": [["ok", "zz"], ["!", "Hello"]]}, shuffle=False)
        op = X.ToVectors(X.Vectors.from_file(os.path.join(folder, "vec.txt")), unk_init=[1, 1, 1])
        return rows(data.map(op, ["t"]))

    def bbox():
        data = ds.NumpySlicesDataset({"image": [bbox_image()] * 2, "bbox": [bbox_boxes()] * 2}, shuffle=False)
        return rows(data.map(V.BoundingBoxAugment(V.Invert(), 1.0), ["image", "bbox"]))

    def no_boxes():
        data = ds.NumpySlicesDataset({"image": [bbox_image()], "bbox": [np.zeros((0, 4), np.float32)]}, shuffle=False)
        return rows(data.map(V.BoundingBoxAugment(V.Invert(), 1.0), ["image", "bbox"]))

    def read():
        data = ds.NumpySlicesDataset({"f": [os.path.join(folder, "rgb.png")]}, shuffle=False)
        return rows(data.map(lambda f: V.read_image(str(f)), ["f"]))

    return {"map_tovectors": vectors, "map_bba": bbox, "map_bba_no_boxes": no_boxes,
            "map_read_image": read}
