"""Packaging shim (metadata is in pyproject.toml): ships the checkout's ``assets/`` folder inside the wheel as
``gui/assets``, where ``gui.resources`` finds it in an installed copy, and the engine's data files (catalogs,
lessons) inside ``engine``, where ``importlib.resources`` finds them (``tests/packaging/test_setup.py`` checks
that the globs cover every one). Package lists are found, not typed, so a new engine or gui subpackage needs no
change here."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["engine", "engine.*", "gui", "gui.*"]), "gui.assets"],
    package_dir={"gui.assets": "assets"},
    package_data={"engine": ["catalog/*.json", "lessons/data/*.json", "timing/data/*.json"], "gui.assets": ["**/*"]},
)
