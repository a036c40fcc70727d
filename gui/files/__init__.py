"""What is read and written: saved scenarios (no Qt), breakdown tables (CSV / JSON / Markdown, no Qt),
chart images, what a dropped file is (no Qt), a PyTorch snapshot read in a worker thread, and writing a
file atomically. No menus: ``gui.actions`` asks for the paths and shows the problems.
"""
