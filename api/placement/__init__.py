"""The Placement-compatible API (microversions 1.0 to 1.39)."""
