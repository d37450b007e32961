"""The protobuf messages of MindSpore's ``.ckpt`` file, built at import time from a descriptor.

MindSpore's ``checkpoint.proto`` (proto2, no package) declares::

    message Checkpoint {
        message Value { required string tag = 1; required TensorProto tensor = 2; }
        repeated Value value = 1;
    }
    message TensorProto {
        repeated int64 dims = 1;            // proto2: not packed, one varint per dimension
        required string tensor_type = 2;    // "Float32", "Int64", "Bool", ...
        required bytes tensor_content = 3;  // the raw little-endian elements, C order
    }

The descriptor below declares exactly that (names, numbers, labels, packing), so what ``SerializeToString``
writes is what MindSpore's generated classes write and read. It is built here instead of shipping a
``protoc``-generated module so that no generated code is pinned to one protobuf runtime version. The classes
live in a private descriptor pool: MindSpore (or anything else) registering its own ``Checkpoint`` in the
default pool in the same process cannot clash with them.
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto


def _field(msg: descriptor_pb2.DescriptorProto, name: str, number: int, ftype: int, label: int,
           type_name: str | None = None) -> None:
    f = msg.field.add(name=name, number=number, type=ftype, label=label)
    if type_name:
        f.type_name = type_name


def _file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    fd = descriptor_pb2.FileDescriptorProto(name="opbuild_mindspore_checkpoint.proto", syntax="proto2")
    ckpt = fd.message_type.add(name="Checkpoint")
    value = ckpt.nested_type.add(name="Value")
    _field(value, "tag", 1, _F.TYPE_STRING, _F.LABEL_REQUIRED)
    _field(value, "tensor", 2, _F.TYPE_MESSAGE, _F.LABEL_REQUIRED, ".TensorProto")
    _field(ckpt, "value", 1, _F.TYPE_MESSAGE, _F.LABEL_REPEATED, ".Checkpoint.Value")
    tensor = fd.message_type.add(name="TensorProto")
    _field(tensor, "dims", 1, _F.TYPE_INT64, _F.LABEL_REPEATED)
    _field(tensor, "tensor_type", 2, _F.TYPE_STRING, _F.LABEL_REQUIRED)
    _field(tensor, "tensor_content", 3, _F.TYPE_BYTES, _F.LABEL_REQUIRED)
    return fd


def _message_classes() -> tuple[type, type]:
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file_descriptor())
    get = getattr(message_factory, "GetMessageClass", None)
    if get is None:  # protobuf < 4.21 has only the (since removed) MessageFactory.GetPrototype
        factory = message_factory.MessageFactory(pool)
        get = factory.GetPrototype
    return (get(pool.FindMessageTypeByName("Checkpoint")), get(pool.FindMessageTypeByName("TensorProto")))


Checkpoint, TensorProto = _message_classes()

__all__ = ["Checkpoint", "TensorProto"]
