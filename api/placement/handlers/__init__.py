"""One module per REST resource: thin handlers that parse, authorize, delegate, reply."""
