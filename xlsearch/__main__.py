"""`python -m xlsearch` entry point."""

from xlsearch.cli import main

raise SystemExit(main())
