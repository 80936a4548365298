"""``python -m rocflash.perf``: see rocflash.perf.runner and perf/README.md."""

import sys

from .runner import main

sys.exit(main())
