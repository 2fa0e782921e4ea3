"""SQL helpers shared by every domain."""
