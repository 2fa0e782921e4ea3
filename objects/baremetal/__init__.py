"""Bare metal: nodes, node allocations (Ironic's /v1), reservation and the Placement mirror."""
