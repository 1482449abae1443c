"""Benchmarks: commands that print figures. Nothing here asserts a time."""
