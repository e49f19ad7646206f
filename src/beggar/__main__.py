"""`python3 -m beggar` runs the `beggar` command."""

import sys

from .cli import main

sys.exit(main())
