"""Synthesis service: the 4-stage data pipeline (samples, NL statements, regenerated code,
dual-verified rejection sampling). Built on `vrpcoder` (shared)."""
