"""``python -m sandbox run|doctor``."""

import sys

from .cli import main

sys.exit(main())
