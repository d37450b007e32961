"""MLP classifier in GRAPH_MODE: the first call builds one kernel per distinct operator, the second call
reuses the compiled graph, and a fresh copy of the network reuses the cached kernels.

    python examples/mlp.py [--batch 8] [--in-features 784] [--hidden 256 128] [--classes 10]

Run it twice: the second process finds every kernel in rank_0/kernel_meta (``0 built``).
"""

from __future__ import annotations

import argparse

from _demo import run_demo

from opbuild.models import mlp, mlp_input


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--in-features", type=int, default=784)
    parser.add_argument("--hidden", type=int, nargs="+", default=[256, 128])
    parser.add_argument("--classes", type=int, default=10)
    args = parser.parse_args()
    x = mlp_input(args.batch, args.in_features)
    run_demo(f"MLP {args.in_features} -> {' -> '.join(map(str, args.hidden))} -> {args.classes}",
             lambda: mlp(args.in_features, tuple(args.hidden), args.classes, seed=0), x)


if __name__ == "__main__":
    main()
