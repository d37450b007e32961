"""Protobuf messages of MindSpore's MINDIR file (``.mindir``), built at import time from a descriptor.

A MINDIR file is one serialized ``ModelProto`` of MindSpore's ``mind_ir`` package (proto2). The wire format
(field numbers and types) was read from MindSpore's published ``mind_ir.proto``; the declarations here are
opbuild's own and cover what opbuild reads and writes: the model, its graphs (the main graph and the functions
it calls: branches of control flow), nodes, attributes (constants and primitive attributes), tensors
(parameters and constant values) and the primitives the nodes refer to. Fields left out (parallel layouts,
preprocessors, map tensors, shape functors) stay as unknown fields: parsing keeps them and ignores them.

As in checkpoint/proto.py the classes live in a private descriptor pool, so no generated code is pinned to
one protobuf release and nothing clashes with another ``mind_ir`` registered in the same process.
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
_PKG = "mind_ir"
_T = {"string": _F.TYPE_STRING, "bytes": _F.TYPE_BYTES, "int64": _F.TYPE_INT64, "int32": _F.TYPE_INT32,
      "uint64": _F.TYPE_UINT64, "float": _F.TYPE_FLOAT, "double": _F.TYPE_DOUBLE, "bool": _F.TYPE_BOOL}
_L = {"?": _F.LABEL_OPTIONAL, "*": _F.LABEL_REPEATED}

# Value kinds of an attribute (AttributeProto.type) and element types of a tensor (TensorProto.data_type),
# by number as MINDIR writes them. Only the names opbuild handles are spelled out; the others keep a number.
ATTR_TYPES = {0: "UNDEFINED", 1: "FLOAT", 2: "UINT8", 3: "INT8", 4: "UINT16", 5: "INT16", 6: "INT32",
              7: "INT64", 8: "STRING", 9: "BOOL", 10: "FLOAT16", 11: "DOUBLE", 12: "UINT32", 13: "UINT64",
              17: "TENSOR", 18: "GRAPH", 19: "TENSORS", 20: "TUPLE", 21: "LIST", 22: "DICT", 23: "UMONAD",
              24: "IOMONAD", 25: "NONE", 33: "CLASS_TYPE", 36: "TYPE_NULL", 39: "SCALAR"}
ATTR_NUMBER = {v: k for k, v in ATTR_TYPES.items()}
TENSOR_TYPES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
                9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64", 16: "bfloat16", 17: "float64"}
TENSOR_NUMBER = {"float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7,
                 "bool": 9, "float16": 10, "float64": 11, "uint32": 12, "uint64": 13, "bfloat16": 16}
PRIMITIVE, PRIMITIVE_FUNCTION = 1, 2  # PrimitiveProto.prim_type: attributes in the primitive / as inputs

# message -> (field name, number, type or message, label). Labels: "?" optional, "*" repeated.
_MESSAGES: dict[str, list[tuple[str, int, str, str]]] = {
    "AttributeProto": [
        ("name", 1, "string", "?"), ("f", 2, "float", "?"), ("i", 3, "int64", "?"), ("d", 4, "double", "?"),
        ("s", 5, "bytes", "?"), ("t", 6, ".TensorProto", "?"), ("g", 7, ".GraphProto", "?"),
        ("floats", 8, "float", "*"), ("doubles", 9, "double", "*"), ("ints", 10, "int64", "*"),
        ("strings", 11, "bytes", "*"), ("tensors", 12, ".TensorProto", "*"), ("graphs", 13, ".GraphProto", "*"),
        ("doc_string", 14, "string", "?"), ("ref_attr_name", 15, "string", "?"), ("type", 16, "int32", "?"),
        ("values", 17, ".AttributeProto", "*"), ("seq_info", 18, ".SeqInfo", "?")],
    # A tuple value's sequence facts (AttributeProto.SeqInfoProto in MindSpore's file; top level here, which
    # is the same on the wire).
    "SeqInfo": [("is_dyn_len", 1, "bool", "?"), ("tuple_elem_item", 2, ".AttributeProto", "?")],
    "ValueInfoProto": [
        ("name", 1, "string", "?"), ("tensor", 2, ".TensorProto", "*"), ("doc_string", 3, "string", "?"),
        ("denotation", 4, "string", "?"), ("attr_info", 5, ".AttributeProto", "?")],
    "NodeProto": [
        ("input", 1, "string", "*"), ("output", 2, "string", "*"), ("name", 3, "string", "?"),
        ("op_type", 4, "string", "?"), ("attribute", 5, ".AttributeProto", "*"), ("doc_string", 6, "string", "?"),
        ("domain", 7, "string", "?"), ("node_attr", 8, ".AttributeProto", "*"),
        ("primal_attr", 9, ".AttributeProto", "*")],
    "ModelProto": [
        ("ir_version", 1, "string", "?"), ("producer_name", 2, "string", "?"),
        ("producer_version", 3, "string", "?"), ("domain", 4, "string", "?"), ("model_version", 5, "string", "?"),
        ("doc_string", 6, "string", "?"), ("graph", 7, ".GraphProto", "?"), ("functions", 8, ".GraphProto", "*"),
        ("little_endian", 10, "bool", "?"), ("primitives", 12, ".PrimitiveProto", "*"),
        ("mind_ir_version", 13, "int64", "?")],
    "GraphProto": [
        ("node", 1, ".NodeProto", "*"), ("name", 2, "string", "?"), ("parameter", 3, ".TensorProto", "*"),
        ("doc_string", 4, "string", "?"), ("input", 5, ".ValueInfoProto", "*"),
        ("output", 6, ".ValueInfoProto", "*"), ("bprop_hash", 7, "string", "?"),
        ("attribute", 8, ".AttributeProto", "*"), ("bprop_filepath", 9, "string", "?")],
    "TensorProto": [
        ("dims", 1, "int64", "*"), ("data_type", 2, "int32", "?"), ("float_data", 3, "float", "*"),
        ("int32_data", 4, "int32", "*"), ("string_data", 5, "bytes", "*"), ("int64_data", 6, "int64", "*"),
        ("name", 7, "string", "?"), ("doc_string", 8, "string", "?"), ("raw_data", 9, "bytes", "?"),
        ("double_data", 10, "double", "*"), ("uint64_data", 11, "uint64", "*"),
        ("external_data", 12, ".ExternalData", "?"), ("ref_key", 13, "string", "?"),
        ("compression_type", 16, "int32", "?")],
    "ExternalData": [("location", 1, "string", "?"), ("offset", 2, "int64", "?"), ("length", 3, "int64", "?")],
    "PrimitiveProto": [
        ("name", 1, "string", "?"), ("op_type", 2, "string", "?"), ("attribute", 3, ".AttributeProto", "*"),
        ("instance_name", 4, "string", "?"), ("prim_type", 5, "int32", "?")],
}


def _file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    # Enums (attribute and tensor types, prim_type) are declared as int32: the same varint on the wire, and
    # an unknown value (a newer MindSpore's type) then reads as its number instead of being dropped.
    fd = descriptor_pb2.FileDescriptorProto(name="opbuild_mind_ir.proto", package=_PKG, syntax="proto2")
    for name, fields in _MESSAGES.items():
        msg = fd.message_type.add(name=name)
        for fname, number, ftype, label in fields:
            f = msg.field.add(name=fname, number=number, label=_L[label])
            if ftype.startswith("."):
                # ExternalData is a nested message of TensorProto in MindSpore's file; on the wire the
                # nesting does not exist, so a top-level message is the same bytes.
                f.type, f.type_name = _F.TYPE_MESSAGE, f".{_PKG}{ftype}"
            else:
                f.type = _T[ftype]
    return fd


def _classes() -> dict[str, type]:
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file_descriptor())
    get = getattr(message_factory, "GetMessageClass", None)
    if get is None:  # protobuf < 4.21
        get = message_factory.MessageFactory(pool).GetPrototype
    return {name: get(pool.FindMessageTypeByName(f"{_PKG}.{name}")) for name in _MESSAGES}


_C = _classes()
ModelProto, GraphProto, NodeProto = _C["ModelProto"], _C["GraphProto"], _C["NodeProto"]
AttributeProto, TensorProto, PrimitiveProto = _C["AttributeProto"], _C["TensorProto"], _C["PrimitiveProto"]
ValueInfoProto = _C["ValueInfoProto"]

__all__ = ["ModelProto", "GraphProto", "NodeProto", "AttributeProto", "TensorProto", "PrimitiveProto",
           "ValueInfoProto", "ATTR_TYPES", "ATTR_NUMBER", "TENSOR_TYPES", "TENSOR_NUMBER", "PRIMITIVE",
           "PRIMITIVE_FUNCTION"]
