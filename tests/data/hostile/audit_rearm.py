"""Hostile: undo the child's clean-up of interpreter state. Before the integrity check the child puts
back signal handlers and timers; its last step there (a ``fcntl`` on the sample pipe) is an audited
event, and the candidate may add an audit hook of its own. That hook re-arms a timer whose handler
waits for INJ's own parameter setting (the verifier is running, past the post-build check) and then
installs self-restoring replacements of the verifier's ``reward`` and ``Verdict`` (as in
restore_in_verify): every name is back in place by the final check."""

import signal
import sys

import gurobipy as gp

_verification = sys.modules["vrpcoder.verification"]
_InjVerdict = sys.modules["vrpcoder.injection"].InjVerdict
_model = []


def _arm(signum, frame):
    if _model[0].Params.SolutionLimit != 1:  # INJ's setting: the verifier is running, its checks are behind it
        return
    signal.setitimer(signal.ITIMER_REAL, 0)
    real_reward, real_verdict = _verification.reward, _verification.Verdict

    def reward(build, diff, inj_fraction, weights):
        _verification.reward = real_reward
        return real_reward(True, True, 1.0, weights)

    def verdict(**fields):
        _verification.Verdict = real_verdict
        probes = tuple(p.model_copy(update={"passed": True, "verdict": _InjVerdict(p.label.value), "error": None}) for p in fields["probes"])
        fields.update(status="optimal", objective=fields["reference_objective"], diff=True, probes=probes, passed=True,
                      error=None, routing_variable=None)
        print("FORGED: a timer re-armed from an audit hook patched the verifier", flush=True)
        return real_verdict(**fields)

    _verification.reward, _verification.Verdict = reward, verdict


_done = [False]


def _hook(event, args):
    if event == "fcntl.fcntl" and not _done[0]:
        _done[0] = True
        signal.signal(signal.SIGALRM, _arm)
        signal.setitimer(signal.ITIMER_REAL, 0.0002, 0.0002)


def build_model():
    m = gp.Model()
    m.Params.OutputFlag = 0
    x = m.addVars(6, 6, name="x")
    m.optimize()
    _model.append(m)
    sys.addaudithook(_hook)
    print("audit hook added", flush=True)
    return m
