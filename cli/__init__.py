"""Console entry points: berth, berth-api, berth-conductor, berth-manage."""
