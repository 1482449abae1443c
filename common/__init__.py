"""What every tavola process shares: logging, gRPC server bootstrap and rich errors."""
