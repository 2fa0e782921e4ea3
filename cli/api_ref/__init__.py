"""The api-ref generator: a tool of the docs build (``make sample-config``), not of the server.

``python -m cli.api_ref.generate api-ref/source`` writes the os-api-ref
sources from the route tables and handlers (:mod:`cli.api_ref.generate`);
``python -m cli.api_ref.samples api-ref/source/samples`` runs the sample
scenario (:mod:`cli.api_ref.scenario`) against an embedded berth.
"""
