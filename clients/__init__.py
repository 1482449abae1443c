"""Reference clients of the public gateway API."""
