"""The incremental operator build cache (kernel_meta). Never imports a target or a compiler (opbuild.targets)."""
