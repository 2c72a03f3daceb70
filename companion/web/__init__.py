"""The phone view: a read-only live page of the game, served only while it is on."""
