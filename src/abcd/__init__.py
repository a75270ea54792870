"""abcd memory: a memory for AI coding agents that is safe to keep and easy to audit.

The data flow is the layout:
agent -> cli -> gate -> journal (append) -> fold -> memory.json view -> hook -> recall.
"""

__version__ = "0.1.0"
