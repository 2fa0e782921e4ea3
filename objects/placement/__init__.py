"""Placement resources: providers, classes, inventories, traits, aggregates,
consumers, allocations, usages and quotas."""
