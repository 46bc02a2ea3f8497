"""The platform benchmark's command: `python bench/platform_bench.py [--seconds 60] [--learners 500] ...`.

The benchmark itself is the package bench/platform_load/ (its docstring says what it runs and
prints, and which figure to compare code by); this file runs its `cli.main`.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the package, and the fake platforms in tests/

from bench.platform_load.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
