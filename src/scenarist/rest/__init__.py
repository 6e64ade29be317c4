"""``scenarist rest``: Agent Harbor's REST API with SSE session streams, played from scenarios.

Nothing here is public API beyond the command itself (``docs/rest-server.md``); the modules
are: ``events`` (pure: timeline → session events, the two dialects), ``tools`` (the tool
mapping), ``problems`` (problem+json errors), ``requests`` (pure: request bodies and query
parameters → typed values), ``render`` (pure: session JSON), ``store`` with ``store_sqlite`` and
``store_redis`` (sessions and event history), ``session`` (plays sessions on
``scenarist.play.Player``), ``app`` (Starlette routes and SSE), ``openapi``, ``cli`` and
``process`` (run the server as a subprocess).
"""
