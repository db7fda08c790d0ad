"""``python -m studio``: the same as the ``studio`` command."""

import sys

from studio.app import main

if __name__ == "__main__":
    sys.exit(main())
