"""``python -m gui``: start VRAM Lab (same as the ``vramlab`` command)."""

import sys

from gui.app import main

sys.exit(main())
