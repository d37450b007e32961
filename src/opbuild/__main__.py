"""``python -m opbuild ...`` runs the ``opbuild`` command (see opbuild.cli)."""

import sys

from .cli import main

sys.exit(main())
