"""The gateway: tavola's only public door. Stateless; tables live in Redis."""
