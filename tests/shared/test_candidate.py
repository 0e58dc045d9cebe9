"""Loading candidate scripts in-process: models, callbacks, locals, caps and the error taxonomy.

Objectives are checked against brute force over the same tiny data (written out here, not
taken from the scripts), so a candidate fixture that is not actually correct fails loudly.
"""

from __future__ import annotations

import itertools
import math
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Sequence
from pathlib import Path

import gurobipy as gp
import pytest

from vrpcoder.candidate import BuiltCandidate, build_candidate, model_outcome
from vrpcoder.errors import ErrorKind, VerificationFailure

CANDIDATES = Path(__file__).resolve().parents[1] / "data" / "candidates"

TSP_COORDS = [(50, 50), (60, 50), (60, 60), (50, 60), (40, 60), (40, 50)]
CVRP_COORDS = [(50, 50), (60, 55), (65, 65), (55, 70), (40, 60), (35, 45), (45, 35)]
CVRP_DEMAND = [0, 3, 3, 2, 4, 2, 1]
CVRP_Q, CVRP_K = 10, 3


def read_candidate(name: str) -> str:
    return (CANDIDATES / f"{name}.py").read_text()


def build(name: str) -> BuiltCandidate:
    return build_candidate(read_candidate(name))


def _dist(coords: Sequence[tuple[float, float]], a: int, b: int) -> float:
    return math.hypot(coords[a][0] - coords[b][0], coords[a][1] - coords[b][1])


def best_tour(coords: Sequence[tuple[float, float]], customers: Sequence[int]) -> float:
    """Shortest closed tour from node 0 through ``customers`` (brute force)."""
    if not customers:
        return 0.0
    return min(
        sum(_dist(coords, a, b) for a, b in itertools.pairwise((0, *perm, 0)))
        for perm in itertools.permutations(customers)
    )


def set_partitions(items: list[int]) -> list[list[list[int]]]:
    if not items:
        return [[]]
    first, rest = items[0], items[1:]
    out: list[list[list[int]]] = []
    for part in set_partitions(rest):
        out.append([[first], *part])
        for i in range(len(part)):
            out.append([*part[:i], [first, *part[i]], *part[i + 1 :]])
    return out


def best_cvrp() -> float:
    customers = list(range(1, len(CVRP_COORDS)))
    return min(
        sum(best_tour(CVRP_COORDS, block) for block in part)
        for part in set_partitions(customers)
        if len(part) <= CVRP_K and all(sum(CVRP_DEMAND[c] for c in block) <= CVRP_Q for block in part)
    )


# ---- correct candidates ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["tsp_mtz_3index", "tsp_dfj_lazy"])
def test_tsp_candidates_reach_the_brute_force_optimum(name: str) -> None:
    outcome = model_outcome(build(name).model)
    assert outcome.status == "optimal"
    assert outcome.has_solution
    assert outcome.objective == pytest.approx(best_tour(TSP_COORDS, range(1, 6)), abs=1e-6)


@pytest.mark.parametrize("name", ["cvrp_mtz_3index", "cvrp_flow_2index", "cvrp_one_based"])
def test_cvrp_candidates_reach_the_brute_force_optimum(name: str) -> None:
    outcome = model_outcome(build(name).model)
    assert outcome.status == "optimal"
    assert outcome.objective == pytest.approx(best_cvrp(), abs=1e-6)


def test_the_lazy_callback_is_captured_with_the_model() -> None:
    built = build("tsp_dfj_lazy")
    assert built.callback is built.namespace["subtour_cb"]
    assert build("tsp_mtz_3index").callback is None


def test_a_callback_passed_by_keyword_is_captured_too() -> None:
    code = read_candidate("tsp_dfj_lazy").replace("m.optimize(subtour_cb)", "m.optimize(callback=subtour_cb)")
    built = build_candidate(code)
    assert built.callback is built.namespace["subtour_cb"]
    assert model_outcome(built.model).objective == pytest.approx(best_tour(TSP_COORDS, range(1, 6)), abs=1e-6)


def test_locals_of_build_model_are_kept_in_the_namespace() -> None:
    built = build("cvrp_one_based")
    assert built.namespace["node_ids"] == [1, 2, 3, 4, 5, 6, 7]
    assert built.namespace["id2idx"] == {bid: bid - 1 for bid in range(1, 8)}
    assert built.namespace["Q"] == 10  # module globals are there too
    assert built.build_seconds > 0


NESTED_LOCALS = textwrap.dedent(
    """
    import gurobipy as gp

    def helper(n):
        inner_only = [i * 2 for i in range(n)]
        return len(inner_only)

    def build_model():
        sizes = [helper(k) for k in range(5)]
        node_ids = [7, 8, 9]
        m = gp.Model()
        m.Params.OutputFlag = 0
        return m
    """
)


def test_locals_come_from_build_model_itself_not_from_the_functions_it_calls() -> None:
    built = build_candidate(NESTED_LOCALS)
    assert built.namespace["sizes"] == [0, 1, 2, 3, 4]
    assert built.namespace["node_ids"] == [7, 8, 9]
    assert "inner_only" not in built.namespace


def test_a_tracer_already_installed_keeps_seeing_the_calls_build_model_makes() -> None:
    seen: list[str] = []

    def outer_tracer(frame: object, event: str, arg: object) -> None:
        seen.append(frame.f_code.co_name)  # type: ignore[attr-defined]

    previous = sys.gettrace()
    sys.settrace(outer_tracer)  # type: ignore[arg-type]
    try:
        built = build_candidate(NESTED_LOCALS)
    finally:
        sys.settrace(previous)
    assert built.namespace["node_ids"] == [7, 8, 9]
    assert "helper" in seen and "build_model" not in seen


def test_optimize_is_restored_after_success_and_failure() -> None:
    original = gp.Model.optimize
    build("tsp_mtz_3index")
    assert gp.Model.optimize is original
    with pytest.raises(VerificationFailure):
        build_candidate("def build_model():\n    raise RuntimeError('boom')\n")
    assert gp.Model.optimize is original


def test_builds_in_parallel_threads_keep_their_own_callbacks() -> None:
    original = gp.Model.optimize
    with ThreadPoolExecutor(max_workers=2) as pool:
        builds = list(pool.map(lambda _: build("tsp_dfj_lazy"), range(2)))
    assert all(b.callback is b.namespace["subtour_cb"] for b in builds)
    assert builds[0].callback is not builds[1].callback
    assert gp.Model.optimize is original


def test_the_main_block_does_not_run() -> None:
    code = read_candidate("cvrp_mtz_3index") + "\nif __name__ == '__main__':\n    raise SystemExit(3)\n"
    assert model_outcome(build_candidate(code).model).status == "optimal"


CAPPED = """
import gurobipy as gp
def build_model():
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.Params.Threads = 4
    m.Params.TimeLimit = {own}
    x = m.addVar(vtype='B', name='y')
    m.setObjective(x, gp.GRB.MAXIMIZE)
    m.optimize()
    return m
"""


@pytest.mark.parametrize(("own", "ours", "expected"), [(100.0, 5.0, 5.0), (2.0, 5.0, 2.0), (7.0, None, 7.0)])
def test_caps_tighten_the_candidate_settings(own: float, ours: float | None, expected: float) -> None:
    model = build_candidate(CAPPED.format(own=own), time_limit=ours, threads=1).model
    assert model.Params.TimeLimit == expected
    assert model.Params.Threads == 1


def test_threads_are_left_alone_when_no_cap_is_given() -> None:
    model = build_candidate(CAPPED.format(own=1.0), threads=None).model
    assert model.Params.Threads == 4


def test_a_model_that_was_never_optimized_is_solved_for_its_status() -> None:
    code = """
import gurobipy as gp
def build_model():
    m = gp.Model()
    m.Params.OutputFlag = 0
    y = m.addVar(vtype='B', name='y')
    m.setObjective(2 * y + 1, gp.GRB.MAXIMIZE)
    return m
"""
    outcome = model_outcome(build_candidate(code).model)
    assert (outcome.status, outcome.objective) == ("optimal", 3.0)


def test_an_infeasible_model_is_a_model_not_a_build_error() -> None:
    code = """
import gurobipy as gp
def build_model():
    m = gp.Model()
    m.Params.OutputFlag = 0
    a = m.addVar(vtype='B')
    b = m.addVar(vtype='B')
    m.addConstr(a + b >= 3)
    m.optimize()
    return m
"""
    outcome = model_outcome(build_candidate(code).model)
    assert outcome.status == "infeasible"
    assert outcome.objective is None
    assert not outcome.has_solution


# ---- broken candidates ----------------------------------------------------------------------

TOO_BIG = """
import gurobipy as gp
def build_model():
    m = gp.Model()
    m.Params.OutputFlag = 0
    x = m.addVars(2500, vtype='B', name='x')
    m.setObjective(x.sum())
    {optimize}
    return m
"""

THROWAWAY = """
import gurobipy as gp
def build_model():
    big = gp.Model()
    big.Params.OutputFlag = 0
    big.addVars(2500)
    try:
        big.optimize()
    except gp.GurobiError:
        pass
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.addVar(name="y")
    {then}
"""
"""A throwaway model solved only to be refused by the licence: its refusal is no excuse for what follows."""

BROKEN: list[tuple[str, str, ErrorKind, str]] = [
    ("syntax", "def build_model(:\n    pass\n", ErrorKind.SYNTAX_ERROR, "line 1"),
    (
        "no build_model",
        "import gurobipy as gp\nm = gp.Model()\n",
        ErrorKind.MISSING_BUILD_MODEL,
        "build_model",
    ),
    ("not callable", "build_model = 3\n", ErrorKind.MISSING_BUILD_MODEL, "build_model"),
    ("import crash", "import gurobipy\nRATIO = 1 / 0\n", ErrorKind.BUILD_ERROR, "ZeroDivisionError"),
    (
        "build crash",
        "def build_model():\n    demand = {1: 2}\n    return demand[7]\n",
        ErrorKind.BUILD_ERROR,
        "return demand[7]",
    ),
    ("exit", "import sys\ndef build_model():\n    sys.exit(2)\n", ErrorKind.BUILD_ERROR, "SystemExit"),
    ("out of memory", "def build_model():\n    raise MemoryError()\n", ErrorKind.MEMORY_LIMIT, "memory"),
    ("returns None", "def build_model():\n    return None\n", ErrorKind.NOT_A_MODEL, "NoneType"),
    (
        "returns a tuple",
        "import gurobipy as gp\ndef build_model():\n    m = gp.Model()\n    return m, 1\n",
        ErrorKind.NOT_A_MODEL,
        "tuple",
    ),
    ("too big", TOO_BIG.format(optimize="m.optimize()"), ErrorKind.SIZE_LIMITED_LICENCE, "size-limited"),
    (
        "too big, error swallowed",
        TOO_BIG.format(
            optimize="try:\n        m.optimize()\n    except gp.GurobiError as e:\n        print(e)"
        ),
        ErrorKind.SIZE_LIMITED_LICENCE,
        "size-limited",
    ),
    (
        "too big, never optimized",
        TOO_BIG.format(optimize="pass"),
        ErrorKind.SIZE_LIMITED_LICENCE,
        "size-limited",
    ),
    (
        "returns a freed model",
        "import gurobipy as gp\ndef build_model():\n    with gp.Model() as m:\n        m.optimize()\n    return m\n",
        ErrorKind.NOT_A_MODEL,
        "can no longer be read",
    ),
    (
        "a failure while handling the licence's refusal",
        TOO_BIG.format(
            optimize="try:\n        m.optimize()\n    except gp.GurobiError:\n        m.ObjVal"
        ),
        ErrorKind.SIZE_LIMITED_LICENCE,
        "ObjVal",
    ),
    (
        "a refusal caught and left behind, then a failure of the script's own",
        THROWAWAY.format(then="raise ValueError('my own bug')"),
        ErrorKind.BUILD_ERROR,
        "my own bug",
    ),
    (
        "a home-made size-limit error is the script's own failure",
        "import gurobipy as gp\ndef build_model():\n    raise gp.GurobiError(10010, 'Model too large')\n",
        ErrorKind.BUILD_ERROR,
        "Model too large",
    ),
]


@pytest.mark.parametrize(("code", "kind", "fragment"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_broken_candidates_get_their_error_kind(code: str, kind: ErrorKind, fragment: str) -> None:
    with pytest.raises(VerificationFailure) as info:
        build_candidate(code)
    assert info.value.error.kind is kind
    assert fragment in info.value.error.detail


def test_tracebacks_show_only_candidate_frames_and_are_capped() -> None:
    code = textwrap.dedent(
        """
        def helper():
            raise ValueError("x" * 5000)

        def build_model():
            return helper()
        """
    )
    with pytest.raises(VerificationFailure) as info:
        build_candidate(code)
    detail = info.value.error.detail
    assert "candidate.py" not in detail
    assert len(detail) < 2200
    short = "def helper():\n    raise ValueError('bad data')\ndef build_model():\n    return helper()\n"
    with pytest.raises(VerificationFailure) as info:
        build_candidate(short)
    detail = info.value.error.detail
    assert "line 4, in build_model: return helper()" in detail
    assert "line 2, in helper" in detail
    assert detail.rstrip().endswith("ValueError: bad data")


def test_a_refusal_of_another_model_does_not_make_the_returned_one_too_large() -> None:
    built = build_candidate(THROWAWAY.format(then="m.optimize()\n    return m"))
    assert built.outcome.status == "optimal"


def test_the_outcome_is_read_off_the_best_solution_whichever_the_script_looked_at_last() -> None:
    code = textwrap.dedent(
        """
        import gurobipy as gp
        def build_model():
            m = gp.Model()
            m.Params.OutputFlag = 0
            a = m.addVar(vtype="I", ub=5, name="a")
            m.setObjectiveN(-a, index=0, priority=2)
            m.setObjectiveN(0 * a, index=1, priority=1)
            m.optimize()
            m.Params.SolutionNumber = m.SolCount + 3
            return m
        """
    )
    assert build_candidate(code).outcome.objective == pytest.approx(-5.0)


def test_the_scripts_node_table_is_copied_to_plain_data() -> None:
    """Labels and positions are exact str and int, whatever the script's own types: the verifier
    looks them up later, where a subclass's ``__eq__`` or ``__hash__`` would run the script's code."""
    code = textwrap.dedent(
        """
        import gurobipy as gp
        class Label(str):
            pass
        class Position(int):
            pass
        id2idx = {Label("A"): Position(0), Label("B"): Position(1)}
        def build_model():
            m = gp.Model()
            m.Params.OutputFlag = 0
            m.optimize()
            return m
        """
    )
    table = build_candidate(code).node_table.table
    assert table == {"A": 0, "B": 1}
    assert table is not None and {(type(k), type(v)) for k, v in table.items()} == {(str, int)}


@pytest.mark.parametrize(
    ("priorities", "weights", "expected"),
    [((1, 1), (1.0, 1.0), 5.0), ((1, 1), (1.0, 0.5), 3.5), ((2, 1), (1.0, 1.0), 2.0), ((1, 2), (1.0, 1.0), 3.0)],
    ids=["blend", "weighted blend", "first is primary", "second is primary"],
)
def test_a_multi_objective_outcome_is_its_top_priority_blend(
    priorities: tuple[int, int], weights: tuple[float, float], expected: float
) -> None:
    model = gp.Model()
    model.Params.OutputFlag = 0
    a, b = model.addVar(lb=2, name="a"), model.addVar(lb=3, name="b")
    for index, (var, priority, weight) in enumerate(zip((a, b), priorities, weights, strict=True)):
        model.setObjectiveN(var + 0, index=index, priority=priority, weight=weight)
    model.optimize()
    assert model_outcome(model).objective == pytest.approx(expected)
