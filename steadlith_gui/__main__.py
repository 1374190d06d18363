"""`python -m steadlith_gui`: the same as the `steadlith-gui` command."""

import sys

from .app import main

sys.exit(main())
