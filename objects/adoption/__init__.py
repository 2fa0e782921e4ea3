"""Adopting a running OpenStack Placement: its schema, the import (and the export)."""
