"""Per-session facts: what recall sent, resets, fill readings. Each file is a fold of its events."""
