"""Held-out candidates: correct models written from the problem statement alone, never from the gold.

Each script models one variant in its own style (2- or
3-index arcs, sparse arc lists or a full grid with ub=0 loops, MTZ / single-commodity flow / lazy
DFJ or rounded-capacity callbacks, addConstrs generators / quicksum / LinExpr loops / the matrix
API, big-M time and distance labels, ...). Its data block (between ``# @data-begin`` and
``# @data-end``) is what a statement gives: node coordinates in internal numbering (depots first),
demands, fleet, windows, ...; the test rewrites it for every sample of a real small grid point,
the base sample and each attacked copy. Distances are the statement's plain Euclidean ones,
computed by each script itself.

A correct script must earn the full reward on every sample. A *mutant* is the same script with one
``# @omit <family>`` ... ``# @end <family>`` block deleted: exactly one constraint family left out,
which the dual verifier must catch on at least one sample (through DIFF or the probe built for it).
A block marked ``# @omit a,b`` holds valid cuts implied by several families together; it goes with
the mutant of any of them, or the mutant would keep part of the rule it is meant to lack.

The scripts of the training variants ship with the synthesis package (``vrpcoder_synth/templates/``,
its offline regeneration templates); only those of the held-out variants live in
``tests/data/candidates/independent/``. One copy of each: ``candidate_text`` reads either place.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import pytest
from vrpcoder.families import Family
from vrpcoder.instances import Instance
from vrpcoder.samples import Sample, build_samples
from vrpcoder.sampling import sample_instance
from vrpcoder.variants import get_variant
from vrpcoder.verification import Verdict, VerifyConfig, verify
from vrpcoder_synth.formulations import render_source

CANDIDATES = Path(__file__).resolve().parents[1] / "data" / "candidates" / "independent"
"""The held-out variants' scripts (the training variants' ones are the synthesis package's templates)."""
TEMPLATES = resources.files("vrpcoder_synth").joinpath("templates")


def candidate_text(file: str) -> str:
    """An independently written script by file name, from the synthesis package's templates or
    the held-out folder (each lives in exactly one of them)."""
    shipped = TEMPLATES.joinpath(file)
    held_out = CANDIDATES / file
    if shipped.is_file() == held_out.is_file():
        where = "both" if held_out.is_file() else "neither"
        raise FileNotFoundError(f"{file} is in {where} of vrpcoder_synth/templates and {CANDIDATES}")
    return shipped.read_text() if shipped.is_file() else held_out.read_text()


def candidate_files() -> frozenset[str]:
    """Every independently written script's file name, shipped or held out."""
    shipped = {e.name for e in TEMPLATES.iterdir() if e.name.endswith(".py")}
    return frozenset(shipped | {p.name for p in CANDIDATES.glob("*.py")})
PROFILE, SEED, CUSTOMERS = 1, 0, 6
CONFIG = VerifyConfig(time_limit=60.0)



def render(template: str, instance: Instance, omit: str | None = None) -> str:
    """The script for ``instance``; with ``omit``, the mutant that lacks that one block (the template
    convention's one renderer lives with the shipped formulations)."""
    return render_source(template, instance, omit=omit)


# ---- the cases -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    file: str
    variant: str
    style: str
    mutants: tuple[tuple[str, Family | None], ...] = ()
    """(omitted block, family of the probe expected to expose it; None: DIFF alone may catch it)."""
    xfail: str | None = None
    """Why a correct script of this case is known to be rejected (strict xfail), if it is."""
    point: tuple[int, int, int] = (PROFILE, SEED, CUSTOMERS)
    """(profile, seed, customers) of the grid point whose samples judge the script."""

    def samples(self, customers: int | None = None) -> tuple[Sample, ...]:
        profile, seed, n = self.point
        return samples(self.variant, profile, seed, customers or n)

    @property
    def id(self) -> str:
        return self.file.removesuffix(".py")

    def template(self) -> str:
        return candidate_text(self.file)


CASES: tuple[Case, ...] = (
    Case("tsp_dfj_lazy_getvars.py", "TSP", "2-index N×N ub=0 diag; lazy DFJ (model._vars, cbLazy)",
         (("subtour", Family.SUBTOUR),)),
    Case("tsp_mtz_3index_linexpr.py", "TSP", "3-index; MTZ; LinExpr.addTerms loops",
         (("subtour", Family.SUBTOUR),)),
    Case("cvrp_flow_2index_arclist.py", "CVRP", "2-index arc list; single-commodity flow; quicksum",
         (("capacity", Family.CAPACITY),)),
    Case("cvrp_mtz_3index_symmetry.py", "CVRP", "3-index; MTZ + knapsack; symmetry breaking; addConstrs",
         (("capacity", Family.CAPACITY), ("subtour", Family.SUBTOUR))),
    Case("cvrp_rcc_lazy_2index.py", "CVRP", "2-index N×N ub=0; lazy rounded capacity cuts (model._x)",
         (("capacity", Family.CAPACITY),)),
    Case("vrphtw_3index_bigm.py", "VRPHTW", "3-index; big-M times t[i,k]; time propagation kills subtours",
         (("time_window", Family.TIME_WINDOW),)),
    Case("vrphtw_2index_arrival.py", "VRPHTW", "2-index arc list; arrival-time vars big-M; MTZ loads",
         (("time_window", Family.TIME_WINDOW), ("capacity", Family.CAPACITY))),
    Case("dcvrp_2index_distance_labels.py", "DCVRP", "2-index N×N; big-M distance labels; MTZ loads",
         (("distance", Family.DISTANCE), ("capacity", Family.CAPACITY))),
    Case("mdvrp_3index_sparse.py", "MDVRP", "3-index sparse (i,j,k) list, own depot only; MTZ; knapsack",
         (("capacity", Family.CAPACITY), ("subtour", Family.SUBTOUR))),
    Case("hfvrp_3index_flow.py", "HFVRP", "3-index; per-vehicle flow ≤ Q_k; fixed + per-km cost",
         (("capacity", Family.CAPACITY),)),
    Case("hfvrp_3index_twins_symmetry.py", "HFVRP", "3-index flow; identical vehicles ordered",
         (("capacity", Family.CAPACITY),), point=(9, 1, 7)),
    Case("vrpb_2index_linexpr.py", "VRPB", "2-index, no B→L arcs; 2 MTZ load chains; LinExpr",
         (("backhaul", Family.BACKHAUL), ("capacity", Family.CAPACITY))),
    Case("pdp_3index_positions.py", "PDP", "3-index; MTZ positions, precedence pos, load labels big-M",
         (("precedence", Family.PRECEDENCE), ("pairing", Family.PAIRING), ("capacity", Family.CAPACITY))),
    Case("sdvrp_3index_quantities.py", "SDVRP", "3-index + y[i,k]; per-vehicle MTZ; LinExpr(coeffs, vars)",
         (("delivery_coupling", Family.CAPACITY), ("capacity", Family.CAPACITY),
          ("subtour", Family.SUBTOUR))),
    Case("ovrp_2index_no_return_arcs.py", "OVRP", "2-index tuplelist without arcs into the depot; MTZ loads",
         (("capacity", Family.CAPACITY),)),
    Case("mcvrp_mvar_tolist.py", "MCVRP", "addMVar x; rows from x.tolist(); MTZ loads",
         (("compartment", Family.COMPARTMENT),)),
    Case("mcvrp_matrix_api.py", "MCVRP", "addMVar x; MLinExpr rows; compartment flows",
         (("compartment", Family.COMPARTMENT),)),
    Case("vrpstw_2index_indicators.py", "VRPSTW", "2-index arc list; indicator constraints",
         (("capacity", Family.CAPACITY),)),
    Case("ovrphtw_3index_open.py", "OVRPHTW", "3-index sparse, no arcs into depot; big-M",
         (("time_window", Family.TIME_WINDOW),)),
    Case("cvrp_python_x_unnamed.py", "CVRP", "Python name x, addVars without name= (Gurobi names C0..)",
         (("capacity", Family.CAPACITY),)),
    Case("cvrp_3index_lexicographic.py", "CVRP", "3-index MTZ; setObjectiveN travel > vehicles",
         (("capacity", Family.CAPACITY),)),
    Case("tsp_2index_mtz_node_labels.py", "TSP", "2-index MTZ; display labels (node_names) for printing",
         (("subtour", Family.SUBTOUR),)),
    # ---- round 2: the 8 variants round 1 left out (HF/MD/MC/PD combined with windows and limits) ----
    Case("hfmdvrp_3index_supersource.py", "HFMDVRP",
         "3-index full grid; super-source/sink arcs open only at the own depot; per-vehicle MTZ loads; gp.Env",
         (("capacity", Family.CAPACITY), ("subtour", Family.SUBTOUR), ("own_depot", None))),
    Case("hfmdvrp_vardict_underscore_names.py", "HFMDVRP",
         "dict x[i,j,k] via addVar one by one, names x_i_j_k; own-depot arcs only; LinExpr.add; setParam",
         (("capacity", Family.CAPACITY), ("subtour", Family.SUBTOUR))),
    Case("hfmcvrp_3index_prod_compartments.py", "HFMCVRP",
         "3-index tuplelist; per-vehicle compartment and total knapsacks by x.prod(dict); per-vehicle MTZ",
         (("compartment", Family.COMPARTMENT), ("capacity", Family.CAPACITY), ("subtour", Family.SUBTOUR))),
    # A 2-index x cannot be asked about an overload that another truck of the fleet could carry
    # (see vrpcoder.relabelling); this point's overload probes hold under every relabelling.
    Case("hfmcvrp_2index_assignment.py", "HFMCVRP",
         "2-index x + assignment y[i,k]; route start picks the vehicle; vehicle rate via w[i,j,k]; MTZ",
         (("compartment", Family.COMPARTMENT), ("capacity", Family.CAPACITY), ("subtour", Family.SUBTOUR)),
         point=(6, 0, CUSTOMERS)),
    Case("hfvrphtw_3index_indicator_times.py", "HFVRPHTW",
         "3-index; per-vehicle clocks t[i,k] + return time by addGenConstrIndicator; windows as bounds",
         (("time_window", Family.TIME_WINDOW), ("capacity", Family.CAPACITY))),
    Case("hfvrphtw_lazy_dfj_node_times.py", "HFVRPHTW",
         "3-index + visit v[i,k]; per-node times big-M; lazy DFJ callback (redundant under windows)",
         (("time_window", Family.TIME_WINDOW), ("capacity", Family.CAPACITY))),
    Case("mdvrpstw_3index_genconstr_max.py", "MDVRPSTW",
         "3-index sparse own-depot arcs; per-node starts; late = gp.max_(start - b, 0); gp.Env(params=...)",
         (("capacity", Family.CAPACITY), ("late_penalty", None)), point=(1, 2, 6)),
    Case("mdvrpstw_2index_depot_assignment_pwl.py", "MDVRPSTW",
         "2-index + depot assignment a[j,d]; lateness as setPWLObj on the start; MTZ loads",
         (("capacity", Family.CAPACITY), ("late_penalty", None), ("depot_link", None)), point=(1, 2, 6)),
    Case("mdvrpstw_3index_blended_objectives.py", "MDVRPSTW",
         "3-index; per-vehicle clocks; travel and lateness as two setObjectiveN of equal priority (blend)",
         (("capacity", Family.CAPACITY),), point=(1, 2, 6)),
    Case("pdpstw_3index_vehicle_clocks.py", "PDPSTW",
         "3-index; per-vehicle clock and load propagated by indicators; precedence by clock; lateness big-M",
         (("capacity", Family.CAPACITY), ("precedence", Family.PRECEDENCE), ("pairing", None))),
    Case("pdpstw_2index_route_labels.py", "PDPSTW",
         "2-index dict (x[i,j] names); pairing by route labels; MTZ precedence; SOS1 on out-arcs",
         (("capacity", Family.CAPACITY), ("precedence", Family.PRECEDENCE), ("pairing", None))),
    Case("pdptw_3index_node_times_env.py", "PDPTW",
         "3-index; per-node starts + per-vehicle return; precedence by time; gp.Env(params=dict)",
         (("time_window", Family.TIME_WINDOW), ("precedence", Family.PRECEDENCE), ("pairing", Family.PAIRING))),
    Case("pdptw_2index_lazy_path_cuts.py", "PDPTW",
         "2-index; pairing and precedence only by lazy infeasible-path cuts in a callback; big-M windows",
         (("time_window", Family.TIME_WINDOW), ("precedence", Family.PRECEDENCE))),
    Case("mcvrpstw_2index_compartment_flows.py", "MCVRPSTW",
         "2-index N×N ub=0 diag; one commodity flow per compartment; lateness variable; late.prod",
         (("compartment", Family.COMPARTMENT), ("capacity", Family.CAPACITY))),
    Case("mcvrpstw_3index_mvar.py", "MCVRPSTW",
         "addMVar (N,N,K) x; axis sums and @ rows; per-vehicle MTZ; addGenConstrMax lateness",
         (("compartment", Family.COMPARTMENT), ("capacity", Family.CAPACITY))),
    Case("dcvrphtw_3index_route_length_sum.py", "DCVRPHTW",
         "3-index sparse dict; route length as per-vehicle sum of legs; per-vehicle clocks with start/return",
         (("capacity", Family.CAPACITY), ("distance", Family.DISTANCE), ("time_window", Family.TIME_WINDOW))),
    Case("dcvrphtw_2index_underscore_indicators.py", "DCVRPHTW",
         "2-index dict, names x_i_j; distance/time/load labels by indicator addConstrs generators",
         (("capacity", Family.CAPACITY), ("distance", Family.DISTANCE), ("time_window", Family.TIME_WINDOW))),
    # Round 2: the thin variants, in styles the first round did not have.
    Case("dcvrp_3index_route_length_symmetry.py", "DCVRP",
         "addVars(N,N,K) loops zeroed by rows; vehicles in index order; knapsack + route length sums; per-vehicle MTZ; setParam",
         (("capacity", Family.CAPACITY), ("distance", Family.DISTANCE), ("subtour", Family.SUBTOUR))),
    Case("dcvrp_2index_two_commodity_indicators.py", "DCVRP",
         "dict of addVar(vtype='B', name=f'x[{i},{j}]') as tupledict; two-commodity flow; distance labels by indicators; tuplelist.select",
         (("capacity", Family.CAPACITY), ("distance", Family.DISTANCE))),
    Case("mdvrp_2index_depot_assignment_labels.py", "MDVRP",
         "2-index sparse arcs (no depot-depot); customer-depot assignment y[j,d] carried along arcs; MTZ loads",
         (("capacity", Family.CAPACITY), ("depot_link", None)), point=(3, 2, 6)),
    Case("mdvrp_3index_vardict_flow.py", "MDVRP",
         "dict x[i,j,k] over all nodes, foreign depots ub=0; per-vehicle single-commodity flow; Q on depot outflow",
         (("capacity", Family.CAPACITY), ("own_depot", None))),
    Case("ovrp_3index_zero_return_relaxed_vtype.py", "OVRP",
         "addVars continuous then VType=B; free (zero-cost) return arcs; x.prod(cost); knapsack; MTZ positions; symmetry",
         (("capacity", Family.CAPACITY), ("subtour", Family.SUBTOUR))),
    Case("ovrphtw_2index_indicator_zero_return.py", "OVRPHTW",
         "addVars(N,N) diag ub=0; zero-cost returns; indicator times, windows as bounds; single-commodity flow",
         (("time_window", Family.TIME_WINDOW), ("capacity", Family.CAPACITY))),
    Case("pdp_3index_vardict_indicators.py", "PDP",
         "dict x[i,j,k] by addVar; per-vehicle positions and on-board loads by indicators; per-vehicle precedence",
         (("capacity", Family.CAPACITY), ("precedence", Family.PRECEDENCE), ("pairing", Family.PAIRING))),
    Case("sdvrp_3index_lazy_dfj.py", "SDVRP",
         "3-index tuplelist + y[i,k]; per-vehicle lazy DFJ in a callback (LazyConstraints)",
         (("capacity", Family.CAPACITY), ("delivery_coupling", Family.CAPACITY), ("subtour", Family.SUBTOUR))),
    Case("vrpb_3index_two_flows.py", "VRPB",
         "3-index; separate linehaul / backhaul commodity flows; order by zero delivery flow after a pickup; x.prod",
         (("capacity", Family.CAPACITY), ("backhaul", Family.BACKHAUL))),
    Case("vrpstw_2index_lifted_mtz_bigm.py", "VRPSTW",
         "addVars(N,N) loops zeroed by rows; big-M starts + tardiness; lifted MTZ (Desrochers-Laporte) loads",
         (("capacity", Family.CAPACITY),)),
    Case("ovrp_2index_lazy_rcc_open.py", "OVRP",
         "2-index, no arcs into the depot; only lazy cuts: rounded capacity on overloaded paths + connectivity (model._x)",
         (("capacity", Family.CAPACITY), ("subtour", Family.SUBTOUR))),
    Case("ovrphtw_3index_sink_var_one_based.py", "OVRPHTW",
         "3-index, vehicles numbered 1..K; route end as a separate sink binary end[j,k]; big-M node starts; knapsack",
         (("capacity", Family.CAPACITY), ("time_window", Family.TIME_WINDOW))),
    Case("ovrphtw_2index_pruned_arcs.py", "OVRPHTW",
         "2-index arc list pruned a priori (no return arcs, time-window- and capacity-infeasible arcs dropped); big-M",
         (("time_window", Family.TIME_WINDOW), ("capacity", Family.CAPACITY))),
    # ---- round 3: held-out and mixed-fleet variants in further common styles ----
    Case("ovrphtw_2index_permutations_service.py", "OVRPHTW",
         "tuplelist(itertools.permutations) incl. zero-cost returns; x INTEGER ub=1; node_ids/id2idx; MTZ u in [d, Q]; Presolve/Method",
         (("time_window", Family.TIME_WINDOW), ("capacity", Family.CAPACITY))),
    Case("ovrphtw_3index_numpy_lazy_dfj_attr.py", "OVRPHTW",
         "addVars(np.arange) numpy keys, Gurobi name 'arc' (Python x); zero-cost returns; upfront DFJ via combinations with Lazy=1",
         (("time_window", Family.TIME_WINDOW), ("capacity", Family.CAPACITY))),
    Case("mcvrpstw_2index_rcc_combinations_genmax.py", "MCVRPSTW",
         "2-index; total+compartment rounded capacity cuts over all subsets upfront; late = addGenConstrMax(free aux, 0)",
         (("capacity", Family.CAPACITY), ("compartment", Family.COMPARTMENT))),
    Case("mcvrpstw_3index_indicator_hierarchical.py", "MCVRPSTW",
         "3-index tuplelist; indicator start propagation; setObjectiveN cost (prio 2) > route count (prio 1)",
         (("capacity", Family.CAPACITY), ("compartment", Family.COMPARTMENT))),
    Case("dcvrphtw_2index_rcc_lazy_attr_labels.py", "DCVRPHTW",
         "addVars(N,N) diag rows; upfront rounded capacity cuts Lazy=1; cumulative distance labels + redundant bound; big-M starts",
         (("capacity", Family.CAPACITY), ("distance", Family.DISTANCE), ("time_window", Family.TIME_WINDOW))),
    Case("dcvrphtw_3index_named_route_python_x.py", "DCVRPHTW",
         "3-index Gurobi name 'route' (Python x); visits y; per-vehicle clocks zero when unvisited; LinExpr.addTerms; id2idx/idx2id",
         (("capacity", Family.CAPACITY), ("distance", Family.DISTANCE), ("time_window", Family.TIME_WINDOW))),
    Case("hfvrp_2index_arc_ownership_mtz_cap.py", "HFVRP",
         "2-index x + y[i,k]; arc ownership z (sum_k z = x) prices rates; fixed cost via start[j,k] on depot arcs; MTZ u <= sum_k Q_k y",
         (("capacity", Family.CAPACITY),)),
    Case("hfvrphtw_3index_intx_hierarchical_fixed_arcs.py", "HFVRPHTW",
         "3-index x INTEGER ub=1; fixed cost on depot-leaving arcs; setObjectiveN cost (prio 10) > sum of starts; 2-cycle cuts",
         (("capacity", Family.CAPACITY), ("time_window", Family.TIME_WINDOW))),
    Case("hfmdvrp_2index_assignment_arc_price_flow.py", "HFMDVRP",
         "2-index x + y[j,k]; depot arcs only for customers of that depot's vehicles; arc price >= rate terms; commodity flow",
         (("capacity", Family.CAPACITY), ("subtour", Family.SUBTOUR), ("own_depot", None))),
    Case("mdvrp_3index_depot_layers.py", "MDVRP",
         "x[i,j,d] third index = depot layer (prompt's vehicle/depot), full grid, foreign depots ub=0; MTZ loads on layer sums",
         (("capacity", Family.CAPACITY),)),
    Case("hfvrphtw_2index_genconstr_and_assignment.py", "HFVRPHTW",
         "2-index x + y[i,k]; vehicle kept along arcs by indicators; arc-vehicle and opening products by addGenConstrAnd; indicator starts",
         (("capacity", Family.CAPACITY), ("time_window", Family.TIME_WINDOW)), point=(1, 1, CUSTOMERS)),
)

MUTANTS = [(case, omit, family) for case in CASES if case.xfail is None for omit, family in case.mutants]
"""Mutants of the scripts the verifier accepts (a mutant of a rejected script proves nothing)."""


@cache
def samples(variant: str, profile: int, seed: int, customers: int) -> tuple[Sample, ...]:
    """Every sample (base first, then the attacked copies) of one small grid point."""
    instance = sample_instance(variant, profile, seed, customers=customers)
    built = tuple(build_samples(instance, seed=0).samples)
    assert built and built[0].kind == "base", f"no base sample for {variant}"
    return built


def describe(verdict: Verdict) -> str:
    probes = ", ".join(f"{p.name}={p.verdict.value}{'' if p.passed else '(!)'}" for p in verdict.probes)
    error = f" error={verdict.error.kind.value}: {verdict.error.detail}" if verdict.error else ""
    return (
        f"{verdict.sample_id}: diff={verdict.diff} obj={verdict.objective} ref={verdict.reference_objective} "
        f"reward={verdict.reward} [{probes}]{error}"
    )


# ---- correct scripts pass everywhere ---------------------------------------------------------


def test_cases_cover_the_requested_spread() -> None:
    assert len(CASES) >= 12
    assert len({c.variant for c in CASES}) >= 7
    assert len(MUTANTS) >= 6
    assert {c.file for c in CASES} <= candidate_files()


def test_every_script_is_judged_and_kept_once_where_its_variant_belongs() -> None:
    """The training variants' scripts ship with synthesis, the held-out ones stay here; a script in
    neither list of cases would go untested."""
    assert {c.file for c in CASES} == candidate_files()
    for case in CASES:
        assert (CANDIDATES / case.file).is_file() is not get_variant(case.variant).train, case.file
        candidate_text(case.file)  # raises if the file is in both places


def _correct(case: Case) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
    return pytest.param(case, marks=marks, id=case.id)


@pytest.mark.parametrize("case", [_correct(c) for c in CASES])
def test_independent_candidate_earns_full_reward(case: Case) -> None:
    template = case.template()
    failures = []
    for sample in case.samples():
        verdict = verify(render(template, sample.instance), sample, CONFIG)
        if not (verdict.passed and verdict.error is None and verdict.reward == pytest.approx(1.0)):
            failures.append(describe(verdict))
    assert not failures, "\n".join(failures)


def test_unnamed_x_is_matched_through_the_python_variable_and_the_verdict_says_so() -> None:
    case = next(c for c in CASES if c.file == "cvrp_python_x_unnamed.py")
    named = next(c for c in CASES if c.file == "cvrp_flow_2index_arclist.py")
    sample = case.samples()[0]
    verdict = verify(render(case.template(), sample.instance), sample, CONFIG)
    assert verdict.passed, describe(verdict)
    assert verdict.routing_variable is not None
    assert verify(render(named.template(), sample.instance), sample, CONFIG).routing_variable is None


def test_a_two_index_x_on_a_mixed_fleet_leaves_vehicle_bound_probes_unjudged() -> None:
    """At the default point the overload probes break the rule only on the truck they name; a
    2-index model cannot be asked about them, so they are reported unjudgeable (counting neither
    way) and the verdict says why, while the 3-index script is asked about every probe."""
    two_index = next(c for c in CASES if c.file == "hfmcvrp_2index_assignment.py")
    three_index = next(c for c in CASES if c.file == "hfmcvrp_3index_prod_compartments.py")
    samples = Case(two_index.file, two_index.variant, two_index.style).samples()
    verdicts = [verify(render(two_index.template(), s.instance), s, CONFIG) for s in samples]
    unjudged = [p for v in verdicts for p in v.probes if not p.judged]
    assert unjudged and {p.family for p in unjudged} <= {Family.CAPACITY, Family.COMPARTMENT}
    for verdict in verdicts:
        assert verdict.passed and verdict.reward == pytest.approx(1.0), describe(verdict)
        if any(not p.judged for p in verdict.probes):
            assert verdict.routing_variable is not None and "not judged" in verdict.routing_variable
    for sample in samples:
        judged = verify(render(three_index.template(), sample.instance), sample, CONFIG)
        assert judged.passed and all(p.judged for p in judged.probes), describe(judged)


@pytest.mark.parametrize(("case", "omit", "family"), MUTANTS, ids=lambda v: getattr(v, "id", v))
def test_single_omission_is_caught(case: Case, omit: str, family: Family | None) -> None:
    template = case.template()
    verdicts = [verify(render(template, s.instance, omit), s, CONFIG) for s in case.samples()]
    assert not all(v.passed for v in verdicts), "mutant accepted:\n" + "\n".join(map(describe, verdicts))
    assert all(v.reward is not None for v in verdicts), "\n".join(map(describe, verdicts))
    if family is not None:
        exposed = [p for v in verdicts for p in v.probes if p.family is family and not p.passed]
        diff_failed = [v for v in verdicts if not v.diff]
        assert exposed or diff_failed, "\n".join(map(describe, verdicts))


# ---- more grid points (slow) ---------------------------------------------------------------------

SLOW_POINTS = ((2, 0), (3, 1), (4, 2), (5, 0), (6, 1))
SLOW_CUSTOMERS = 7


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in CASES if c.xfail is None], ids=lambda c: c.id)
def test_independent_candidate_passes_on_more_grid_points(case: Case) -> None:
    template = case.template()
    failures = []
    for profile, seed in SLOW_POINTS:
        for sample in samples(case.variant, profile, seed, SLOW_CUSTOMERS):
            verdict = verify(render(template, sample.instance), sample, CONFIG)
            if not verdict.passed:
                failures.append(describe(verdict))
    assert not failures, "\n".join(failures)
