"""The bundle's entry script: the same ``studio`` command (GUI, ``studio train …``, spawned workers)."""

import sys

from studio.app import main

if __name__ == "__main__":
    sys.exit(main())
