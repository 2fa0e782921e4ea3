"""Pieces both REST front-ends share: the request class, HTTP errors, path matching."""
