"""Holds the sitecustomize that ``opbuild run --as-mindspore`` puts on PYTHONPATH for child processes."""
