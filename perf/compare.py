#!/usr/bin/env python3
"""Compare two ``python -m rocflash.perf --json`` files: per-case ratios, exit 1 on a regression.

    python perf/compare.py old.json new.json [--threshold 0.10] [--metric ms|kernel_ms] [--methods ...]

The logic lives in rocflash/perf/compare.py (also ``python -m rocflash.perf.compare``). This script uses the
rocflash package of the checkout it sits in, so it works without installing rocflash.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rocflash.perf.compare import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
