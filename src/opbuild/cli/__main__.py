"""``python -m opbuild.cli ...`` runs the ``opbuild`` command."""

import sys

from . import main

sys.exit(main())
