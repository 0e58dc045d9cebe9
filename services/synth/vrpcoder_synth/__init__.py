"""Synthesis service: the 4-stage data pipeline (samples, NL statements, regenerated code,
dual-verified rejection sampling). Built on `vrpcoder` (shared).

Entry points: ``vrpcoder synth run`` / ``vrpcoder synth stats`` (``vrpcoder_synth.cli``);
``vrpcoder_synth.statements.write_statement`` for anyone who needs a statement of an instance.
"""

__version__ = "0.2.0"
"""Enters every work item's key: a new version (statements worded anew, say) redoes every item."""
