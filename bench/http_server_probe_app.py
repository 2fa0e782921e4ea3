"""The apps bench/http_server_probe.py hands the ``gunicorn`` command.

``wsgi_app`` is berth's bare-metal WSGI app (``api.wsgi``, configured by
``BERTH_CONFIG_FILE``); ``asgi_app`` the same app behind a2wsgi, which runs it
in a thread pool for gunicorn's asyncio ASGI worker.
"""

import a2wsgi

from api import wsgi

wsgi_app = wsgi.baremetal_application
asgi_app = a2wsgi.WSGIMiddleware(wsgi_app, workers=2)
