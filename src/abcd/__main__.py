"""`python -m abcd` runs the same command as the `abcd` script."""

from abcd.cli.main import main

main()
