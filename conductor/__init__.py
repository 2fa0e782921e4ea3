"""The conductors: RPC servers that do the writes that race, and their ring."""
