"""The app shell: the main window, its menus, navigation, presentation mode, About, screenshots and the
start-up probe. It composes the pages and wires the menus' actions (``gui.actions``) and the Lessons
drawer (``gui.lessons``) to them; nothing below imports it.
"""
