"""The app's words: translation markers, the installed language, the engine's terms and choices as the
user reads them, an imported config's report, and the fonts each language asks for.
"""
