"""Transformer encoder (embeddings, multi-head attention, LayerNorm, GELU MLP) in GRAPH_MODE.

    python examples/transformer.py [--layers 2] [--hidden 64] [--heads 4] [--seq 16] [--batch 2]
    python examples/transformer.py --bert-base     # 12 layers, hidden 768, 12 heads, seq 128, batch 1
"""

from __future__ import annotations

import argparse

from _demo import run_demo

from opbuild.models import BERT_BASE, TransformerConfig, transformer_encoder, transformer_input


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bert-base", action="store_true", help="use the BERT-base configuration")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--seq", type=int, default=16)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--vocab", type=int, default=1000)
    args = parser.parse_args()
    cfg = BERT_BASE if args.bert_base else TransformerConfig(
        vocab_size=args.vocab, hidden=args.hidden, heads=args.heads, layers=args.layers,
        intermediate=4 * args.hidden, seq_len=args.seq, batch=args.batch)
    title = f"transformer encoder: {cfg.layers} layers, hidden {cfg.hidden}, {cfg.heads} heads, seq {cfg.seq_len}"
    run_demo(title, lambda: transformer_encoder(cfg, seed=0), transformer_input(cfg))


if __name__ == "__main__":
    main()
