"""`python -m exportlens ...`"""

import sys

if sys.argv[1:2] == ["serve"] and "--start-worker" in sys.argv:
    # Before the CLI's and the server's imports, which the worker's `import torch` overlaps.
    from . import early_worker

    early_worker.start(sys.executable)

from .cli import main

raise SystemExit(main())
