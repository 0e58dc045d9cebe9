"""What the sandbox child puts back after each call of the candidate's code."""

from __future__ import annotations

import logging

from vrpcoder_verifier.sandbox.child import InterpreterState


class _Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage())


def test_logging_is_put_back_as_it_was() -> None:
    """gurobipy logs through ``logging`` on the verifier's thread: a handler, filter, level or
    logger the candidate left there would run its code in the verifier."""
    gurobi = logging.getLogger("gurobipy")
    before = (list(gurobi.handlers), list(gurobi.filters), gurobi.level, gurobi.propagate)
    state = InterpreterState(blocking_fds=())
    planted = _Recorder()
    gurobi.addHandler(planted)
    gurobi.addFilter(lambda record: True)
    gurobi.setLevel(logging.DEBUG)
    gurobi.propagate = False
    logging.getLogger().addHandler(planted)
    logging.getLogger("the.candidates.own")
    state.restore()
    assert (list(gurobi.handlers), list(gurobi.filters), gurobi.level, gurobi.propagate) == before
    assert planted not in logging.getLogger().handlers
    assert "the.candidates.own" not in logging.Logger.manager.loggerDict
    gurobi.warning("after the restore")
    assert planted.seen == []
