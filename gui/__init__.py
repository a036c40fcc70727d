"""VRAM Lab's desktop front end (PySide6 + pyqtgraph).

It shows what the engine computes and never re-derives a number: pages read the shared ``Scenario``
(``gui.state.scenario``), ask ``engine`` for results and draw them. Start it with ``vramlab`` or ``python -m gui``.
"""
