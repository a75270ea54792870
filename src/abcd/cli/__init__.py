"""The command line: thin typer commands that parse, call the core, render, and map errors to exits."""
