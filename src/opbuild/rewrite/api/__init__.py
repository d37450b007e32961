"""The public classes of ``opbuild.rewrite`` (``mindspore.rewrite.api``'s module layout: ``api.symbol_tree``,
``api.node``, ``api.node_type``, ``api.scoped_value``)."""
