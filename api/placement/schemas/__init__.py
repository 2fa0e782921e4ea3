"""JSON schemas of request bodies and query strings, per resource and microversion."""
