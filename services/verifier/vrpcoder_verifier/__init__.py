"""Verifier service: runs untrusted candidate scripts in a sandbox and answers DIFF / INJ / verify
requests over HTTP, with jobs queued through Redis + rq. Built on `vrpcoder` (shared)."""
