"""Put on PYTHONPATH by ``opbuild run --as-mindspore``: child processes of the script install the mindspore
import alias at start-up (when OPBUILD_AS_MINDSPORE=1), so ``import mindspore`` in them gives opbuild too."""

import os

if os.environ.get("OPBUILD_AS_MINDSPORE", "").strip().lower() in ("1", "true", "yes", "on"):
    from opbuild.alias import alias_mindspore

    alias_mindspore()
