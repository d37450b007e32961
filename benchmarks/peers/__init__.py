"""The benchmark networks written for the peers (torch nn.Module, JAX pure functions), layer for layer and
shape for shape the same as opbuild's model zoo. Used only by benchmarks/bench_build.py's workers."""
