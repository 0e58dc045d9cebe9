"""``python -m vrpcoder_verifier api|worker|demo``: the verifier commands without the shared CLI."""

from vrpcoder_verifier.cli import app

app(prog_name="vrpcoder verifier")
