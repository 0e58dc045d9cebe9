"""What a verification answers, as plain wire records.

These are the vocabulary every part of the loop speaks: the verifier produces them, synth's
rejection sampling, the trainer's reward and eval's metrics read them. They live in the light client
package (pydantic only) so that a trainer image reads a verdict without importing gurobipy; the
domain library re-exports each one from the module where it is used (``vrpcoder.families``,
``vrpcoder.errors``, ``vrpcoder.verification``, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, computed_field

from vrpcoder_client.numbers import NonNegativeFloat


class Family(StrEnum):
    """A constraint family of the VRP variants (feasibility rules only; objective terms are not families).

    One enum for the gold scripts' modules, the checker's findings, the attackers' targets and the
    reports: a disagreement between two of them is then found mechanically, not by string matching.
    """

    COVERAGE = "coverage"
    """Every customer is served exactly once (split delivery: its whole demand is delivered)."""

    ROUTE_STRUCTURE = "route_structure"
    """Each used vehicle leaves its own depot once, returns to it (unless routes are open) and
    visits each node at most once; the fleet size is respected."""

    SUBTOUR = "subtour"
    """Every visited customer is connected to a depot: no customer-only cycles."""

    CAPACITY = "capacity"
    """Per-vehicle load limit (homogeneous Q or vehicle-specific Q_k; linehaul and backhaul loads
    separately for VRPB; the running on-board load for pickup-and-delivery)."""

    COMPARTMENT = "compartment"
    """Per-vehicle, per-compartment load limit."""

    DISTANCE = "distance"
    """Per-route travelled distance limit D_max."""

    TIME_WINDOW = "time_window"
    """Hard time windows at customers and the depot horizon."""

    PRECEDENCE = "precedence"
    """The pickup of a pair is served before its delivery."""

    PAIRING = "pairing"
    """The pickup and delivery of a pair are served by the same vehicle."""

    BACKHAUL = "backhaul"
    """On each route every linehaul customer precedes every backhaul customer."""

    DELIVERY_COUPLING = "delivery_coupling"
    """Split delivery: a vehicle delivers to a customer only if it visits that customer, and never
    more than the customer's demand."""


class Rule(StrEnum):
    """An atomic rule: one part of a constraint family (``RULE_FAMILY`` says which).

    A family such as ``backhaul`` states several rules a model can keep or drop one at a time
    (no linehaul after a backhaul; no route that starts with a backhaul). A probe meant to catch a
    model that drops one of them must break that one alone: the checker names the rule of every
    violation, and sample assembly keeps a sub-rule probe only where the checker names exactly its
    rule (docs/semantics.md, "Families and their rules").
    """

    VISITED = "visited"
    """Every customer is visited."""
    VISITED_ONCE = "visited_once"
    """Non-split: no customer is visited twice."""
    DEMAND_MET = "demand_met"
    """Split: the quantities a customer receives add up to its demand."""

    WELL_FORMED = "well_formed"
    """Vehicles, depots and visited nodes exist; no depot between customers; cycles hold customers only."""
    OWN_DEPOT = "own_depot"
    """A route leaves its vehicle's own depot."""
    RETURN_DEPOT = "return_depot"
    """A closed route ends at the depot it left (an open route ends at its last customer)."""
    FLEET_SIZE = "fleet_size"
    """The vehicles of a depot drive no more routes than the depot has vehicles (TSP: one tour
    through the start city)."""
    ONE_ROUTE = "one_route"
    """A vehicle drives at most one route (where its depot's fleet would have room for the route)."""
    SPLIT_VISIT_ONCE = "split_visit_once"
    """Split: a vehicle visits a customer at most once."""

    NO_CYCLE = "no_cycle"
    """No cycle of customers that never reaches a depot."""

    LOAD = "load"
    """A route's load fits its vehicle: the total demand (VRPB: the linehaul deliveries; pickup and
    delivery: the on-board load at every point; split: the quantities it delivers)."""
    BACKHAUL_LOAD = "backhaul_load"
    """VRPB: a route's backhaul pickups fit its vehicle."""

    COMPARTMENT_LOAD = "compartment_load"
    """A route's demand for each compartment fits that compartment of its vehicle."""

    ROUTE_DISTANCE = "route_distance"
    """A route's distance (open routes: without the return leg) is within the limit."""

    WINDOW_CLOSE = "window_close"
    """Service starts before the customer's window closes (earliest schedule: leave the depot when
    it opens, wait for a window to open, serve for the service time)."""
    DEPOT_CLOSE = "depot_close"
    """A closed route is back at its depot before the depot closes."""

    PICKUP_FIRST = "pickup_first"
    """A pair's pickup comes before its delivery on their route."""

    SAME_VEHICLE = "same_vehicle"
    """A pair's pickup and delivery are served by one vehicle."""

    LINEHAUL_FIRST = "linehaul_first"
    """VRPB: no linehaul customer comes after a backhaul customer on a route."""
    LINEHAUL_START = "linehaul_start"
    """VRPB: every route starts with a linehaul customer (no route of backhauls only)."""

    DELIVERY_COUPLING = "delivery_coupling"
    """Split: a vehicle delivers only where it visits, between 0 and the customer's demand."""

    @property
    def family(self) -> Family:
        return RULE_FAMILY[self]


RULE_FAMILY: dict[Rule, Family] = {
    Rule.VISITED: Family.COVERAGE,
    Rule.VISITED_ONCE: Family.COVERAGE,
    Rule.DEMAND_MET: Family.COVERAGE,
    Rule.WELL_FORMED: Family.ROUTE_STRUCTURE,
    Rule.OWN_DEPOT: Family.ROUTE_STRUCTURE,
    Rule.RETURN_DEPOT: Family.ROUTE_STRUCTURE,
    Rule.FLEET_SIZE: Family.ROUTE_STRUCTURE,
    Rule.ONE_ROUTE: Family.ROUTE_STRUCTURE,
    Rule.SPLIT_VISIT_ONCE: Family.ROUTE_STRUCTURE,
    Rule.NO_CYCLE: Family.SUBTOUR,
    Rule.LOAD: Family.CAPACITY,
    Rule.BACKHAUL_LOAD: Family.CAPACITY,
    Rule.COMPARTMENT_LOAD: Family.COMPARTMENT,
    Rule.ROUTE_DISTANCE: Family.DISTANCE,
    Rule.WINDOW_CLOSE: Family.TIME_WINDOW,
    Rule.DEPOT_CLOSE: Family.TIME_WINDOW,
    Rule.PICKUP_FIRST: Family.PRECEDENCE,
    Rule.SAME_VEHICLE: Family.PAIRING,
    Rule.LINEHAUL_FIRST: Family.BACKHAUL,
    Rule.LINEHAUL_START: Family.BACKHAUL,
    Rule.DELIVERY_COUPLING: Family.DELIVERY_COUPLING,
}
"""The one table of which family each rule belongs to (every rule belongs to exactly one)."""


class Label(StrEnum):
    """What a correct model must answer about a probe."""

    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"


class InjVerdict(StrEnum):
    """What the candidate's model answered about a probe."""

    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    ERROR = "error"
    UNJUDGEABLE = "unjudgeable"
    """Not asked: the model's ``x`` has no vehicle index and a relabelling of the probe's routes
    is feasible, so no correct model could answer with the label (see ``vrpcoder.relabelling``)."""


class ErrorKind(StrEnum):
    """Why a verification produced no clean pass or fail.

    The split that matters most (after SandboxFusion): faults of the *candidate* (it does not parse,
    crashes, builds something that is not a model, times out) versus faults of *ours*
    (``infrastructure``; ``sandbox_violation`` is the candidate's). A candidate fault scores what it
    earned; an infrastructure fault (or a model too large for the size-limited Gurobi licence)
    scores nothing at all.
    """

    SYNTAX_ERROR = "syntax_error"
    MISSING_BUILD_MODEL = "missing_build_model"
    BUILD_ERROR = "build_error"
    NOT_A_MODEL = "not_a_model"
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    SIZE_LIMITED_LICENCE = "size_limited_licence"
    NO_ROUTING_VARIABLE = "no_routing_variable"
    INDEX_MISMATCH = "index_mismatch"
    SOLVER_STATUS = "solver_status"
    SANDBOX_VIOLATION = "sandbox_violation"
    INFRASTRUCTURE = "infrastructure"
    TIME_BUDGET = "time_budget"
    """The candidate's solve stopped on the job's time limit while its bound still admitted the
    reference (or before any solution): the budget was too small to tell, not the model wrong."""
    UNBOUNDED = "unbounded"
    """The candidate's model is unbounded (Gurobi's ``unbounded``/``inf_or_unbd``, or an infinite
    objective such as -1e+30): some rule that bounds the objective is missing."""

    @property
    def is_candidate_fault(self) -> bool:
        """False for faults that say nothing about the candidate: ours, our licence's size limit
        (a correct but larger formulation must not be scored zero for it), and a time budget too
        small to decide (reward noise that would punish correct code)."""
        return self not in {ErrorKind.INFRASTRUCTURE, ErrorKind.SIZE_LIMITED_LICENCE, ErrorKind.TIME_BUDGET}


class VerificationError(BaseModel):
    """Why a verification step produced no clean verdict."""

    model_config = ConfigDict(frozen=True)

    kind: ErrorKind
    detail: str


class RewardWeights(BaseModel):
    """r = build * w_build + diff' * w_diff + inj_fraction * w_inj (paper: 0.2 / 0.5 / 0.3).

    ``diff'`` is DIFF's credit: the objective matches the reference *and*, with
    ``optimum_gates_diff`` (the default), the plan the candidate's own model settles on is one the
    checker accepts, *and*, with ``cost_gates_diff`` (the default), the model prices every judged
    feasible probe as the checker does (cost injection). A model that reaches the reference cost
    with a plan breaking a rule, or with an objective that prices plans otherwise, has not found
    the optimum of the problem it was asked to model (its match is a coincidence of this instance),
    so its objective earns nothing. Neither check adds a weight of its own, so the paper's three
    weights keep their meaning; ``RewardWeights.paper()`` (both gates off) gives the paper's reward
    exactly, the checks then only reported. The no-injection ablation is ``RewardWeights(inj=0.0)``:
    the same verdicts, another reward. Weights are finite and non-negative: a negative one would pay for
    failing a check.
    """

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    build: NonNegativeFloat = 0.2
    """Weight of 'the script built a model'."""
    diff: NonNegativeFloat = 0.5
    """Weight of DIFF's credit: the optimum equals the reference within tolerance (and the gates below hold)."""
    inj: NonNegativeFloat = 0.3
    """Weight of the share of injection probes answered right (0: the paper's no-injection ablation)."""
    optimum_gates_diff: bool = True
    """DIFF's credit needs the candidate's own optimal plan to be one the checker accepts."""
    cost_gates_diff: bool = True
    """DIFF's credit needs the candidate to price every judged feasible probe as the checker does."""

    @classmethod
    def paper(cls) -> RewardWeights:
        """The paper's reward: 0.2 / 0.5 / 0.3, DIFF's credit from DIFF alone."""
        return cls(optimum_gates_diff=False, cost_gates_diff=False)


REWARD_DECIMALS = 6
"""Rewards are rounded to this many decimals (0.9 is reported as 0.9, not 0.8999999999999999)."""


def reward(
    build: bool,
    diff: bool,
    inj_fraction: float,
    weights: RewardWeights,
    *,
    optimum_ok: bool = True,
    cost_ok: bool = True,
) -> float:
    """The reward of a verdict's facts (``optimum_ok``: the optimum check did not reject the plan;
    ``cost_ok``: no judged cost check failed)."""
    credit = diff and (optimum_ok or not weights.optimum_gates_diff) and (cost_ok or not weights.cost_gates_diff)
    value = weights.build * build + weights.diff * credit + weights.inj * inj_fraction
    return round(value, REWARD_DECIMALS)


class ProbeResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    family: Family | None
    label: Label
    verdict: InjVerdict
    passed: bool
    seconds: float
    error: VerificationError | None = None
    control: InjVerdict | None = None
    """The feasible probe only: its answer when asked again under the violating probes' encoding,
    at a random point among them (``passed`` needs both answers right)."""

    @property
    def judged(self) -> bool:
        """False for a probe the candidate's model could not be asked about (``UNJUDGEABLE``): it
        counts neither for nor against the candidate."""
        return self.verdict is not InjVerdict.UNJUDGEABLE


class DiffCheck(BaseModel):
    """How DIFF reached its answer: the candidate's objective, its solver's bound and gap when it
    stopped, and, when the bound still admitted the reference, the objective after the verifier
    continued that solve with the gap closed (``MIPGap`` 0, within the job's time limit).

    A solver that stops at its default relative gap (1e-4) may report 132.5405 for an optimum of
    132.5394; that is the solver's tolerance, not the model's fault, so such a solve is continued
    before DIFF decides. A bound that excludes the reference decides at once."""

    model_config = ConfigDict(frozen=True)

    objective: float | None
    """The objective the candidate's own solve ended with."""
    bound: float | None = None
    """Its best bound (``ObjBound``), when the model is a MIP with a solution."""
    gap: float | None = None
    """Its relative gap (``MIPGap`` attribute) at that point."""
    tolerance: float
    """DIFF's absolute tolerance."""
    continued: bool = False
    """The solve was continued with the gap closed."""
    final_objective: float | None = None
    """The objective after the continued solve (the verdict's ``objective``)."""
    final_bound: float | None = None
    final_status: str | None = None
    seconds: float = 0.0
    """Time spent continuing the solve."""


class PlanRoute(BaseModel):
    """One route of the candidate's own optimal plan, in the instance's internal node numbers."""

    model_config = ConfigDict(frozen=True)

    vehicle: int
    depot: int
    visits: tuple[int, ...]
    end_depot: int | None = None
    """The depot the route's arcs end at, when it is not the one it left."""


class PlanViolation(BaseModel):
    """A rule the candidate's own plan breaks, named by its family, with the route in the detail."""

    model_config = ConfigDict(frozen=True)

    family: Family
    detail: str
    vehicle: int | None = None
    rule: Rule | None = None
    """The atomic rule of the family it breaks (None where the plan could not be read into routes)."""


class OptimumCheck(BaseModel):
    """The third operator: the candidate's optimal ``x`` read as routes and judged by the
    solver-free checker (see ``vrpcoder.optimum``). It is reported beside DIFF and INJ; a plan the
    checker rejects fails the verification and, by default, takes away DIFF's credit
    (``RewardWeights.optimum_gates_diff``)."""

    model_config = ConfigDict(frozen=True)

    passed: bool
    routes: tuple[PlanRoute, ...] = ()
    cycles: tuple[tuple[int, ...], ...] = ()
    """Customer-only cycles in ``x`` (a model without subtour elimination shows them here)."""
    violations: tuple[PlanViolation, ...] = ()
    cost: float | None = None
    """The checker's price of the plan."""
    reading: str = ""
    """How ``x`` was read into routes (which index gave the vehicle)."""
    seconds: float = 0.0

    @property
    def families(self) -> tuple[Family, ...]:
        """Distinct violated families, in the order ``Family`` declares them."""
        order = {family: index for index, family in enumerate(Family)}
        return tuple(sorted({v.family for v in self.violations}, key=order.__getitem__))


class PriceKind(StrEnum):
    """A kind of term in the price of a plan (``docs/semantics.md``, Objective)."""

    DISTANCE = "distance"
    """A route's distance times its vehicle's cost per unit distance."""
    FIXED = "fixed"
    """A used vehicle's fixed cost."""
    LATENESS = "lateness"
    """Soft windows: a customer's late penalty times how late its service starts."""
    RETURN_LEG = "return_leg"
    """Open routes: the leg back to the depot, which is *not* priced (listed to name a model that
    pays it)."""


class PriceTerm(BaseModel):
    """One term of the checker's price of a plan (``vrpcoder.pricing``)."""

    model_config = ConfigDict(frozen=True)

    kind: PriceKind
    value: float
    detail: str
    vehicle: int | None = None
    customer: int | None = None
    priced: bool = True
    """False for what the objective leaves out (an open route's return leg)."""


class ObjectivePart(BaseModel):
    """A share of the candidate's own objective at a pinned plan: the linear objective's terms
    grouped by the name of their variable (``x``, ``late``, ``used``, ...), or ``constant``."""

    model_config = ConfigDict(frozen=True)

    name: str
    value: float


class CostCheck(BaseModel):
    """Cost injection on one feasible probe (beyond the paper; see ``docs/verification.md``).

    The candidate's routing variables are pinned to the whole plan (depot arcs included), the rest
    of its model is optimised under its *own* objective, and that objective must equal the
    checker's price of the plan within DIFF's tolerance. ``judged`` is False where the plan could
    not be pinned unambiguously (an ``x`` that does not say which of differently priced vehicles
    drives a route) or could not be priced (the model rejects the plan, its solve stopped short of
    optimality): such a check counts neither way, and ``detail`` says why."""

    model_config = ConfigDict(frozen=True)

    probe: str
    objective: float | None
    """The candidate's objective with its ``x`` pinned to the plan, other variables free."""
    price: float | None
    """The checker's price of the plan."""
    passed: bool
    judged: bool = True
    detail: str | None = None
    """Why a check failed or was not judged, in words."""
    routes: tuple[PlanRoute, ...] = ()
    """The plan (filled where the check failed)."""
    terms: tuple[PriceTerm, ...] = ()
    """The checker's price term by term (filled where the check failed)."""
    differing: tuple[PriceTerm, ...] = ()
    """The terms (or sums of one kind) whose value equals the gap: the likely culprits; empty
    where no single kind of term accounts for it."""
    objective_parts: tuple[ObjectivePart, ...] = ()
    """The candidate's objective by variable group (filled where the check failed and the
    objective is a single linear or quadratic one)."""
    seconds: float = 0.0


class Verdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    sample_id: str
    build: bool
    status: str | None
    objective: float | None
    reference_objective: float
    diff: bool
    probes: tuple[ProbeResult, ...]
    passed: bool
    reward: float | None
    """None only for infrastructure faults (TRL's "no reward"), never a silent zero."""
    error: VerificationError | None
    routing_variable: str | None = None
    """How ``x`` was read when not plainly (spec: say so in the verdict): matched through the
    script's Python variable, its node table read as the script's own labels (``x`` by position),
    a third index read as a depot layer rather than a vehicle, and which probes it could not be
    asked about."""
    build_seconds: float = 0.0
    probe_seconds: float = 0.0
    diff_check: DiffCheck | None = None
    """How DIFF was decided (first and final objective, bound, gap, tolerance); None without a solve."""
    optimum: OptimumCheck | None = None
    """The candidate's own optimum, read as routes and judged by the checker; None when there was
    no solution or no ``x`` to read."""
    costs: tuple[CostCheck, ...] = ()
    """Cost injection: one check per feasible probe, in sample order (empty when costs were not
    checked: no ``x`` to pin, or ``VerifyConfig.check_costs`` off)."""

    @property
    def inj_fraction(self) -> float:
        return passed_fraction(self.probes)

    @property
    def optimum_ok(self) -> bool:
        """The optimum check did not reject the candidate's plan (or could not run)."""
        return self.optimum is None or self.optimum.passed

    @property
    def cost_ok(self) -> bool:
        """No judged cost check failed (none judged counts as no failure)."""
        return cost_checks_passed(self.costs)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def failed_checks(self) -> tuple[str, ...]:
        """Every check that failed, so nobody has to read the probe list: ``build``, ``diff``,
        ``optimum:<family>`` per family the candidate's own plan breaks, ``cost:<kind>`` per kind
        of price term behind a failed cost check (``cost`` where no single kind accounts for the
        gap), and ``inj:<family>`` (``inj:feasible`` for the feasible probe) per probe family whose
        answer was wrong."""
        if not self.build:
            return ("build",)
        failed: list[str] = [] if self.diff else ["diff"]
        if self.optimum is not None and not self.optimum.passed:
            failed += [f"optimum:{family.value}" for family in self.optimum.families] or ["optimum"]
        for check in self.costs:
            if check.judged and not check.passed:
                kinds = [f"cost:{term.kind.value}" for term in check.differing] or ["cost"]
                failed += [name for name in dict.fromkeys(kinds) if name not in failed]
        for probe in self.probes:
            name = f"inj:{probe.family.value if probe.family is not None else 'feasible'}"
            if probe.judged and not probe.passed and name not in failed:
                failed.append(name)
        return tuple(failed)


def passed_fraction(probes: Sequence[ProbeResult]) -> float:
    """Share of the judged probes whose INJ verdict equals their label (0 when none was judged)."""
    judged = [p for p in probes if p.judged]
    return sum(p.passed for p in judged) / len(judged) if judged else 0.0


def cost_checks_passed(costs: Sequence[CostCheck]) -> bool:
    """No judged cost check failed."""
    return all(c.passed for c in costs if c.judged)


def all_passed(diff: bool, probes: Sequence[ProbeResult], optimum_ok: bool = True, cost_ok: bool = True) -> bool:
    """DIFF holds, the optimum check did not reject the plan, no judged cost check failed, some
    probe was judged, and every judged probe passed."""
    judged = [p for p in probes if p.judged]
    return diff and optimum_ok and cost_ok and bool(judged) and all(p.passed for p in judged)
