"""Rules services: one pure engine per game, each wrapped by the generic rules server."""
