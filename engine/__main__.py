"""``python -m engine``: the engine's command line."""

import sys

from engine.cli import main

sys.exit(main())
