"""`python -m differ` runs the command line."""

from differ.cli import main

raise SystemExit(main())
