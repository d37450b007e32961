"""ResNet-style CNN in GRAPH_MODE (conv, batch-norm, ReLU, residual adds, pooling, dense head).

    python examples/resnet.py [--arch small|resnet50] [--width 8] [--image-size 16] [--batch 2] [--classes 10]

``--arch resnet50 --width 64 --image-size 224 --batch 1`` is the real ResNet-50 (cold build: many kernels).
"""

from __future__ import annotations

import argparse

from _demo import run_demo

from opbuild.models import resnet50, resnet_input, resnet_small


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", choices=["small", "resnet50"], default="small")
    parser.add_argument("--width", type=int, default=8)
    parser.add_argument("--image-size", type=int, default=16)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--classes", type=int, default=10)
    args = parser.parse_args()
    build = resnet_small if args.arch == "small" else resnet50
    x = resnet_input(args.batch, args.image_size)
    run_demo(f"{args.arch} ResNet, width {args.width}", lambda: build(args.classes, args.width, seed=0), x)


if __name__ == "__main__":
    main()
