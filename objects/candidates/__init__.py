"""Allocation candidate engine: plan, set-based loading, per-anchor search, summaries."""
