"""The INJ operator on hand-built instances, hand-written probes and hand-written candidates.

Every expected verdict below follows from the candidate's formulation and the probe by hand:
correct scripts accept s+ and reject each s-, and each buggy script accepts exactly the probe
whose constraint family it dropped (or rejects s+ when it adds a spurious rule).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import cache
from pathlib import Path

import gurobipy as gp
import pytest
from gurobipy import GRB

from vrpcoder.candidate import (
    BuiltCandidate,
    build_candidate,
    model_outcome,
    read_node_table,
    read_python_variable,
)
from vrpcoder.errors import ErrorKind, VerificationFailure
from vrpcoder.injection import (
    INJ_PREFIX,
    BoundPlan,
    InjVerdict,
    NodeMap,
    RoutingVariable,
    consecutive_arc_pairs,
    encode_probe,
    find_routing_variable,
    match_routing_variable,
    inject,
    unused_arcs,
    unvisited_customers,
    used_arcs,
)
from vrpcoder.instances import Customer, Depot, Instance, TimeWindow, Vehicle
from vrpcoder.probes import Encoding, Label, Probe
from vrpcoder.solutions import Cycle, Route, Solution
from vrpcoder.variants import ATTACKERS, Attacker

CANDIDATES = Path(__file__).resolve().parents[1] / "data" / "candidates"
FEAS, INFEAS = InjVerdict.FEASIBLE, InjVerdict.INFEASIBLE

# ---- instances (same numbers as the candidate scripts under tests/data/candidates) ------------


def tsp() -> Instance:
    points = [(60, 50), (60, 60), (50, 60), (40, 60), (40, 50)]
    return Instance(
        name="tiny-tsp",
        variant="TSP",
        depots=(Depot(x=50, y=50),),
        customers=tuple(Customer(x=x, y=y) for x, y in points),
        vehicles=(Vehicle(),),
    )


def cvrp() -> Instance:
    points = [(60, 55), (65, 65), (55, 70), (40, 60), (35, 45), (45, 35)]
    demands = [3, 3, 2, 4, 2, 1]
    return Instance(
        name="tiny-cvrp",
        variant="CVRP",
        depots=(Depot(x=50, y=50),),
        customers=tuple(Customer(x=x, y=y, demand=d) for (x, y), d in zip(points, demands, strict=True)),
        vehicles=(Vehicle(capacity=10),) * 3,
    )


def hfvrp(capacities: tuple[float, ...] = (10, 12, 14)) -> Instance:
    """The CVRP's customers with a fleet of the given capacities (equal ones are twins)."""
    return cvrp().model_copy(update={"variant": "HFVRP", "name": "tiny-hfvrp", "vehicles": tuple(
        Vehicle(capacity=c, type_name=f"cap{c}") for c in capacities
    )})


def vrphtw() -> Instance:
    points = [(10, 0), (20, 0), (30, 0), (0, 10), (0, 20)]
    windows = [(5, 15), (15, 30), (30, 45), (5, 15), (15, 30)]
    return Instance(
        name="tiny-vrphtw",
        variant="VRPHTW",
        depots=(Depot(x=0, y=0, window=TimeWindow(start=0, end=200)),),
        customers=tuple(
            Customer(x=x, y=y, demand=2, service_time=2, window=TimeWindow(start=a, end=b))
            for (x, y), (a, b) in zip(points, windows, strict=True)
        ),
        vehicles=(Vehicle(capacity=10),) * 2,
    )


def sdvrp() -> Instance:
    return Instance(
        name="tiny-sdvrp",
        variant="SDVRP",
        depots=(Depot(x=0, y=0),),
        customers=(Customer(x=5, y=0, demand=4), Customer(x=5, y=5, demand=8), Customer(x=0, y=5, demand=4)),
        vehicles=(Vehicle(capacity=10),) * 2,
    )


INSTANCES: dict[str, Callable[[], Instance]] = {"tsp": tsp, "cvrp": cvrp, "vrphtw": vrphtw}

# ---- probes ---------------------------------------------------------------------------------


def route(vehicle: int, *visits: int) -> Route:
    return Route(vehicle=vehicle, depot=0, visits=visits)


def feasible(*routes: Route) -> Probe:
    return Probe(label=Label.FEASIBLE, solution=Solution(routes=routes))


def violating(attacker: Attacker, *routes: Route, cycles: tuple[Cycle, ...] = ()) -> Probe:
    return Probe(
        label=Label.INFEASIBLE,
        solution=Solution(routes=routes, cycles=cycles),
        attacker=attacker,
        family=ATTACKERS[attacker].target,
    )


PROBES: dict[tuple[str, str], Probe] = {
    ("tsp", "s+"): feasible(route(0, 1, 2, 3, 4, 5)),
    ("tsp", "subtour"): violating(Attacker.SUBTOUR_CYCLE, route(0, 1, 2), cycles=(Cycle(visits=(3, 4, 5)),)),
    ("tsp", "remove"): violating(Attacker.REMOVE_CUSTOMER, route(0, 1, 2, 3, 4)),
    # CVRP, Q = 10, demands 3 3 2 4 2 1: s+ loads 8 and 7; moving customer 4 gives 12 > Q.
    ("cvrp", "s+"): feasible(route(0, 1, 2, 3), route(1, 4, 5, 6)),
    ("cvrp", "subtour"): violating(
        Attacker.SUBTOUR_CYCLE, route(0, 1, 2, 3), cycles=(Cycle(visits=(4, 5, 6)),)
    ),
    ("cvrp", "remove"): violating(Attacker.REMOVE_CUSTOMER, route(0, 1, 2, 3), route(1, 4, 5)),
    ("cvrp", "capacity"): violating(Attacker.CAPACITY_OVERLOAD, route(0, 1, 2, 3, 4), route(1, 5, 6)),
    # VRPHTW: 0-1-2-3-0 starts service at 10, 22, 34; swapping 2 and 3 reaches customer 2 at 44 > 30.
    ("vrphtw", "s+"): feasible(route(0, 1, 2, 3), route(1, 4, 5)),
    ("vrphtw", "time_window"): violating(Attacker.TIME_WINDOW, route(0, 1, 3, 2), route(1, 4, 5)),
    ("vrphtw", "subtour"): violating(
        Attacker.SUBTOUR_CYCLE, route(0, 1, 2, 3), cycles=(Cycle(visits=(4, 5)),)
    ),
    ("vrphtw", "remove"): violating(Attacker.REMOVE_CUSTOMER, route(0, 1, 2, 3), route(1, 4)),
}

# The one-based statement renamed internal node p to NODE_ID_MAP[p]; its script lists ids 1..7.
NODE_ID_MAP = {"0": "1", "1": "5", "2": "6", "3": "4", "4": "7", "5": "3", "6": "2"}
NODE_ID_MAPS: dict[str, Mapping[str, str]] = {"cvrp_one_based": NODE_ID_MAP}


def read_candidate(name: str) -> str:
    return (CANDIDATES / f"{name}.py").read_text()


@cache
def shared_build(name: str) -> BuiltCandidate:
    """One build per script for the verdict table: INJ must leave it reusable for the next probe."""
    return build_candidate(read_candidate(name))


def judge(name: str, instance_key: str, probe_key: str) -> InjVerdict:
    built = shared_build(name)
    instance = INSTANCES[instance_key]()
    node_map = NodeMap.from_candidate(built.node_table, NODE_ID_MAPS.get(name), instance.num_nodes)
    result = inject(built, instance, PROBES[(instance_key, probe_key)], node_map=node_map)
    assert result.error is None, result.error
    return result.verdict


VERDICTS: list[tuple[str, str, str, InjVerdict]] = [
    ("tsp_mtz_3index", "tsp", "s+", FEAS),
    ("tsp_mtz_3index", "tsp", "subtour", INFEAS),
    ("tsp_mtz_3index", "tsp", "remove", INFEAS),
    ("tsp_dfj_lazy", "tsp", "s+", FEAS),
    ("tsp_dfj_lazy", "tsp", "subtour", INFEAS),
    ("tsp_dfj_lazy", "tsp", "remove", INFEAS),
    *[
        (name, "cvrp", probe, verdict)
        for name in ("cvrp_mtz_3index", "cvrp_flow_2index", "cvrp_one_based")
        for probe, verdict in (("s+", FEAS), ("subtour", INFEAS), ("remove", INFEAS), ("capacity", INFEAS))
    ],
    ("cvrp_no_subtour", "cvrp", "s+", FEAS),
    ("cvrp_no_subtour", "cvrp", "subtour", FEAS),
    ("cvrp_no_subtour", "cvrp", "capacity", INFEAS),
    ("cvrp_no_capacity", "cvrp", "s+", FEAS),
    ("cvrp_no_capacity", "cvrp", "capacity", FEAS),
    ("cvrp_no_capacity", "cvrp", "subtour", INFEAS),
    ("cvrp_coverage_leq", "cvrp", "s+", FEAS),
    ("cvrp_coverage_leq", "cvrp", "remove", FEAS),
    ("cvrp_coverage_leq", "cvrp", "subtour", INFEAS),
    ("cvrp_spurious", "cvrp", "s+", INFEAS),
    ("vrphtw_3index", "vrphtw", "s+", FEAS),
    ("vrphtw_3index", "vrphtw", "time_window", INFEAS),
    ("vrphtw_3index", "vrphtw", "subtour", INFEAS),
    ("vrphtw_3index", "vrphtw", "remove", INFEAS),
    ("vrphtw_no_windows", "vrphtw", "s+", FEAS),
    ("vrphtw_no_windows", "vrphtw", "time_window", FEAS),
    ("vrphtw_no_windows", "vrphtw", "subtour", INFEAS),
]


@pytest.mark.parametrize(("name", "instance_key", "probe_key", "expected"), VERDICTS)
def test_inj_verdicts(name: str, instance_key: str, probe_key: str, expected: InjVerdict) -> None:
    assert judge(name, instance_key, probe_key) is expected


def test_the_lazy_callback_is_what_rejects_the_subtour() -> None:
    built = build_candidate(read_candidate("tsp_dfj_lazy"))
    probe = PROBES[("tsp", "subtour")]
    assert inject(built, tsp(), probe).verdict is INFEAS
    assert inject(built.model, tsp(), probe).verdict is FEAS  # the bare model has only degree rows


def test_the_node_map_matters_for_a_renumbered_script() -> None:
    built = build_candidate(read_candidate("cvrp_one_based"))
    mapped = NodeMap.from_candidate(built.node_table, NODE_ID_MAP, 7)
    # internal 1 is id "5" at position 4, internal 6 is id "2" at position 1, ...
    assert mapped.index == (0, 4, 5, 3, 6, 2, 1)
    overload = PROBES[("cvrp", "capacity")]
    assert inject(built, cvrp(), overload, node_map=mapped).verdict is INFEAS
    # Unmapped, the "overloaded" route lands on positions 1-4 = demands 1+2+2+3 = 8 <= 10.
    assert inject(built, cvrp(), overload).verdict is FEAS


# ---- restoration ------------------------------------------------------------------------------


def _snapshot(model: gp.Model) -> tuple[int, int, float, float, int, int]:
    model.update()
    return (
        model.NumConstrs,
        model.NumVars,
        model.Params.TimeLimit,
        model.Params.Cutoff,
        model.Params.SolutionLimit,
        model.Params.Threads,
    )


@pytest.mark.parametrize(("name", "instance_key"), [("cvrp_mtz_3index", "cvrp"), ("tsp_dfj_lazy", "tsp")])
def test_the_model_is_restored_after_every_probe(name: str, instance_key: str) -> None:
    built = build_candidate(read_candidate(name), time_limit=30.0)
    model = built.model
    objective = model_outcome(model).objective
    before = _snapshot(model)
    for (key, _), probe in PROBES.items():
        if key == instance_key:
            inject(built, INSTANCES[instance_key](), probe, time_limit=20.0)
            assert _snapshot(model) == before
    model.optimize(built.callback)
    assert model_outcome(model).objective == pytest.approx(objective)
    assert model.Params.LazyConstraints == (1 if built.callback else 0)


def test_candidate_objective_parameters_do_not_leak_into_the_query() -> None:
    model = gp.Model()
    model.Params.OutputFlag = 0
    model.addVars(6, 6, 1, vtype=GRB.BINARY, name="x")
    model.Params.Cutoff = -1.0  # no solution of a constant-zero objective would survive this
    assert inject(model, tsp(), PROBES[("tsp", "s+")]).verdict is FEAS
    assert model.Params.Cutoff == -1.0


# ---- errors -----------------------------------------------------------------------------------


def _bare_model(build: Callable[[gp.Model], object]) -> gp.Model:
    model = gp.Model()
    model.Params.OutputFlag = 0
    build(model)
    model.update()
    return model


def test_a_size_limit_hit_by_the_encoding_is_an_error_and_leaves_the_model_intact() -> None:
    """Rows are unavoidable where a used arc is summed over two vehicles; they cross the limit."""

    def near_the_limit(m: gp.Model) -> None:
        x = m.addVars(6, 6, 2, vtype=GRB.BINARY, name="x")
        m.addConstrs((x[0, 1, 0] <= 1 for _ in range(1998)), name="filler")

    model = _bare_model(near_the_limit)
    result = inject(model, tsp(), PROBES[("tsp", "s+")])
    assert result.verdict is InjVerdict.ERROR
    assert result.error is not None and result.error.kind is ErrorKind.SIZE_LIMITED_LICENCE
    model.update()
    assert model.NumConstrs == 1998
    assert all((var.LB, var.UB) == (0.0, 1.0) for var in model.getVars())
    model.optimize()
    assert model.Status == GRB.OPTIMAL


def test_rules_on_single_variables_are_bounds_that_cost_no_row_and_are_put_back() -> None:
    """A model close to the licence's row limit is still judged: the probe's rules on a 2-index
    x are all bounds (a size-limited licence refused the same rules written as rows)."""

    def near_the_limit(m: gp.Model) -> None:
        x = m.addVars(6, 6, vtype=GRB.BINARY, name="x")
        m.addConstrs((x[0, 1] <= 1 for _ in range(1998)), name="filler")
        for i in range(1, 6):
            x[i, i].UB = 0

    model = _bare_model(near_the_limit)
    before = model.getAttr("UB", model.getVars())
    assert inject(model, tsp(), PROBES[("tsp", "s+")]).verdict is FEAS
    assert inject(model, tsp(), PROBES[("tsp", "subtour")]).verdict is FEAS  # the model has no subtour rule
    model.update()
    assert model.NumConstrs == 1998
    assert model.getAttr("UB", model.getVars()) == before
    assert set(model.getAttr("LB", model.getVars())) == {0.0}


@pytest.mark.parametrize(
    ("make", "rhs", "as_bounds"),
    [
        (lambda m: [m.addVar(vtype=GRB.BINARY)], 1, True),
        (lambda m: [m.addVar(vtype=GRB.BINARY)], 2, False),  # outside its bounds: the row says infeasible
        (lambda m: [m.addVar(vtype=GRB.SEMICONT, lb=1, ub=1)], 1, False),  # equal bounds still admit 0
        (lambda m: [m.addVar(vtype=GRB.BINARY), m.addVar(vtype=GRB.BINARY)], 0, True),
        (lambda m: [m.addVar(vtype=GRB.BINARY), m.addVar(vtype=GRB.BINARY)], 1, False),
        (lambda m: [m.addVar(lb=-1), m.addVar()], 0, False),  # a sum of 0 that does not force zeros
    ],
)
def test_a_rule_becomes_bounds_only_where_they_say_the_same(
    make: Callable[[gp.Model], list[gp.Var]], rhs: int, as_bounds: bool
) -> None:
    model = gp.Model()
    variables = make(model)
    model.update()
    plan = BoundPlan(model, [variables])
    assert plan.take(variables, rhs) is as_bounds
    model.dispose()


def test_a_variable_given_two_values_keeps_the_second_rule_as_a_row() -> None:
    """An undirected model may key both directions of an edge to one variable: a probe that
    drives u->v but not v->u must then be infeasible, as the two rows would make it."""
    model = gp.Model()
    edge = model.addVar(vtype=GRB.BINARY)
    model.update()
    plan = BoundPlan(model, [[edge], [edge]])
    assert plan.take([edge], 1) and not plan.take([edge], 0)
    assert plan.take([edge], 1)
    model.dispose()


def test_a_freed_model_is_the_candidates_fault() -> None:
    """A model the candidate's code freed (a callback may dispose of it between two queries) is
    the candidate's error, not a crash of the verifier while it sets the query up."""
    model = build_candidate(read_candidate("tsp_mtz_3index")).model
    xvar = find_routing_variable(model, 6)
    model.dispose()
    result = inject(model, tsp(), PROBES[("tsp", "s+")], xvar=xvar)
    assert result.verdict is InjVerdict.ERROR
    assert result.error is not None and result.error.kind is ErrorKind.NOT_A_MODEL


def test_a_query_without_a_solution_in_time_is_an_error_not_a_pass() -> None:
    result = inject(shared_build("cvrp_mtz_3index"), cvrp(), PROBES[("cvrp", "s+")], time_limit=0.0)
    assert result.verdict is InjVerdict.ERROR
    assert result.status == "time_limit"
    assert result.error is not None and result.error.kind is ErrorKind.TIMEOUT


def test_a_crashing_callback_is_an_error_not_a_pass() -> None:
    def broken(model: gp.Model, where: int) -> None:
        raise KeyError("missing attribute")

    result = inject(shared_build("tsp_mtz_3index"), tsp(), PROBES[("tsp", "subtour")], callback=broken)
    assert result.verdict is InjVerdict.ERROR
    assert result.error is not None and result.error.kind is ErrorKind.BUILD_ERROR
    assert "KeyError" in result.error.detail


def _objectives(model: gp.Model) -> list[tuple[float, int, float, str, list[float]]]:
    found = []
    for number in range(model.NumObj):
        model.Params.ObjNumber = number
        found.append((model.ObjNCon, model.ObjNPriority, model.ObjNWeight, model.ObjNName, model.getAttr("ObjN", model.getVars())))
    return found


def test_multi_objective_models_are_queried_and_their_objectives_put_back() -> None:
    def two_objectives(m: gp.Model) -> None:
        x = m.addVars(6, 6, vtype=GRB.BINARY, name="x")
        m.addConstrs(x.sum(i, "*") == 1 for i in range(6))
        m.addConstrs(x.sum("*", j) == 1 for j in range(6))
        m.setObjectiveN(x.sum(), index=0, priority=2, name="arcs")
        m.setObjectiveN(x[0, 1] + 2 * x[1, 0], index=1, priority=1, weight=0.5, reltol=0.1, name="tie")

    model = _bare_model(two_objectives)
    before = _objectives(model)
    assert inject(model, tsp(), PROBES[("tsp", "s+")]).verdict is FEAS
    assert inject(model, tsp(), PROBES[("tsp", "remove")]).verdict is INFEAS
    model.update()
    assert model.NumObj == 2
    assert _objectives(model) == before


@pytest.mark.parametrize("price", [False, True], ids=["feasibility query", "priced query"])
def test_piecewise_linear_objectives_are_put_back(price: bool) -> None:
    """``setObjective`` drops every ``setPWLObj`` term, so a query that set the constant objective
    (or merely put the saved one back) left a model that prices lateness on a start time by a
    piecewise-linear term without it: the next priced query then saw no lateness at all."""

    def tour_with_a_late_start(m: gp.Model) -> None:
        x = m.addVars(6, 6, vtype=GRB.BINARY, name="x")
        m.addConstrs(x.sum(i, "*") == 1 for i in range(6))
        m.addConstrs(x.sum("*", j) == 1 for j in range(6))
        start = m.addVar(lb=3.0, ub=9.0, name="start")
        m.setObjective(x.sum())
        m.setPWLObj(start, [0.0, 2.0, 4.0], [0.0, 0.0, 10.0])

    model = _bare_model(tour_with_a_late_start)
    model.optimize()
    before = model.ObjVal
    assert before == pytest.approx(6.0 + 5.0)
    assert inject(model, tsp(), PROBES[("tsp", "s+")], price=price).verdict is FEAS
    model.update()
    assert model.NumPWLObjVars == 1
    model.optimize()
    assert model.ObjVal == pytest.approx(before)


@pytest.mark.parametrize(
    ("build", "kind"),
    [
        (lambda m: m.addVars(6, 6, name="y"), ErrorKind.NO_ROUTING_VARIABLE),
        (lambda m: m.addVars(1, 6, 6, name="x"), ErrorKind.INDEX_MISMATCH),
    ],
    ids=["no x", "vehicle-first"],
)
def test_unusable_routing_variables_give_an_error_verdict(
    build: Callable[[gp.Model], object], kind: ErrorKind
) -> None:
    result = inject(_bare_model(build), tsp(), PROBES[("tsp", "s+")])
    assert result.verdict is InjVerdict.ERROR
    assert result.status == "not_solved"
    assert result.error is not None and result.error.kind is kind


# ---- find_routing_variable ----------------------------------------------------------------------


ACCEPTED: list[tuple[str, Callable[[gp.Model], object], int, tuple[int, ...]]] = [
    ("2-index", lambda m: m.addVars(4, 4, name="x"), 2, ()),
    ("3-index", lambda m: m.addVars(4, 4, 2, name="x"), 3, (0, 1)),
    (
        "no diagonal",
        lambda m: m.addVars([(i, j) for i in range(4) for j in range(4) if i != j], name="x"),
        2,
        (),
    ),
    (
        "tuple keys",
        # gurobipy's stubs do not know nested tuple keys; Gurobi itself accepts them.
        lambda m: m.addVars([((i, j), k) for i in range(4) for j in range(4) for k in (0, 1)], name="x"),  # type: ignore[misc]
        3,
        (0, 1),
    ),
    (
        "no arcs into the depot",
        lambda m: m.addVars([(i, j) for i in range(4) for j in range(1, 4)], name="x"),
        2,
        (),
    ),
    (
        "open, and pruned: a customer no one can follow has no arc out",
        lambda m: m.addVars([(i, j) for i in range(3) for j in range(1, 4) if i != j], name="x"),
        2,
        (),
    ),
]


@pytest.mark.parametrize(
    ("build", "dims", "vehicles"), [a[1:] for a in ACCEPTED], ids=[a[0] for a in ACCEPTED]
)
def test_routing_variables_that_are_accepted(
    build: Callable[[gp.Model], object], dims: int, vehicles: tuple[int, ...]
) -> None:
    model = _bare_model(build)
    model.addVars(3, name="y")
    xvar = find_routing_variable(model, 4)
    assert (xvar.dims, xvar.vehicles) == (dims, vehicles)
    assert all(v.VarName.startswith("x[") for v in xvar.arcs.values())
    assert len(xvar.arc_vars(1, 2)) == max(1, len(vehicles))


REFUSED: list[tuple[str, Callable[[gp.Model], object], ErrorKind, str]] = [
    ("no x", lambda m: m.addVars(4, 4, name="route"), ErrorKind.NO_ROUTING_VARIABLE, "route"),
    ("vehicle-first", lambda m: m.addVars(2, 4, 4, name="x"), ErrorKind.INDEX_MISMATCH, "vehicle-first"),
    ("letter ids", lambda m: m.addVars("ABCD", "ABCD", name="x"), ErrorKind.INDEX_MISMATCH, "non-integer"),
    (
        "one-based",
        lambda m: m.addVars(range(1, 5), range(1, 5), name="x"),
        ErrorKind.INDEX_MISMATCH,
        "leave nodes 1..4",
    ),
    (
        "no depot",
        lambda m: m.addVars(range(1, 4), range(1, 4), range(2), name="x"),
        ErrorKind.INDEX_MISMATCH,
        "leave nodes 1..3",
    ),
    ("too few nodes", lambda m: m.addVars(3, 3, name="x"), ErrorKind.INDEX_MISMATCH, "nodes 0..3"),
    ("four indices", lambda m: m.addVars(4, 4, 2, 2, name="x"), ErrorKind.INDEX_MISMATCH, "x[i,j,k]"),
    (
        "mixed arity",
        lambda m: (m.addVars(4, 4, name="x"), m.addVars([(0, 1, 0)], name="x")),
        ErrorKind.INDEX_MISMATCH,
        "index lengths [2, 3]",
    ),
]


@pytest.mark.parametrize(("build", "kind", "fragment"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_routing_variables_that_are_refused(
    build: Callable[[gp.Model], object], kind: ErrorKind, fragment: str
) -> None:
    with pytest.raises(VerificationFailure) as info:
        find_routing_variable(_bare_model(build), 4)
    assert info.value.error.kind is kind
    assert fragment in info.value.error.detail


class _ExplodingArcs(dict):  # type: ignore[type-arg]
    def items(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("sabotaged")


def _unnamed(model: gp.Model) -> dict[str, object]:
    return {"x": model.addVars(4, 4, vtype="B")}


PYTHON_X: list[tuple[str, Callable[[gp.Model], dict[str, object]], int | None]] = [
    ("unnamed tupledict", _unnamed, 2),
    ("named otherwise", lambda m: {"x": m.addVars(4, 4, 2, vtype="B", name="route")}, 3),
    ("plain dict over arcs", lambda m: {"x": {(i, j): m.addVar() for i in range(4) for j in range(4) if i != j}}, 2),
    ("matrix API", lambda m: {"x": m.addMVar((4, 4), vtype="B")}, 2),
    ("no x at all", lambda m: {"y": m.addVars(4, 4)}, None),
    ("integer keys", lambda m: {"x": m.addVars(16)}, None),
    ("variables of another model", lambda m: {"x": gp.Model().addVars(4, 4)}, None),
    (
        "its own items() is never called",
        lambda m: {"x": _ExplodingArcs({(i, j): m.addVar() for i in range(4) for j in range(4)})},
        2,
    ),
]


@pytest.mark.parametrize(("build", "dims"), [p[1:] for p in PYTHON_X], ids=[p[0] for p in PYTHON_X])
def test_unnamed_routing_variables_are_matched_through_the_script_and_said_so(
    build: Callable[[gp.Model], dict[str, object]], dims: int | None
) -> None:
    model = gp.Model()
    namespace = build(model)
    model.update()
    if dims is None:
        with pytest.raises(VerificationFailure) as info:
            match_routing_variable(model, read_python_variable(model, namespace.get("x")), 4)
        assert info.value.error.kind is ErrorKind.NO_ROUTING_VARIABLE
        return
    xvar, note = match_routing_variable(model, read_python_variable(model, namespace.get("x")), 4)
    assert xvar.dims == dims and note is not None and "Python variable" in note
    assert len(xvar.arc_vars(1, 2)) == (2 if dims == 3 else 1)


def test_named_routing_variables_need_no_note() -> None:
    model = _bare_model(lambda m: m.addVars(4, 4, name="x"))
    assert match_routing_variable(model, read_python_variable(model, "unrelated"), 4)[1] is None


def test_a_python_x_still_gets_the_index_checks() -> None:
    model = gp.Model()
    namespace = {"x": model.addVars(range(1, 5), range(1, 5))}
    with pytest.raises(VerificationFailure) as info:
        match_routing_variable(model, read_python_variable(model, namespace.get("x")), 4)
    assert info.value.error.kind is ErrorKind.INDEX_MISMATCH


def test_a_missing_arc_behaves_like_a_forbidden_one() -> None:
    """Sparse x without arc (1, 2): a probe that needs it is infeasible, one that does not is not."""
    model = _bare_model(
        lambda m: m.addVars([(i, j) for i in range(6) for j in range(6) if (i, j) != (1, 2)], name="x")
    )
    assert inject(model, tsp(), PROBES[("tsp", "s+")]).verdict is INFEAS
    assert inject(model, tsp(), feasible(route(0, 2, 1, 3, 4, 5))).verdict is FEAS


# ---- node maps --------------------------------------------------------------------------------

MAPS: list[tuple[str, dict[str, object], dict[str, str] | None, tuple[int, ...]]] = [
    ("plain script", {}, None, (0, 1, 2)),
    ("id2idx, int keys", {"id2idx": {1: 0, 2: 1, 3: 2}}, {"0": "1", "1": "2", "2": "3"}, (0, 1, 2)),
    ("idx2id, letters", {"idx2id": {0: "B", 1: "A", 2: "C"}}, {"0": "A", "1": "B", "2": "C"}, (1, 0, 2)),
    ("node_ids only", {"node_ids": ["D", "X", "Y"]}, {"0": "D", "1": "Y", "2": "X"}, (0, 2, 1)),
    ("zero-based permutation, no table", {}, {"0": "0", "1": "2", "2": "1"}, (0, 2, 1)),
    ("table without renumbering", {"node_ids": [0, 1, 2]}, None, (0, 1, 2)),
]


@pytest.mark.parametrize(("namespace", "id_map", "expected"), [m[1:] for m in MAPS], ids=[m[0] for m in MAPS])
def test_node_maps_compose_statement_and_script_ids(
    namespace: dict[str, object], id_map: dict[str, str] | None, expected: tuple[int, ...]
) -> None:
    assert NodeMap.from_candidate(read_node_table(namespace), id_map, 3).index == expected


class _UnreadableTable(dict):  # type: ignore[type-arg]
    """A script's id2idx whose reading raises (the script's own code runs when it is read)."""

    def items(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("sabotaged")


BAD_MAPS: list[tuple[str, dict[str, object], dict[str, str] | None]] = [
    ("table raises when read", {"id2idx": _UnreadableTable({1: 0, 2: 1, 3: 2})}, {"0": "1", "1": "2", "2": "3"}),
    ("renumbered but no table", {}, {"0": "A", "1": "B", "2": "C"}),
    ("id missing from the table", {"id2idx": {1: 0, 2: 1}}, {"0": "1", "1": "2", "2": "3"}),
    ("map misses a node", {"id2idx": {1: 0, 2: 1, 3: 2}}, {"0": "1", "1": "2"}),
    ("map merges two nodes", {"id2idx": {1: 0, 2: 1, 3: 2}}, {"0": "1", "1": "2", "2": "2"}),
    ("table not one-to-one", {"id2idx": {1: 0, 2: 0, 3: 2}}, {"0": "1", "1": "2", "2": "3"}),
    ("position not an integer", {"id2idx": {1: "a", 2: 1, 3: 2}}, {"0": "1", "1": "2", "2": "3"}),
    ("duplicate node_ids", {"node_ids": [1, 1, 2]}, {"0": "1", "1": "2", "2": "3"}),
    ("one-based ids for a zero-based statement", {"node_ids": [1, 2, 3]}, None),
    ("display names for a statement without renaming", {"node_ids": ["Depot", "Oak St", "Elm St"]}, None),
]


@pytest.mark.parametrize(("namespace", "id_map"), [m[1:] for m in BAD_MAPS], ids=[m[0] for m in BAD_MAPS])
def test_unresolvable_node_maps_are_index_mismatches(
    namespace: dict[str, object], id_map: dict[str, str] | None
) -> None:
    with pytest.raises(VerificationFailure) as info:
        NodeMap.from_candidate(read_node_table(namespace), id_map, 3)
    assert info.value.error.kind is ErrorKind.INDEX_MISMATCH


def test_a_node_map_must_be_a_permutation() -> None:
    with pytest.raises(ValueError, match="permutation"):
        NodeMap((0, 0, 1))


# ---- the encoding itself ----------------------------------------------------------------------


def test_arc_pattern_of_a_subtour_probe() -> None:
    inst, solution = cvrp(), PROBES[("cvrp", "subtour")].solution
    used = used_arcs(inst, solution)
    assert dict(used) == {(1, 2): 1, (2, 3): 1, (4, 5): 1, (5, 6): 1, (6, 4): 1}
    assert len(unused_arcs(inst, used)) == 6 * 5 - 5
    assert consecutive_arc_pairs(inst, solution) == [
        ((1, 2), (2, 3)),
        ((4, 5), (5, 6)),
        ((5, 6), (6, 4)),
        ((6, 4), (4, 5)),
    ]
    assert unvisited_customers(inst, solution) == []
    assert unvisited_customers(inst, PROBES[("cvrp", "remove")].solution) == [6]


def injected(model: gp.Model, name: str) -> gp.Constr:
    constr = model.getConstrByName(name)
    assert constr is not None, f"no constraint {name}"
    return constr


@pytest.fixture
def blank_3index() -> Iterator[tuple[gp.Model, RoutingVariable]]:
    """A constraint-free model with x over the CVRP's 7 nodes and 3 vehicles."""
    model = _bare_model(lambda m: m.addVars(7, 7, 3, vtype=GRB.BINARY, name="x"))
    yield model, find_routing_variable(model, 7)
    model.dispose()


def _fixed(model: gp.Model, name: str) -> float | None:
    """The value a variable's bounds fix it to, or None while they leave it free."""
    var = model.getVarByName(name)
    assert var is not None, f"no variable {name}"
    return var.LB if var.LB == var.UB else None


@pytest.mark.parametrize(
    ("encoding", "rows", "fixed"),
    # The subtour probe: a route over 1-2-3 (two customer arcs) and a cycle 4-5-6 (three arcs)
    # with no vehicle, 25 unused customer arcs and 6 self-loops. A rule on single variables is
    # a pair of bounds: unused arcs and loops on all 3 vehicles (31 x 3); a used arc summed over
    # the vehicles is a row. Binding adds a row per arc pair (4) and vehicle (3); direct fixing
    # pins the route's arcs to its vehicle by bounds and projects the cycle.
    [(Encoding.PROJECTION_2D, 5, 93), (Encoding.BOUND_2D, 17, 93), (Encoding.DIRECT_3D, 3, 95)],
)
def test_rows_and_bounds_per_encoding(
    blank_3index: tuple[gp.Model, RoutingVariable], encoding: Encoding, rows: int, fixed: int
) -> None:
    model, xvar = blank_3index
    injection = encode_probe(model, xvar, hfvrp(), PROBES[("cvrp", "subtour")], encoding, NodeMap.identity(7))
    model.update()
    assert len(injection.constrs) == rows
    assert all(c.ConstrName.startswith(INJ_PREFIX) for c in injection.constrs)
    assert len(injection.bounds.variables) == fixed
    assert sum(var.LB == var.UB for var in model.getVars()) == fixed


def test_unvisited_customers_cannot_be_entered_from_the_depot(
    blank_3index: tuple[gp.Model, RoutingVariable],
) -> None:
    model, xvar = blank_3index
    encode_probe(model, xvar, cvrp(), PROBES[("cvrp", "remove")], Encoding.BOUND_2D, NodeMap.identity(7))
    model.update()
    assert [_fixed(model, f"x[0,6,{k}]") for k in range(3)] == [0.0, 0.0, 0.0]
    assert [_fixed(model, f"x[0,5,{k}]") for k in range(3)] == [None, None, None]


def test_direct_fixing_pins_each_arc_to_its_vehicle(blank_3index: tuple[gp.Model, RoutingVariable]) -> None:
    model, xvar = blank_3index
    probe = violating(Attacker.SUBTOUR_CYCLE, route(2, 1, 2, 3), cycles=(Cycle(visits=(4, 5, 6)),))
    encode_probe(model, xvar, hfvrp(), probe, Encoding.DIRECT_3D, NodeMap.identity(7))
    model.update()
    assert [_fixed(model, f"x[1,2,{k}]") for k in range(3)] == [None, None, 1.0]
    free = model.getRow(injected(model, f"{INJ_PREFIX}pos[4,5]"))  # a cycle with no vehicle
    assert (free.size(), free.getConstant(), injected(model, f"{INJ_PREFIX}pos[4,5]").RHS) == (3, 0.0, 1.0)


def _twin_model(order_twins: bool) -> tuple[gp.Model, RoutingVariable]:
    """A 3-vehicle model with x over the CVRP's nodes, one vehicle per arc; with ``order_twins`` it
    breaks the symmetry of vehicles 1 and 2 (vehicle 2 drives no more customer arcs than 1)."""
    model = _bare_model(lambda m: m.addVars(7, 7, 3, vtype=GRB.BINARY, name="x"))
    xvar = find_routing_variable(model, 7)
    model.addConstrs(gp.quicksum(xvar.arc_vars(i, j)) <= 1 for i in range(7) for j in range(7))
    if order_twins:
        driven = {k: gp.quicksum(xvar.var(i, j, k) for i in range(1, 7) for j in range(1, 7)) for k in (1, 2)}
        model.addConstr(driven[2] <= driven[1])
    model.update()
    return model, xvar


@pytest.mark.parametrize("order_twins", [False, True])
def test_direct_fixing_lets_identical_vehicles_swap(order_twins: bool) -> None:
    """The probe puts its one route on twin 2; a model whose symmetry breaking wants twin 1 used
    first must still accept the plan, since which twin drives the route is not part of it."""
    model, _ = _twin_model(order_twins)
    probe = feasible(route(2, 1, 2, 3))
    before = (model.NumVars, model.NumConstrs)
    assert inject(model, hfvrp((10, 12, 12)), probe).verdict is FEAS
    model.update()
    assert (model.NumVars, model.NumConstrs) == before
    distinct = inject(model, hfvrp((10, 12, 14)), probe).verdict  # no twins: the label is binding
    assert distinct is (INFEAS if order_twins else FEAS)


def test_direct_fixing_still_pins_a_vehicle_of_its_own_kind() -> None:
    """Vehicle 0 has no twin: a model that forbids it any customer arc rejects a route on it."""
    model, xvar = _twin_model(order_twins=False)
    model.addConstrs(xvar.var(i, j, 0) == 0 for i in range(1, 7) for j in range(1, 7))
    assert inject(model, hfvrp((10, 12, 12)), feasible(route(0, 1, 2, 3))).verdict is INFEAS
    assert inject(model, hfvrp((10, 12, 12)), feasible(route(1, 1, 2, 3))).verdict is FEAS


def test_direct_fixing_refuses_a_vehicle_that_x_does_not_have(
    blank_3index: tuple[gp.Model, RoutingVariable],
) -> None:
    model, xvar = blank_3index
    with pytest.raises(VerificationFailure) as info:
        encode_probe(model, xvar, hfvrp(), feasible(route(5, 1, 2)), Encoding.DIRECT_3D, NodeMap.identity(7))
    assert info.value.error.kind is ErrorKind.INDEX_MISMATCH


def test_split_delivery_allows_only_the_probe_entries_from_the_depot() -> None:
    model = _bare_model(lambda m: m.addVars(4, 4, 2, vtype=GRB.BINARY, name="x"))
    xvar = find_routing_variable(model, 4)
    probe = feasible(route(0, 1, 2), route(1, 2, 3))  # customer 2 is split over both vehicles
    encode_probe(model, xvar, sdvrp(), probe, Encoding.PROJECTION_2D, NodeMap.identity(4))
    model.update()
    rhs = {c: injected(model, f"{INJ_PREFIX}split_entry[0,{c}]").RHS for c in (1, 2)}
    assert rhs == {1: 1.0, 2: 1.0}
    assert [_fixed(model, f"x[0,3,{k}]") for k in range(2)] == [0.0, 0.0]  # entered by no vehicle


def test_probe_nodes_outside_the_instance_are_refused(blank_3index: tuple[gp.Model, RoutingVariable]) -> None:
    model, xvar = blank_3index
    with pytest.raises(ValueError, match="not a customer"):
        encode_probe(
            model, xvar, cvrp(), feasible(route(0, 1, 9)), Encoding.PROJECTION_2D, NodeMap.identity(7)
        )
