"""The documented-examples harness (scripts/ms_doc_examples.py): extraction of MindSpore's docstring examples,
an example runner for either framework, and the comparison of their printed values. Not part of opbuild's
package: the extraction and the recording need a real MindSpore install."""
