"""`python -m exportlens ...`"""

from .cli import main

raise SystemExit(main())
