"""Legacy data brought forward: Nova compute nodes, pre-consumer allocations, online migrations."""
