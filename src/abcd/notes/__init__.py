"""Notes: the limits a note must keep, the project's file, and the commands that write the journal."""
