"""The incremental operator build cache (kernel_meta). Never imports opbuild.compilers."""
