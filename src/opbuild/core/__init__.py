"""The foundation every other package imports: graph IR, dtypes, Tensor, Parameter and its initializers,
tracing, errors, configuration and units. Imports nothing of opbuild above it; the two services it needs from
above (the runtime's engine, the functional API of Tensor's methods) are looked up by name in providers.py."""
