"""Small programs on the behaviours MindSpore's tutorials rely on, each a function ``case(ms, tmp)`` of the
framework module ``ms`` (real MindSpore when scripts/record_tutorial_cases.py records
tests/fixtures/mindspore/tutorial_cases.json, opbuild when tests/compat/test_tutorial_cases.py compares with
it) and a scratch folder. Each returns a value (Tensors, NumPy arrays, Python values, nested in tuples, lists
and dicts); :func:`encode` turns it into JSON both sides compare. Written from the documented behaviour, one
question each; the module imports nothing but NumPy so that both interpreters load it.
"""

from __future__ import annotations

import os
import struct

import numpy as np


def encode(value, ms) -> object:
    """A JSON form of ``value`` that keeps what a comparison needs: kinds, dtypes, shapes and values."""
    if isinstance(value, ms.Tensor):
        arr = value.asnumpy()
        return {"tensor": str(value.dtype).lower(), "shape": list(arr.shape), "values": arr.tolist()}
    if isinstance(value, np.ndarray):
        return {"ndarray": str(value.dtype), "shape": list(value.shape), "values": value.tolist()}
    if isinstance(value, np.generic):
        return {"npscalar": str(value.dtype), "value": value.item()}
    if isinstance(value, (bool, int, float, str)) or value is None:
        return {"py": type(value).__name__, "value": value}
    if isinstance(value, (tuple, list)):
        return {type(value).__name__: [encode(v, ms) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[encode(k, ms), encode(v, ms)] for k, v in value.items()]}
    return {"other": type(value).__name__}


def _idx(path: str, magic: int, arr: np.ndarray) -> None:
    with open(path, "wb") as f:
        f.write(struct.pack(">I" + "I" * arr.ndim, magic, *arr.shape) + arr.astype(np.uint8).tobytes())


def mnist_only_train_files(ms, tmp):
    # A folder holding the train files only (as the tutorials' MNIST_Data/train): usage None reads them.
    d = os.path.join(tmp, "mnist_train")
    os.makedirs(d, exist_ok=True)
    _idx(os.path.join(d, "train-images-idx3-ubyte"), 2051, np.arange(3 * 28 * 28).reshape(3, 28, 28) % 251)
    _idx(os.path.join(d, "train-labels-idx1-ubyte"), 2049, np.array([4, 1, 7]))
    ds = ms.dataset.MnistDataset(d, shuffle=False)
    rows = [(img.shape, int(img.sum()), int(lab)) for img, lab in ds.create_tuple_iterator(output_numpy=True)]
    return ds.get_dataset_size(), rows


def mnist_only_test_files(ms, tmp):
    d = os.path.join(tmp, "mnist_test")
    os.makedirs(d, exist_ok=True)
    _idx(os.path.join(d, "t10k-images-idx3-ubyte"), 2051, np.ones((2, 28, 28)))
    _idx(os.path.join(d, "t10k-labels-idx1-ubyte"), 2049, np.array([3, 9]))
    return ms.dataset.MnistDataset(d, usage="all").get_dataset_size()


def cifar10_only_train_files(ms, tmp):
    d = os.path.join(tmp, "cifar_train")
    os.makedirs(d, exist_ok=True)
    rec = np.zeros((10000, 3073), np.uint8)  # MindSpore reads 10000 records per file, as CIFAR-10's files hold
    rec[:, 0] = np.arange(10000) % 10
    rec[:, 1:] = np.arange(3072) % 200
    rec.tofile(os.path.join(d, "data_batch_1.bin"))
    ds = ms.dataset.Cifar10Dataset(d, shuffle=False, num_samples=3)
    return ds.get_dataset_size(), [int(lab) for _, lab in ds.create_tuple_iterator(output_numpy=True)]


def scalar_of_one_element_tensor(ms, tmp):
    # int()/float()/bool() take any one-element tensor, whatever its rank, in PyNative and in a graph.
    @ms.jit
    def f(x):
        return int(x), float(x), int("1f", 16)

    return int(ms.tensor([10])), float(ms.tensor([[2.5]])), bool(ms.tensor([0])), f(ms.tensor([-3.0]))


def graph_returns_ndarray(ms, tmp):
    @ms.jit
    def f():
        return np.array([1, 2, 3]) * 2

    return f()


def _pair_sum(a, b):
    return a + b


def graph_returns_map(ms, tmp):
    @ms.jit
    def f():
        return map(_pair_sum, (1, 2), (3, 4)), map(_pair_sum, [5, 6], [7, 8])

    return f()


def graph_returns_zip_range_enumerate(ms, tmp):
    @ms.jit
    def f():
        return zip((1, 2), (3, 4)), range(1, 7, 2), enumerate((9, 8), 1)

    return f()


def _odd(a):
    return a % 2 == 1


def graph_returns_filter_and_generator(ms, tmp):
    @ms.jit
    def f():
        return filter(_odd, (1, 2, 3)), filter(_odd, [5, 6]), (i * 3 for i in range(3))

    return f()


def graph_returns_types(ms, tmp):
    @ms.jit
    def f():
        return type(1), type([1]), type(np.array([1]))  # noqa: UP003 - type() in a graph is the question

    return [t.__name__ for t in f()]


def _fd_output(fn) -> str:
    """What ``fn()`` printed to file descriptor 1 or ``sys.stdout`` (MindSpore's graph print writes from C++)."""
    import contextlib
    import ctypes
    import io
    import sys
    import tempfile

    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 1)
        out = io.TextIOWrapper(os.fdopen(os.dup(1), "wb"), line_buffering=True, write_through=True)
        try:
            with contextlib.redirect_stdout(out):
                fn()
        finally:
            out.flush()
            ctypes.CDLL(None).fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
            out.close()
        tmp.seek(0)
        return tmp.read().decode()


def graph_builtin_print(ms, tmp):
    # The built-in print in a graph prints the tensors' values when the graph runs, one argument per line.
    @ms.jit
    def f(x, y):
        print("x:", x)
        print(y)
        return x + y

    return _fd_output(lambda: f(ms.tensor([1, 2, 3], ms.int32), ms.tensor(3, ms.int32))).split()


def _double(grad):
    return grad * 2


def hook_on_scalar_tensor(ms, tmp):
    # Tensor.register_hook on a 0-d intermediate: the hook sees and returns a 0-d gradient.
    def fn(x, y):
        z = x * y
        z.register_hook(_double)
        return z * y

    return ms.value_and_grad(fn, grad_position=(0, 1))(ms.Tensor(1.5, ms.float32), ms.Tensor(2, ms.float32))


def partial_with_keywords(ms, tmp):
    # ops.partial binds keyword arguments too, in a graph (the static-graph syntax tutorial's use).
    @ms.jit
    def f():
        p = ms.ops.partial(_pair_sum, b=2)
        return p(a=3), p(5)

    return f()


def graph_returns_numpy_scalars(ms, tmp):
    # NumPy scalars a graph computes (tuple() of an array, a reduction) come back as Python numbers.
    @ms.jit
    def f():
        return tuple(np.array([1, 2])), list(np.array([0.5])), np.float32(1.5), np.array([3, 4]).sum()

    return f()


def _gen_dicts():
    for i in range(3):
        yield {"v": i, "sq": np.array([i, i * i])}, i


def _wrap(a):
    return {"orig": a, "neg": -a}


def dict_columns(ms, tmp):
    # Python dicts as column values (GeneratorDataset rows, map results): iterated as dicts of arrays/Tensors.
    ds = ms.dataset
    data = ds.GeneratorDataset(_gen_dicts, column_names=["d", "i"], shuffle=False)
    as_numpy = [(sorted(r["d"].items()), r["i"]) for r in data.create_dict_iterator(num_epochs=1, output_numpy=True)]
    as_tensor = [sorted(r[0].items()) for r in data.create_tuple_iterator(num_epochs=1)]
    mapped = data.map(_wrap, input_columns=["i"])
    maps = [sorted(r["i"].items()) for r in mapped.create_dict_iterator(num_epochs=1, output_numpy=True)]
    return as_numpy, as_tensor, maps


def user_samplers(ms, tmp):
    # A Sampler subclass that only defines __iter__, and a plain indexable object, as a dataset's sampler.
    ds = ms.dataset

    class EveryThird(ds.Sampler):
        def __iter__(self):
            yield from range(0, 9, 3)

    class Picks:
        def __init__(self):
            self.ids = [4, 1, 1, 6]

        def __getitem__(self, i):
            return self.ids[i]

        def __len__(self):
            return len(self.ids)

    data = list(range(10, 20))
    out = []
    for sampler in (EveryThird(), Picks()):
        d = ds.NumpySlicesDataset(data, column_names=["x"], sampler=sampler)
        out.append([int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)])
        out.append(d.get_dataset_size())
    return out


def filewriter_returns(ms, tmp):
    # What FileWriter's methods return (the tutorials call them as expression statements).
    from importlib import import_module

    mr = import_module(ms.__name__ + ".mindrecord")
    w = mr.FileWriter(os.path.join(tmp, "f.mindrecord"), shard_num=1, overwrite=True)
    got = [w.add_schema({"label": {"type": "int32"}, "x": {"type": "float32", "shape": [2]}}, "s"),
           w.add_index(["label"]), w.set_page_size(1 << 25), w.set_header_size(1 << 24),
           w.write_raw_data([{"label": 1, "x": np.ones(2, np.float32)}]), w.commit()]
    return got, [int(r["label"]) for r in mr.FileReader(os.path.join(tmp, "f.mindrecord")).get_next()]


def dataset_save_round_trip(ms, tmp):
    # Dataset.save writes the pipeline's rows to a MindRecord file; MindDataset reads them back (dtypes as
    # MindRecord stores them: small ints widen to int32, float16 to float32).
    ds = ms.dataset
    data = {"i8": np.array([1, -2, 3], np.int8), "f16": np.array([[0.5, 1.5], [2.0, 3.0], [4.0, 5.5]], np.float16),
            "i64": np.array([7, 8, 9], np.int64), "f64": np.array([0.25, 0.5, 0.75])}
    path = os.path.join(tmp, "saved.mindrecord")
    ds.NumpySlicesDataset(data, shuffle=False).save(path)
    back = ds.MindDataset(path, shuffle=False)
    rows = [sorted(r.items()) for r in back.create_dict_iterator(num_epochs=1, output_numpy=True)]
    return back.get_dataset_size(), sorted(back.get_col_names()), rows


def vision_ops_on_pil_images(ms, tmp):
    # Eager vision operations given a PIL image: which return a PIL image (its size) and which an array.
    from PIL import Image

    v = ms.dataset.vision
    img = Image.fromarray((np.arange(30 * 40 * 3) % 251).astype(np.uint8).reshape(30, 40, 3))
    ops = {"Resize": lambda: v.Resize(20), "Resize2": lambda: v.Resize((12, 16)),
           "CenterCrop": lambda: v.CenterCrop((10, 12)), "Pad": lambda: v.Pad(3),
           "RandomHorizontalFlip": lambda: v.RandomHorizontalFlip(1.0),
           "RandomVerticalFlip": lambda: v.RandomVerticalFlip(1.0), "Crop": lambda: v.Crop((2, 3), (8, 9)),
           "HWC2CHW": lambda: v.HWC2CHW(), "Rescale": lambda: v.Rescale(1 / 255, 0),
           "ConvertColor": lambda: v.ConvertColor(v.ConvertMode.COLOR_RGB2GRAY)}
    out = {}
    for name, make in ops.items():
        try:
            r = make()(img)
        except Exception as e:  # noqa: BLE001 - a refusal is an answer
            out[name] = type(e).__name__
            continue
        if isinstance(r, Image.Image):
            out[name] = ("PIL", r.mode, list(r.size), np.asarray(r).astype(np.int64).sum().item())
        else:
            out[name] = ("array", str(r.dtype), list(r.shape))
    return out


def _three(x, y, z):
    return x * 2 + y + z * 3


def grad_positions_of_non_tensors(ms, tmp):
    # grad_position naming a Python number: MindSpore differentiates the Tensors named and leaves the others
    # out (none left: an empty tuple). In PyNative and in a graph. (A tuple left with one gradient MindSpore
    # 2.10 gives bare, where opbuild keeps the documented tuple: not asked here, see docs/mindspore-compat.md.)
    x, z = ms.tensor([1.0]), ms.tensor([3.0])
    out = []
    for pos in ((0, 1, 2), (2, 1, 0), (1,), 1, 0):
        out.append(ms.grad(_three, grad_position=pos)(x, 2, z))

    @ms.jit
    def in_graph(a, b):
        return ms.grad(_three, grad_position=(0, 1, 2))(a, 2, b)

    out.append(in_graph(x, z))
    out.append(ms.value_and_grad(_three, grad_position=(0, 1, 2))(x, 2, z))
    return out


def text_transforms_module(ms, tmp):
    # mindspore.dataset.text.transforms holds the tokenizers and vocabulary operations too.
    from importlib import import_module

    t = import_module(ms.__name__ + ".dataset.text.transforms")
    return (t.UnicodeCharTokenizer()("ab c"), t.WhitespaceTokenizer()("one two"),
            t.ToNumber(ms.int32)(["12", "7"]), t.UnicodeScriptTokenizer()("ab 12"))


# Every public function of this module taking (ms, tmp) is a case, in the order of the module.
CASES = {name: f for name, f in list(globals().items())
         if callable(f) and not name.startswith("_") and name != "encode" and getattr(f, "__module__", "") == __name__}
