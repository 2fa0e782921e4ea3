"""Code shared by every berth process; imports nothing else of berth's."""
