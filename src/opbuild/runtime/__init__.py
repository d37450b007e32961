"""Loading built kernels and executing graphs."""
