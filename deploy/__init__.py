"""Running tavola: the local process stack (demo, run, tests, bench) and deployment files."""
