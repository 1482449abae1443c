"""``python -m common.settings``: the Configuration table (``--markdown``: into docs/operators.md)."""

from common.settings import main

raise SystemExit(main())
