"""One module per ``python -m engine`` command; each exposes ``register(subparsers)``."""
