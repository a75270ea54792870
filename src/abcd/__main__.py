"""`python -m abcd` runs the same command as the `abcd` script."""

from abcd.entry import main

main()
