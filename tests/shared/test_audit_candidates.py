"""Issue 28 audit: independently written candidates whose flaw only the probes added after the audit see.

An audit ran scripts written from the statement alone (3-index, 2-index, flows, MTZ, clocks) on
every sample of three profiles and two seeds. Each miss it found (full reward with a witness: a plan
the flawed model accepts or prices otherwise and the checker does not) came from a probe the
samples lacked:

* earliness priced at the late penalty (soft windows): no feasible plan waited where the wait made a
  later customer late, so every plan was priced alike (``s+:costly_wait``);
* a middle-sized vehicle given the largest vehicle's capacity (three capacities): only the smallest
  vehicle's limit was probed (``s-:middle_vehicle_edge``);
* every vehicle given the largest vehicle's limits where a capacity attack left another vehicle
  with larger compartments than the largest one: no feasible plan loaded that vehicle's compartment
  past the other's (``s+:type_load_*``).

Each flawed script here earns full reward on the sample named without the new probe, and the same
script without its flaw earns full reward on every sample of the grid point.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from vrpcoder.feasible import costly_wait
from vrpcoder.instances import Instance, Vehicle
from vrpcoder.samples import Sample, build_samples
from vrpcoder.variants import Attacker
from vrpcoder.verification import Verdict, VerifyConfig, verify

from tests.shared.attacks.tiny import make, on_axes
from tests.shared.small_grid import describe, grid_samples

AUDIT = Path(__file__).resolve().parents[1] / "data" / "candidates" / "audit"
CONFIG = VerifyConfig(time_limit=30.0)


def statement_data(instance: Instance) -> dict[str, object]:
    """What the statement gives, as the plain data an LLM would copy into its script."""

    def window(w: object) -> list[float] | None:
        return None if w is None else [w.start, w.end]  # type: ignore[attr-defined]

    return {
        "depots": [{"x": d.x, "y": d.y, "tw": window(d.window)} for d in instance.depots],
        "customers": [
            {
                "x": c.x, "y": c.y, "demand": c.demand, "service": c.service_time, "tw": window(c.window),
                "penalty": c.late_penalty, "cd": None if c.compartment_demand is None else list(c.compartment_demand),
            }
            for c in instance.customers
        ],
        "vehicles": [
            {
                "capacity": v.capacity, "fixed": v.fixed_cost, "rate": v.cost_per_distance,
                "ccap": None if v.compartment_capacity is None else list(v.compartment_capacity),
            }
            for v in instance.vehicles
        ],
    }


def candidate(file: str, instance: Instance, *, flawed: bool) -> str:
    text = (AUDIT / file).read_text()
    return text.replace("__DATA__", repr(statement_data(instance))).replace("__FLAWED__", repr(flawed))


def _sample(samples: tuple[Sample, ...], kind: str) -> Sample:
    (found,) = [s for s in samples if s.kind == kind]
    return found


def _only_failure(verdict: Verdict, probe: str) -> None:
    """The verdict fails on ``probe`` alone (its INJ answer or its cost check): DIFF, the optimum
    check and every other probe and price pass, so without that probe the reward was full."""
    failed_probes = [p.name for p in verdict.probes if not p.passed]
    failed_costs = [c.probe for c in verdict.costs if c.judged and not c.passed]
    assert verdict.diff and verdict.optimum_ok, describe(verdict)
    assert sorted({*failed_probes, *failed_costs}) == [probe], describe(verdict)
    assert verdict.reward is not None and verdict.reward < 1.0


def _correct_everywhere(file: str, samples: tuple[Sample, ...]) -> None:
    for sample in samples:
        verdict = verify(candidate(file, sample.instance, flawed=False), sample, CONFIG)
        assert verdict.passed and verdict.reward == pytest.approx(1.0), describe(verdict)


def test_earliness_priced_instead_of_forbidden_is_caught_by_a_costly_wait() -> None:
    """VRPSTW at profile 1, seed 0: s+ and the late plan wait nowhere where it matters; the plan
    whose wait makes the next customer late is priced lower by the flawed model (it starts early
    and pays less earliness than the lateness it saves)."""
    samples = grid_samples("VRPSTW")
    base = _sample(samples, "base")
    assert "s+:costly_wait" in [p.name for p in base.probes]
    flawed = verify(candidate("vrpstw_2index_flow.py", base.instance, flawed=True), base, CONFIG)
    _only_failure(flawed, "s+:costly_wait")
    (check,) = [c for c in flawed.costs if c.probe == "s+:costly_wait"]
    (plan,) = [p.solution for p in base.probes if p.name == "s+:costly_wait"]
    assert check.objective is not None and check.price is not None
    assert check.objective == pytest.approx(check.price - costly_wait(base.instance, plan), abs=1e-6), (
        "the flawed model's price is the rules' price less exactly what starting early saves"
    )
    _correct_everywhere("vrpstw_2index_flow.py", samples)


def test_a_middle_vehicle_with_the_largest_capacity_is_caught_by_the_middle_vehicle_edge() -> None:
    """Three trucks of capacity 7, 10 and 20 and four customers of 4 on the axes (tiny.py): the
    optimum puts all four on the large truck, and so does the flawed model (the middle truck costs
    more per distance), so DIFF and its own optimum pass. The capacity edge overloads the small truck by the least (8 > 7), and so does
    the smallest vehicle's edge: both are rejected by a model that keeps the small truck's limit.
    Only the middle truck loaded past 10 and within 20 shows that its limit was raised."""
    vehicles = (Vehicle(capacity=7), Vehicle(capacity=10, cost_per_distance=1.1), Vehicle(capacity=20))
    instance = make("HFVRP", on_axes((4, 4, 4, 4)), vehicles)
    (sample,) = build_samples(instance, relax_instance=False, parameter_attacks=False).samples
    middle = f"s-:{Attacker.MIDDLE_VEHICLE_EDGE.value}"
    assert middle in [p.name for p in sample.probes]
    flawed = verify(candidate("hfvrp_3index_mtz.py", instance, flawed=True), sample, CONFIG)
    _only_failure(flawed, middle)
    _correct_everywhere("hfvrp_3index_mtz.py", (sample,))


def test_a_vehicle_given_another_types_compartments_is_caught_by_a_type_load_plan() -> None:
    """HFMCVRP at profile 2, seed 0, the capacity copy: the attack lowered the large truck's total
    below the medium truck's, so "the largest vehicle's limits for all" gives the large truck the
    medium truck's smaller compartments. No feasible probe loaded its first compartment past them
    until the type-load plan."""
    samples = grid_samples("HFMCVRP", 2, 0)
    copy = _sample(samples, "capacity_overload")
    flawed = verify(candidate("hfmcvrp_3index_visits.py", copy.instance, flawed=True), copy, CONFIG)
    (probe,) = [p.name for p in copy.probes if p.name.startswith("s+:type_load")]
    _only_failure(flawed, probe)
    _correct_everywhere("hfmcvrp_3index_visits.py", samples)
