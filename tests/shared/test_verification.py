"""The dual verifier judged with candidates that were not written by the gold generator.

A verifier that only recognises the gold script's shape would be useless for rewarding generated
code, so these tests feed it independent formulations (tests/shared/formulations.py) on real
samples from ``build_grid_point``: correct ones must earn the full reward on every sample,
including the attacked copies; each buggy one must fail exactly the probe whose family it breaks;
scripts that are not usable at all must get a classified error and a numeric reward, never an
exception. Expected verdicts follow from how each script was written, not from verifier output.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from itertools import pairwise
from typing import Any

import pytest

from tests.shared.formulations import (
    EXPOSED_BY,
    Mutation,
    NodeIdStyle,
    cvrp_relabelled,
    cvrp_three_index_dfj_or_mtz_variant,
    cvrp_two_index_flow,
    tsp_dfj_lazy,
    vrphtw_two_index,
)
from vrpcoder.candidate import build_candidate
from vrpcoder.errors import ErrorKind
from vrpcoder.families import Family
from vrpcoder.injection import InjVerdict, NodeMap, inject
from vrpcoder.instances import Instance
from vrpcoder.probes import Label, Probe
from vrpcoder.samples import Sample, build_grid_point
from vrpcoder.verification import RewardWeights, Verdict, verify

Renderer = Callable[..., str]
WEIGHTS = RewardWeights()

GOLD_VARIANTS = ("CVRP", "TSP", "VRPHTW", "SDVRP", "HFVRP", "PDP", "VRPB", "DCVRP", "MCVRP")
QUICK_POINTS = ((1, 0), (3, 1))
"""(profile, seed) pairs of the default run: tiny and small instances, a second of work each."""
SLOW_POINTS = tuple((p, s) for p in range(1, 6) for s in range(3) if (p, s) not in QUICK_POINTS)


@cache
def grid_samples(variant: str, profile: int, seed: int) -> tuple[Sample, ...]:
    """Every sample of one grid point (base first), built once per test session."""
    samples = tuple(build_grid_point(variant, profile, seed).samples)
    assert samples, f"no sample was built for {variant} profile {profile} seed {seed}"
    return samples


def base_sample(variant: str, profile: int = 1, seed: int = 0) -> Sample:
    return grid_samples(variant, profile, seed)[0]


def probe_of(sample: Sample, family: Family | None) -> Probe:
    return next(p for p in sample.probes if p.family is family)


def assert_full_pass(verdict: Verdict) -> None:
    failed = [(p.name, p.verdict.value) for p in verdict.probes if not p.passed]
    assert verdict.error is None, verdict.error
    assert verdict.build and verdict.diff, (verdict.objective, verdict.reference_objective)
    assert failed == []
    assert verdict.passed is True
    assert verdict.reward == pytest.approx(1.0)


def _points(quick: tuple[tuple[int, int], ...], slow: tuple[tuple[int, int], ...]) -> list[object]:
    return [*quick, *(pytest.param(*point, marks=pytest.mark.slow) for point in slow)]


# ---- the gold script passes its own samples -----------------------------------------------------


@pytest.mark.parametrize("variant", GOLD_VARIANTS)
@pytest.mark.parametrize(("profile", "seed"), _points(QUICK_POINTS, SLOW_POINTS))
def test_gold_script_passes_every_sample_of_its_grid_point(variant: str, profile: int, seed: int) -> None:
    for sample in grid_samples(variant, profile, seed):
        assert_full_pass(verify(sample.gold_code, sample))


# ---- equivalent formulations --------------------------------------------------------------------

EQUIVALENT: tuple[tuple[Renderer, str], ...] = (
    (tsp_dfj_lazy, "TSP"),
    (cvrp_two_index_flow, "CVRP"),
    (cvrp_three_index_dfj_or_mtz_variant, "CVRP"),
    (vrphtw_two_index, "VRPHTW"),
)


@pytest.mark.parametrize(("render", "variant"), EQUIVALENT, ids=lambda v: getattr(v, "__name__", v))
@pytest.mark.parametrize(("profile", "seed"), _points(QUICK_POINTS, SLOW_POINTS))
def test_equivalent_formulation_passes_every_sample(
    render: Renderer, variant: str, profile: int, seed: int
) -> None:
    samples = grid_samples(variant, profile, seed)
    for sample in samples:
        assert_full_pass(verify(render(sample.instance), sample))


@pytest.mark.parametrize("variant", ["CVRP", "VRPHTW"])
def test_attacked_copies_are_part_of_the_equivalence_check(variant: str) -> None:
    """Guards the test above: a grid point with only its base sample would skip the parameter attacks."""
    kinds = {s.kind for s in grid_samples(variant, *QUICK_POINTS[0])}
    assert "base" in kinds
    assert "capacity_overload" in kinds


def test_dfj_lazy_rejects_the_subtour_probe_only_through_its_callback() -> None:
    sample = base_sample("TSP")
    subtour = probe_of(sample, Family.SUBTOUR)
    assert subtour.solution.cycles, "the subtour probe must contain a customer-only cycle"
    built = build_candidate(tsp_dfj_lazy(sample.instance), time_limit=60.0)
    assert built.callback is not None

    with_callback = inject(built, sample.instance, subtour)
    bare = inject(built.model, sample.instance, subtour)

    assert with_callback.verdict is InjVerdict.INFEASIBLE
    assert bare.verdict is InjVerdict.FEASIBLE
    assert inject(built.model, sample.instance, probe_of(sample, None)).verdict is InjVerdict.FEASIBLE


@pytest.mark.parametrize("style", list(NodeIdStyle))
@pytest.mark.parametrize(("profile", "seed"), _points(((1, 0),), ((3, 1), (5, 2))))
def test_relabelled_statement_passes_with_its_node_map_and_fails_without_it(
    style: NodeIdStyle, profile: int, seed: int
) -> None:
    for sample in grid_samples("CVRP", profile, seed):
        relabelled = cvrp_relabelled(sample.instance, style)
        mapped = sample.model_copy(update={"node_id_map": relabelled.node_id_map})

        positions = NodeMap.from_candidate(
            build_candidate(relabelled.code).node_table, relabelled.node_id_map, sample.instance.num_nodes
        )
        assert positions != NodeMap.identity(sample.instance.num_nodes), "x must not be indexed internally"
        assert_full_pass(verify(relabelled.code, mapped))

        unmapped = verify(relabelled.code, sample)
        # Without the sample's node_id_map the statement counts as numbered 0..N-1, and a table
        # that is not exactly those ids (letters, or 1..N) is read as the script's own labels with
        # x by position (issue 14.2, vrpcoder.numbering), and the verdict says so. That is right for
        # a script written for this statement; this one was written for a renamed one, which is why
        # a renamed statement's samples carry their node_id_map (then the table is used, strictly).
        assert unmapped.routing_variable is not None and "read by position" in unmapped.routing_variable


def test_relabelled_node_map_points_from_internal_numbers_to_statement_ids() -> None:
    instance = base_sample("CVRP").instance
    last = instance.num_nodes - 1
    relabelled = cvrp_relabelled(instance, NodeIdStyle.ONE_BASED)
    # Listed as depot, then customers in reverse: the depot is "1", the last customer "2".
    assert relabelled.node_id_map["0"] == "1"
    assert relabelled.node_id_map[str(last)] == "2"
    assert relabelled.node_id_map["1"] == str(instance.num_nodes)


# ---- buggy candidates ---------------------------------------------------------------------------

BUGS: tuple[tuple[Renderer, Mutation, str], ...] = (
    (tsp_dfj_lazy, Mutation.NO_SUBTOUR, "TSP"),
    (tsp_dfj_lazy, Mutation.FORWARD_ARCS_ONLY, "TSP"),
    (cvrp_two_index_flow, Mutation.NO_CAPACITY, "CVRP"),
    (cvrp_two_index_flow, Mutation.FORWARD_ARCS_ONLY, "CVRP"),
    (cvrp_three_index_dfj_or_mtz_variant, Mutation.NO_SUBTOUR, "CVRP"),
    (cvrp_three_index_dfj_or_mtz_variant, Mutation.NO_CAPACITY, "CVRP"),
    (cvrp_three_index_dfj_or_mtz_variant, Mutation.COVERAGE_AT_MOST_ONCE, "CVRP"),
    (cvrp_three_index_dfj_or_mtz_variant, Mutation.FORWARD_ARCS_ONLY, "CVRP"),
    (vrphtw_two_index, Mutation.NO_CAPACITY, "VRPHTW"),
    (vrphtw_two_index, Mutation.NO_TIME_WINDOWS, "VRPHTW"),
    (vrphtw_two_index, Mutation.COVERAGE_AT_MOST_ONCE, "VRPHTW"),
)


def _goes_backwards(instance: Instance, probe: Probe) -> bool:
    """Whether a route drives from a customer to a lower-numbered one (what FORWARD_ARCS_ONLY bans)."""
    first = instance.num_depots
    return any(
        first <= u and first <= v < u
        for route in probe.solution.routes
        for u, v in pairwise(route.visits)
    )


def expected_failures(sample: Sample, mutation: Mutation) -> set[str]:
    """The probes a mutated script must get wrong: those of the family it dropped; for the
    spurious forward-only rule, s+ exactly when s+ drives an arc the rule bans."""
    family = EXPOSED_BY[mutation]
    if family is None:
        feasible = [p for p in sample.probes if p.family is None]
        return {p.name for p in feasible if _goes_backwards(sample.instance, p)}
    return {p.name for p in sample.probes if p.family is family}


@pytest.mark.parametrize(
    ("render", "mutation", "variant"), BUGS, ids=[f"{r.__name__}-{m.value}" for r, m, _ in BUGS]
)
@pytest.mark.parametrize(("profile", "seed"), _points(QUICK_POINTS, ((2, 0), (4, 1), (5, 2))))
def test_buggy_formulation_fails_exactly_the_probe_of_its_dropped_family(
    render: Renderer, mutation: Mutation, variant: str, profile: int, seed: int
) -> None:
    exposed = 0
    for sample in grid_samples(variant, profile, seed):
        verdict = verify(render(sample.instance, mutation), sample)
        expected = expected_failures(sample, mutation)
        failed = {p.name for p in verdict.probes if not p.passed}
        assert verdict.error is None and verdict.build
        assert failed == expected, sample.id
        if expected:
            exposed += 1
            assert verdict.passed is False
            assert verdict.reward is not None and verdict.reward < 1.0
            assert all(p.verdict is not InjVerdict.ERROR for p in verdict.probes)
    if EXPOSED_BY[mutation] is not None:
        assert exposed, f"no sample of {variant} p{profile} s{seed} carries a probe for {mutation.value}"


CHEAT = '''

def _reject_binding_queries(model, where):
    """Cheat: answer "infeasible" to every INJ query that carries vehicle-binding rows (the
    violating probes' encoding), whatever the model lacks."""
    if where == GRB.Callback.MIPSOL and any("bind" in c.ConstrName for c in model.getConstrs()):
        model.cbLazy(model.getVars()[0] >= 2)
'''


def _with_cheat(code: str) -> str:
    assert code.count("    m.optimize()\n") == 1
    code = code.replace("    m.optimize()\n", "    m.Params.LazyConstraints = 1\n    m.optimize(_reject_binding_queries)\n")
    return code + CHEAT


def test_a_callback_that_refuses_the_violating_probes_encoding_fails_the_control() -> None:
    """The feasible probe is asked again under the violating probes' encoding, at a random point
    among them: a callback that refuses that encoding refuses the control too, so the omission
    it hid still costs the feasible probe (and the run cannot pass)."""
    sample = next(s for s in grid_samples("CVRP", 1, 0) if any(p.family is Family.CAPACITY for p in s.probes))
    honest = verify(cvrp_three_index_dfj_or_mtz_variant(sample.instance, Mutation.NO_CAPACITY), sample)
    cheat = verify(_with_cheat(cvrp_three_index_dfj_or_mtz_variant(sample.instance, Mutation.NO_CAPACITY)), sample)
    assert {p.name for p in honest.probes if not p.passed} == {p.name for p in sample.probes if p.family is Family.CAPACITY}
    assert all(p.passed for p in cheat.probes if p.label is Label.INFEASIBLE)
    plus = next(p for p in cheat.probes if p.label is Label.FEASIBLE)
    assert plus.verdict is InjVerdict.FEASIBLE and plus.control is InjVerdict.INFEASIBLE and not plus.passed
    assert not cheat.passed and cheat.reward is not None and cheat.reward < 1.0
    correct = verify(_with_cheat(cvrp_three_index_dfj_or_mtz_variant(sample.instance)), sample)
    assert not correct.passed, "the cheat costs even a correct model its feasible probe"


def test_a_correct_model_accepts_the_control() -> None:
    sample = base_sample("CVRP")
    verdict = verify(cvrp_three_index_dfj_or_mtz_variant(sample.instance), sample)
    plus = next(p for p in verdict.probes if p.label is Label.FEASIBLE)
    assert verdict.passed and plus.control is InjVerdict.FEASIBLE
    assert all(p.control is None for p in verdict.probes if p.label is Label.INFEASIBLE)


def test_spurious_rule_is_exposed_on_the_quick_points() -> None:
    """Guards the table above: the spurious rule must actually meet an s+ it cuts off."""
    plus = [probe_of(base_sample(v, *point), None) for v in ("TSP", "CVRP") for point in QUICK_POINTS]
    instances = [base_sample(v, *point).instance for v in ("TSP", "CVRP") for point in QUICK_POINTS]
    assert all(_goes_backwards(i, p) for i, p in zip(instances, plus, strict=True))


# ---- candidates the verifier cannot judge normally ------------------------------------------------

_RAISING = """\
import gurobipy as gp


def build_model():
    m = gp.Model()
    share = 10 / 0
    return m
"""

_TOO_LARGE = """\
import gurobipy as gp
from gurobipy import GRB


def build_model():
    m = gp.Model()
    m.setParam("OutputFlag", 0)
    x = m.addVars(50, 50, vtype=GRB.BINARY, name="x")
    m.setObjective(x.sum(), GRB.MINIMIZE)
    m.optimize()
    return m
"""

_MISSING = ErrorKind.MISSING_BUILD_MODEL
NOT_BUILT: list[tuple[str, str, ErrorKind]] = [
    ("syntax", "def build_model(:\n    return None\n", ErrorKind.SYNTAX_ERROR),
    ("no_build_model", "import gurobipy as gp\n\n\ndef build():\n    return gp.Model()\n", _MISSING),
    ("returns_none", "def build_model():\n    return None\n", ErrorKind.NOT_A_MODEL),
    ("returns_dict", "def build_model():\n    return {'objective': 1.0}\n", ErrorKind.NOT_A_MODEL),
    ("over_licence", _TOO_LARGE, ErrorKind.SIZE_LIMITED_LICENCE),
    ("raises", _RAISING, ErrorKind.BUILD_ERROR),
]


@pytest.mark.parametrize(("code", "kind"), [c[1:] for c in NOT_BUILT], ids=[c[0] for c in NOT_BUILT])
def test_script_that_does_not_build_gets_a_classified_zero(code: str, kind: ErrorKind) -> None:
    verdict = verify(code, base_sample("CVRP"))
    assert verdict.error is not None and verdict.error.kind is kind
    assert verdict.build is False and verdict.diff is False and verdict.probes == ()
    assert verdict.passed is False
    # our licence's size limit says nothing about the candidate: no reward rather than zero
    assert verdict.reward == (None if kind is ErrorKind.SIZE_LIMITED_LICENCE else 0.0)


def test_stray_node_ids_variable_does_not_hijack_the_node_map() -> None:
    sample = base_sample("CVRP")
    code = cvrp_two_index_flow(sample.instance).replace(
        "    return m", "    node_ids = [0, 1, 2]  # an unrelated list that shares the name\n    return m"
    )
    assert "node_ids = [0, 1, 2]" in code
    verdict = verify(code, sample)
    assert verdict.passed and verdict.reward == pytest.approx(1.0)


def _with_node_table(code: str, table: str) -> str:
    """The script with a node table of its own defined inside build_model, x still by position."""
    return code.replace("    return m", f"    {table}\n    id2idx = {{b: i for i, b in enumerate(node_ids)}}\n    return m")


def test_a_node_table_of_the_scripts_own_labels_is_read_by_position_and_said_so() -> None:
    """Issue 14.2: display labels that name none of the statement's ids (here "C0".."C7") once
    cost a correct script every probe (index_mismatch, reward 0.7)."""
    sample = base_sample("CVRP")
    code = _with_node_table(cvrp_two_index_flow(sample.instance), "node_ids = [f'C{i}' for i in range(N)]")
    verdict = verify(code, sample)
    assert verdict.passed and verdict.reward == pytest.approx(1.0), verdict.error
    assert verdict.routing_variable is not None and "read by position" in verdict.routing_variable


@pytest.mark.parametrize(
    "table",
    [
        "node_ids = list(range(1, N + 1))",  # 1..N beside x by 0..N-1: the issue's own example
        "node_ids = ['depot', *range(1, N)]",  # a label for the depot, the customers' own ids
    ],
)
def test_a_node_table_that_is_not_the_statements_ids_is_read_as_labels(table: str) -> None:
    """Sharing some ids does not make a table a translation: with N entries, naming an id the
    statement does not have means lacking one it has (vrpcoder.numbering)."""
    sample = base_sample("CVRP")
    verdict = verify(_with_node_table(cvrp_two_index_flow(sample.instance), table), sample)
    assert verdict.passed and verdict.reward == pytest.approx(1.0), verdict.error
    assert verdict.routing_variable is not None and "read by position" in verdict.routing_variable


def test_a_renamed_statement_keeps_the_strict_rule_for_tables_of_other_ids() -> None:
    sample = base_sample("CVRP")
    renamed = sample.model_copy(
        update={"node_id_map": {str(p): f"N{p}" for p in range(sample.instance.num_nodes)}}
    )
    code = _with_node_table(cvrp_two_index_flow(sample.instance), "node_ids = [f'C{i}' for i in range(N)]")
    verdict = verify(code, renamed)
    assert verdict.error is not None and verdict.error.kind is ErrorKind.INDEX_MISMATCH


def test_build_error_names_the_candidates_own_line() -> None:
    verdict = verify(_RAISING, base_sample("CVRP"))
    line = _RAISING.splitlines().index("    share = 10 / 0") + 1
    assert verdict.error is not None
    assert f"line {line}" in verdict.error.detail
    assert "share = 10 / 0" in verdict.error.detail
    assert "ZeroDivisionError" in verdict.error.detail


def _rename_routing_variable(code: str) -> str:
    old = 'name="x"'
    assert code.count(old) == 1
    return code.replace(old, 'name="arc"')


def _vehicle_first(instance: Instance) -> str:
    n = instance.num_nodes
    return f"""\
import gurobipy as gp
from gurobipy import GRB


def build_model():
    m = gp.Model()
    m.setParam("OutputFlag", 0)
    x = m.addVars({len(instance.vehicles)}, {n}, {n}, vtype=GRB.BINARY, name="x")
    m.setObjective(x.sum(), GRB.MINIMIZE)
    m.optimize()
    return m
"""


def _infeasible(instance: Instance) -> str:
    n = instance.num_nodes
    return f"""\
import gurobipy as gp
from gurobipy import GRB


def build_model():
    m = gp.Model()
    m.setParam("OutputFlag", 0)
    x = m.addVars({n}, {n}, vtype=GRB.BINARY, name="x")
    m.addConstr(x.sum() >= {n * n + 1})
    m.optimize()
    return m
"""


def _hide_routing_variable(code: str) -> str:
    """No ``x[...]`` names and no Python ``x`` either: nothing left to match."""
    renamed = _rename_routing_variable(code)
    assert renamed.count("\n    return m\n") == 1
    return renamed.replace("\n    return m\n", "\n    x = None\n    return m\n")


def test_x_named_otherwise_is_matched_through_the_script_and_said_so() -> None:
    sample = base_sample("CVRP")
    verdict = verify(_rename_routing_variable(cvrp_two_index_flow(sample.instance)), sample)
    assert_full_pass(verdict)
    assert verdict.routing_variable is not None and "Python variable" in verdict.routing_variable


def test_model_without_x_builds_and_errors_on_every_probe() -> None:
    sample = base_sample("CVRP")
    verdict = verify(_hide_routing_variable(cvrp_two_index_flow(sample.instance)), sample)
    assert verdict.build is True and verdict.diff is True
    assert verdict.error is not None and verdict.error.kind is ErrorKind.NO_ROUTING_VARIABLE
    assert verdict.probes and all(p.verdict is InjVerdict.ERROR and not p.passed for p in verdict.probes)
    assert verdict.passed is False
    assert verdict.reward == pytest.approx(WEIGHTS.build + WEIGHTS.diff)


def test_vehicle_first_x_is_an_index_mismatch() -> None:
    sample = base_sample("CVRP")
    verdict = verify(_vehicle_first(sample.instance), sample)
    assert verdict.build is True
    assert verdict.error is not None and verdict.error.kind is ErrorKind.INDEX_MISMATCH
    assert "vehicle-first" in verdict.error.detail
    assert all(p.verdict is InjVerdict.ERROR for p in verdict.probes)
    assert verdict.passed is False
    assert verdict.reward is not None and verdict.reward < 1.0


def test_infeasible_model_fails_diff_with_a_solver_status() -> None:
    sample = base_sample("CVRP")
    verdict = verify(_infeasible(sample.instance), sample)
    assert verdict.build is True
    assert verdict.objective is None and verdict.diff is False
    assert verdict.error is not None and verdict.error.kind is ErrorKind.SOLVER_STATUS
    assert not next(p for p in verdict.probes if p.label is Label.FEASIBLE).passed
    assert verdict.passed is False
    assert verdict.reward is not None and verdict.reward < WEIGHTS.build + WEIGHTS.diff


# ---- the JSON the CLI prints ----------------------------------------------------------------------

VERDICT_KEYS = {"build", "objective", "reference_objective", "diff", "probes", "passed", "reward", "error"}
PROBE_KEYS = {"family", "label", "verdict", "passed"}


def _check_shape(document: dict[str, Any]) -> None:
    assert VERDICT_KEYS <= document.keys()
    probes = document["probes"]
    assert isinstance(probes, list)
    for probe in probes:
        assert PROBE_KEYS <= probe.keys()
        assert probe["verdict"] in {v.value for v in InjVerdict}
        assert probe["label"] in {v.value for v in Label}
    error = document["error"]
    assert error is None or (isinstance(error, dict) and set(error) == {"kind", "detail"})
    assert isinstance(document["reward"], float)
    json.dumps(document)


def test_json_of_a_passing_verdict() -> None:
    sample = base_sample("CVRP")
    document = verify(cvrp_two_index_flow(sample.instance), sample).model_dump(mode="json")
    _check_shape(document)
    assert document["error"] is None and document["passed"] is True
    assert [p["family"] for p in document["probes"]] == [p.family for p in sample.probes]


def test_json_of_a_failed_build() -> None:
    document = verify("def build_model(:\n", base_sample("CVRP")).model_dump(mode="json")
    _check_shape(document)
    assert document["probes"] == []
    assert document["error"]["kind"] == "syntax_error"
    assert document["objective"] is None


# ---- renderer input validation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("render", "variant", "mutation"),
    [
        (tsp_dfj_lazy, "CVRP", None),
        (cvrp_two_index_flow, "TSP", None),
        (vrphtw_two_index, "CVRP", None),
        (tsp_dfj_lazy, "TSP", Mutation.NO_CAPACITY),
        (cvrp_two_index_flow, "CVRP", Mutation.NO_SUBTOUR),
    ],
)
def test_renderer_refuses_what_it_does_not_model(
    render: Renderer, variant: str, mutation: Mutation | None
) -> None:
    with pytest.raises(ValueError):
        render(base_sample(variant).instance, mutation)
