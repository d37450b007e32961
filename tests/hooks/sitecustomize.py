"""Installs opbuild's test hooks in a test's subprocess (Python imports ``sitecustomize`` at start-up from the
first folder of ``sys.path`` that has one). A test puts this folder first on the child's PYTHONPATH
(``tests/helpers.py``: :func:`with_test_hooks`) and sets the hook's variable; the package itself reads none of
them (tests/project/test_no_test_hooks.py)."""

import os

if os.environ.get("OPBUILD_TEST_COMMIT_HOOK") or os.environ.get("OPBUILD_TEST_COMPILE_DELAY"):
    import opbuild_test_hooks

    opbuild_test_hooks.install()
