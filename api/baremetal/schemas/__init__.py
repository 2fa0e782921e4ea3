"""JSON schemas of the /v1 request bodies, one module per resource."""
