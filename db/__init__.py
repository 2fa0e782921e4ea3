"""Database schema, engine set-up and migrations; imports nothing above it."""
