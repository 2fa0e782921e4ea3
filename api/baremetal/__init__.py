"""The bare-metal REST API: Ironic's /v1 nodes and allocations."""
