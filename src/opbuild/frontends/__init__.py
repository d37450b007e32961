"""Model importers: turn a model of another framework into an opbuild Cell (optional extras)."""
