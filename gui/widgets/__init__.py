"""Reusable widgets: one file per widget, each buildable and testable on its own."""
