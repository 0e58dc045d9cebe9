"""Hostile: a correct model whose objective has a name that is not UTF-8. The build's check reads
every variable and constraint name (``non_utf8_name``), not the names of a multi-objective model's
objectives: the gold objective made objective 0 of a hierarchical model (an empty tie-breaker
second), written to an LP file in the scratch directory, its name's bytes replaced by ``c\\xffst``
and read back. INJ sets a multi-objective model's objectives aside on the verifier's own thread,
``ObjNName`` included, where gurobipy cannot decode it: the candidate's odd model, hoping that reads
as the verifier's crash (infrastructure: no reward at all)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp


def build_model():
    gold = gold_build_model()
    cost = gold.getObjective()
    gold.setObjectiveN(cost, 0, priority=2, name="cost")
    gold.setObjectiveN(gp.LinExpr(0.0), 1, priority=1, name="tie_break")
    gold.update()
    gold.write("gold.lp")
    with open("gold.lp", "rb") as handle:
        text = handle.read()
    text = text.replace(b"\n  cost: Priority=", b"\n  c\xffst: Priority=", 1)
    with open("odd.lp", "wb") as handle:
        handle.write(text)
    m = gp.read("odd.lp")
    m.Params.OutputFlag = 0
    m.optimize()
    print(f"model read back with a non-UTF-8 objective name: {m.NumObj} objectives", flush=True)
    return m
