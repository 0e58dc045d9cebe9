"""Cross-cutting pieces of the API: bearer auth, the body size limit, Prometheus metrics."""
