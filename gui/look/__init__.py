"""How the app looks: light, dark and high-contrast themes, the colours of pages and charts, the widget
style, and the WCAG contrast ratio the palettes are checked with.
"""
