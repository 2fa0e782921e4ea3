"""python-berthclient: OpenStackClient commands for berth's Placement extensions."""
