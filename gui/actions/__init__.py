"""What the menus' entries do: open, save and recent scenarios, import a training config, open a
PyTorch snapshot, export and copy, and files dropped on the window. Each is a controller the main
window wires to its menu items; a page takes part through ``gui.pages.contract``'s protocols.
"""
