"""The `openstack berth ...` commands (command group openstack.berth.v1)."""
