"""VRPCoder's shared domain library: variants, instances, gold scripts, solutions and the checker."""

__version__ = "0.1.0"
