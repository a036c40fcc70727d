"""What the pages show and how it changes: the shared ``Scenario``, a page's ``PageState``, the ``Binder``
between controls and fields, the one recompute policy, the sliders' ranges and scales, and the undo
history of whole-scenario steps.
"""
