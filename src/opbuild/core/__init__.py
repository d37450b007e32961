"""The foundation every other package imports: graph IR, dtypes, Tensor, Parameter, tracing, errors,
configuration and units. Imports nothing of opbuild above it."""
