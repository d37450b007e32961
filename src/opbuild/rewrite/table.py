"""The node table ``SymbolTree.print_node_tabulate`` prints."""

from __future__ import annotations

from .api.node_type import NodeType

HEADERS = ("node type", "name", "codes", "arg providers", "target users")


def _code(node, writer) -> str:
    if node.node_type == NodeType.Input:
        return writer.signature([node]).split(", ", 1)[1]
    lines = writer.statement(node, "")
    return lines[0] + (" ..." if len(lines) > 1 else "")


def node_table(tree, nodes, writer) -> str:
    """A plain-text table of ``nodes`` (one row each)."""
    rows = []
    for n in nodes:
        providers = {i: (p.name, k) for i, (p, k) in tree.arg_providers(n).items()}
        users = {i: [(u.name, a) for u, a in us] for i, us in tree.target_users(n).items()}
        rows.append((n.node_type.name, n.name, _code(n, writer), str(providers) if providers else "",
                     str(users) if users else ""))
    widths = [max(len(r[c]) for r in [HEADERS, *rows]) for c in range(len(HEADERS))]
    line = "  ".join("-" * w for w in widths)
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [fmt.format(*HEADERS).rstrip(), line] + [fmt.format(*r).rstrip() for r in rows]
    return "\n".join(out)
