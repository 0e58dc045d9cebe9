"""Evaluation service: Pass@1 and constraint-level metrics on the four benchmarks. Built on
`vrpcoder` (shared)."""
