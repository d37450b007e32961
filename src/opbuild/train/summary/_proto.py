"""The protobuf messages of MindSpore's summary files (MindInsight's ``Event``), built from a descriptor written
out here rather than generated code, as dataset/tfrecord.py does for ``tf.train.Example``.

The field numbers, labels and packing are those of MindSpore 2.10's summary.proto and anf_ir.proto (proto2,
package ``mindspore.irpb``), so the bytes written are the bytes MindSpore writes. Only the messages a summary
file of scalars, tensors, histograms, images and loss landscapes needs are declared: ``Event.graph_def``
(field 4) and ``Event.explain`` (field 6) are left out, and a parser keeps them as unknown fields.
"""

from __future__ import annotations

from functools import cache
from typing import Any

# anf_ir.proto's DataType values for the NumPy dtypes a summary tensor may hold.
DATA_TYPES = {"bool": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5, "uint8": 6, "uint16": 7, "uint32": 8,
              "uint64": 9, "float16": 10, "float32": 11, "float64": 12}
_PACKAGE = "mindspore.irpb"


@cache
def messages() -> dict[str, type]:
    """The message classes by name: ``Event``, ``Summary``, ``TensorProto``, ``LossLandscape``."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    F = descriptor_pb2.FieldDescriptorProto
    fd = descriptor_pb2.FileDescriptorProto(name="opbuild_summary.proto", package=_PACKAGE, syntax="proto2")
    opt, req, rep = F.LABEL_OPTIONAL, F.LABEL_REQUIRED, F.LABEL_REPEATED

    def add(msg: Any, name: str, num: int, ftype: int, label: int = opt, tname: str = "",
            oneof: int | None = None, packed: bool = False) -> None:
        f = msg.field.add(name=name, number=num, type=ftype, label=label)
        if tname:
            f.type_name = f".{_PACKAGE}.{tname}"
        if oneof is not None:
            f.oneof_index = oneof
        if packed:
            f.options.packed = True

    dtype = fd.enum_type.add(name="DataType")
    dtype.value.add(name="DT_UNDEFINED", number=0)
    for name, number in DATA_TYPES.items():
        dtype.value.add(name=f"DT_{name.upper()}", number=number)

    tensor = fd.message_type.add(name="TensorProto")
    add(tensor, "dims", 1, F.TYPE_INT64, rep)
    add(tensor, "data_type", 2, F.TYPE_ENUM, tname="DataType")
    for num, (name, ftype) in enumerate((("float_data", F.TYPE_FLOAT), ("int32_data", F.TYPE_INT32),
                                         ("int64_data", F.TYPE_INT64), ("double_data", F.TYPE_DOUBLE),
                                         ("uint64_data", F.TYPE_UINT64)), 3):
        add(tensor, name, num, ftype, rep, packed=True)
    add(tensor, "raw_data", 8, F.TYPE_BYTES)

    landscape = fd.message_type.add(name="LossLandscape")
    point = landscape.nested_type.add(name="Point")
    for num, axis in enumerate("xyz", 1):
        add(point, axis, num, F.TYPE_MESSAGE, tname="TensorProto")
    path = landscape.nested_type.add(name="LossPath")
    add(path, "intervals", 1, F.TYPE_INT32, rep)
    add(path, "points", 2, F.TYPE_MESSAGE, tname="LossLandscape.Point")
    meta = landscape.nested_type.add(name="Metadata")
    add(meta, "decomposition", 1, F.TYPE_STRING)
    add(meta, "unit", 2, F.TYPE_STRING)
    add(meta, "step_per_epoch", 3, F.TYPE_INT32)
    for num, (name, tname) in enumerate((("landscape", "Point"), ("loss_path", "LossPath"),
                                         ("metadata", "Metadata"), ("convergence_point", "Point")), 1):
        add(landscape, name, num, F.TYPE_MESSAGE, tname=f"LossLandscape.{tname}")

    summary = fd.message_type.add(name="Summary")
    image = summary.nested_type.add(name="Image")
    for num, name in enumerate(("height", "width", "colorspace"), 1):
        add(image, name, num, F.TYPE_INT32, req)
    add(image, "encoded_image", 4, F.TYPE_BYTES, req)
    hist = summary.nested_type.add(name="Histogram")
    bucket = hist.nested_type.add(name="bucket")
    add(bucket, "left", 1, F.TYPE_DOUBLE, req)
    add(bucket, "width", 2, F.TYPE_DOUBLE, req)
    add(bucket, "count", 3, F.TYPE_INT64, req)
    add(hist, "buckets", 1, F.TYPE_MESSAGE, rep, "Summary.Histogram.bucket")
    for num, name in enumerate(("nan_count", "pos_inf_count", "neg_inf_count"), 2):
        add(hist, name, num, F.TYPE_INT64)
    for num, name in enumerate(("max", "min", "sum"), 5):
        add(hist, name, num, F.TYPE_DOUBLE)
    add(hist, "count", 8, F.TYPE_INT64)
    value = summary.nested_type.add(name="Value")
    value.oneof_decl.add(name="value")
    add(value, "tag", 1, F.TYPE_STRING, req)
    add(value, "scalar_value", 3, F.TYPE_FLOAT, oneof=0)
    add(value, "image", 4, F.TYPE_MESSAGE, tname="Summary.Image", oneof=0)
    add(value, "tensor", 8, F.TYPE_MESSAGE, tname="TensorProto", oneof=0)
    add(value, "histogram", 9, F.TYPE_MESSAGE, tname="Summary.Histogram", oneof=0)
    add(value, "loss_landscape", 10, F.TYPE_MESSAGE, tname="LossLandscape", oneof=0)
    add(summary, "value", 1, F.TYPE_MESSAGE, rep, "Summary.Value")

    event = fd.message_type.add(name="Event")
    event.oneof_decl.add(name="what")
    add(event, "wall_time", 1, F.TYPE_DOUBLE, req)
    add(event, "step", 2, F.TYPE_INT64)
    add(event, "version", 3, F.TYPE_STRING, oneof=0)
    add(event, "summary", 5, F.TYPE_MESSAGE, tname="Summary", oneof=0)

    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    get = getattr(message_factory, "GetMessageClass", None)
    if get is None:  # protobuf < 4.21
        get = message_factory.MessageFactory(pool).GetPrototype
    return {name: get(pool.FindMessageTypeByName(f"{_PACKAGE}.{name}"))
            for name in ("Event", "Summary", "TensorProto", "LossLandscape")}
