"""The host's side: its payloads (hook stdin, the status line's JSON) and the entry points it runs.

Modules here run on every prompt or every status refresh, so they import
neither typer nor rich, and only what they use.
"""
