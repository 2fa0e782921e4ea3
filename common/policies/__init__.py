"""oslo.policy rule defaults of both APIs, below api/ so the conductors check them too."""
