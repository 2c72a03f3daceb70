"""Screens and widgets: they draw on plain 128x64 1-bit PIL images and never touch devices."""
