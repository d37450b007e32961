"""Kernel code generation: descriptor -> C source (see :mod:`opbuild.codegen.c`)."""
