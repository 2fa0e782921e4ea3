"""One module per /v1 resource."""
