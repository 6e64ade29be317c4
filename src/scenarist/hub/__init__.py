"""Agent hub: a WebSocket server that spawns configured agent CLIs and streams their output.

The hub starts programs on request, so it is treated as a remote shell: loopback by default,
a token on every request, an Origin check, configured agents only (argv lists, never a shell
string), and limits on frame size and message rate. See ``docs/hub-protocol.md``.

Public API:
- :func:`scenarist.hub.config.load_config` / :class:`~scenarist.hub.config.HubConfig`
- :func:`scenarist.hub.server.create_app` (a Starlette app) and
  :class:`~scenarist.hub.server.Hub` (the agents and their subscribers)
- ``scenarist hub`` → :func:`scenarist.hub.cli.main`
"""
