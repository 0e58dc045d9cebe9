"""Hostile: the callback raises a ``KeyboardInterrupt`` subclass (INJ's callback guard lets
``KeyboardInterrupt`` through) whose class name is a ``str`` subclass of the script's own. It comes
out of the isolated INJ solve as an ``Escaped`` carrying that name, goes up through
``verify_built`` to the child's ``_run``, which, after the integrity check has passed, formats it
into "the candidate's code raised {name} inside the verifier": the f-string calls the subclass's
``__format__`` on the verifier's thread. From there the script walks up to ``_run``'s frame, builds
the gold model itself and sends the gold model's honest verdict with the job's nonce and token.
The model it returned is infeasible, so all it earns honestly is a violation or a failure."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os
import sys
import threading

import gurobipy as gp

_MARK = "VRP_ESCAPED_NAME_CALLBACK"


def _take_over():
    frame = sys._getframe()
    while frame is not None:
        if "setup" in frame.f_locals and "closing" in frame.f_locals:
            break
        frame = frame.f_back
    if frame is None:
        print("no frame of the child's above", flush=True)
        return
    names = frame.f_locals
    setup, closing = names["setup"], names["closing"]
    child = sys.modules["vrpcoder_verifier.sandbox.child"]
    from vrpcoder.candidate import build_candidate
    from vrpcoder.verification import verify_built

    reporter = closing.reporter
    os.environ[_MARK] = "1"
    config = setup.header.config
    built = build_candidate(setup.header.code, config.time_limit, config.threads)
    disclosure = names.get("disclosure")
    if disclosure is None:
        reporter.send(child.Built(token=reporter.token))
        disclosure = child._receive_sample(setup, reporter)
    verdict = verify_built(built, disclosure.sample, config)
    print("FORGED: gold verdict sent from the verifier's thread", flush=True)
    reporter.send(child.Finished(nonce=disclosure.nonce, verdict=verdict, token=reporter.token))
    os._exit(0)


class _Name(str):
    def __format__(self, spec):
        if threading.current_thread() is threading.main_thread():
            _take_over()
        return str.__format__(str(self), spec)


Interrupt = type(_Name("Interrupt"), (KeyboardInterrupt,), {})
_armed = [False]


def callback(model, where):
    if _armed[0]:
        raise Interrupt()


def build_model():
    m = gold_build_model()
    m.addConstr(gp.quicksum(m.getVars()) <= -1, name="impossible")
    m.optimize(callback)
    _armed[0] = True
    print("model made infeasible; callback armed with a KeyboardInterrupt named by a str subclass", flush=True)
    return m


if os.environ.get(_MARK):
    build_model = gold_build_model  # noqa: F811 - the rerun on the verifier's thread
