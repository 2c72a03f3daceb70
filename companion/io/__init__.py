"""Devices: buttons, encoder, display, keyboard emulator. They know no game."""
