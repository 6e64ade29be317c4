"""pytest plugin registered through the ``pytest11`` entry point.

Fixtures for tests of code that calls a model (see :mod:`scenarist.fake`).
"""
