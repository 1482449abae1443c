"""The lab: bots against bots offline (arena, calibration, settled answers)."""
