"""Real sessions become scenarios: a session's typed transcript, its normalisers, the
scenario writer (``scenarist import`` reads session files into transcripts; ``scenarist
record`` reads proxied traffic into the same form).

Kept out of :mod:`scenarist.scenario`'s import path: ``scenarist validate`` never loads it.
"""
