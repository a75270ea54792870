"""The reviewer's desk: `abcd review` serves the notes and the journal as local web pages.

A thin edge beside `abcd.cli`: it reads through the same core (`abcd.notes`,
`abcd.journal.history`) and acts through it, never with its own reading of
the journal. Nothing here is imported on the prompt hook's path.
"""
