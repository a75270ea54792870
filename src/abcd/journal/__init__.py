"""The note journal: stamped, hash-chained events in append-only segments, folded into a view."""
