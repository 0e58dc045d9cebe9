"""Hostile: an exception whose class name is a ``str`` subclass. ``build_model`` raises a
``BaseException`` (not an ``Exception``, so ``build_candidate`` does not classify it); the isolated
call hands it back as an ``Escaped`` carrying ``type(exc).__name__``, which is the script's own
``str`` subclass (``type.__name__`` accepts any ``str`` instance). The child's main thread then
formats it into "build_model() raised {name}" after the per-call check has passed: the f-string
calls the subclass's ``__format__`` on the verifier's thread. From there the script walks up to
``_build_phase``'s frame, builds the gold model itself, reports it built, reads the sample and
sends the honest verdict of the gold model with the job's token: a full reward for a build that
raised."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os
import sys
import threading

import gurobipy as gp

_MARK = "VRP_ESCAPED_NAME_FORMAT"


def _take_over():
    frame = sys._getframe()
    while frame is not None:
        names = frame.f_locals
        if "setup" in names and "closing" in names:
            break
        frame = frame.f_back
    if frame is None:
        print("no _build_phase frame above", flush=True)
        return
    setup, closing = frame.f_locals["setup"], frame.f_locals["closing"]
    child = sys.modules["vrpcoder_verifier.sandbox.child"]
    from vrpcoder.candidate import build_candidate
    from vrpcoder.verification import verify_built

    reporter = closing.reporter
    os.environ[_MARK] = "1"
    config = setup.header.config
    built = build_candidate(setup.header.code, config.time_limit, config.threads)
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


Boom = type(_Name("Boom"), (BaseException,), {})


def build_model():
    print("raising a BaseException whose class name is a str subclass", flush=True)
    raise Boom()


if os.environ.get(_MARK):
    build_model = gold_build_model  # noqa: F811 - the rerun on the verifier's thread
