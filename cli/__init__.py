"""Console entry points: berth, berth-api, berth-conductor, berth-manage."""

import warnings

# oslo.messaging imports eventlet (berth never monkey-patches it; the RPC server
# runs on threads); its import-time deprecation notice is only noise for operators.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
