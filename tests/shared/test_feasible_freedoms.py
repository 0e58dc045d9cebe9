"""Issue 28.3: feasible probes that use every freedom the rules allow.

A model that forbids something the statement allows (splitting a delivery, serving late under soft
windows, waiting for a window to open, ending an open route where no closed route could end)
accepts every feasible plan that does not use that freedom. Only a feasible probe that uses it tells
the two apart, so each sample carries one wherever its instance admits one. The tiny instances show
each search at work (the depot at the origin, customers on the axes: see ``tests/shared/attacks/tiny``);
the small grid shows how often each is found, and two independently written flawed models (a
no-split SDVRP, soft windows treated as hard) lose reward on every sample that admits their witness.
"""

from __future__ import annotations

from collections import Counter

import pytest
from vrpcoder.attacks.derived import FREEDOM_REQUIREMENTS, freedom_plan
from vrpcoder.candidate import build_candidate
from vrpcoder.checker import check
from vrpcoder.feasible import (
    EVERY_VEHICLE_TYPE,
    FREEDOM_MARGIN,
    FREEDOMS,
    closed_excess,
    costly_wait,
    diverse_feasible,
    lateness,
    load_gaps,
    types_used,
    vehicle_type,
    waiting,
)
from vrpcoder.gold import render_gold
from vrpcoder.injection import InjVerdict, inject
from vrpcoder.instances import Customer, Depot, Instance, TimeWindow, Vehicle
from vrpcoder.probes import Label, Probe
from vrpcoder.samples import Sample
from vrpcoder.solutions import Solution
from vrpcoder.variants import VARIANTS
from vrpcoder.verification import VerifyConfig, verify
from vrpcoder_synth.formulations import render_source

from tests.shared.attacks.tiny import make, on_axes, plan
from tests.shared.small_grid import FLAWED, describe, grid_samples

FREEDOM = {f.name: f for f in FREEDOMS}
CONFIG = VerifyConfig(time_limit=30.0)
WIDE = TimeWindow(start=0, end=100)


def _named(found: list[tuple[str, Solution]], name: str) -> Solution:
    plans = [p for n, p in found if n == name]
    assert len(plans) == 1, f"expected one {name} plan, got {[n for n, _ in found]}"
    return plans[0]


# ---- each freedom on a tiny instance -----------------------------------------------------------


def test_a_split_delivery_is_offered_where_s_plus_splits_nothing() -> None:
    instance = make("SDVRP", on_axes((2, 2, 2, 2)), (Vehicle(capacity=10),) * 2)
    plus = plan((0, (1, 2)), (1, (3, 4)))
    split = _named(diverse_feasible(instance, plus), "split_delivery")
    assert check(instance, split).feasible
    delivered: Counter[int] = Counter()
    served_by: dict[int, set[int]] = {}
    for route in split.routes:
        assert route.deliveries is not None
        for customer, amount in zip(route.visits, route.deliveries, strict=True):
            assert amount >= FREEDOM_MARGIN
            delivered[customer] += amount
            served_by.setdefault(customer, set()).add(route.vehicle)
    assert [c for c, k in served_by.items() if len(k) == 2], "one customer is served by both vehicles"
    assert delivered == pytest.approx({1: 2, 2: 2, 3: 2, 4: 2})


def _soft(closes: tuple[float, ...]) -> Instance:
    customers = on_axes((1, 1, 1, 1), window=[TimeWindow(start=0, end=c) for c in closes], late_penalty=[1.0] * 4)
    return make("VRPSTW", customers, (Vehicle(capacity=2),) * 2, depots=(Depot(x=0, y=0, window=TimeWindow(start=0, end=8)),))


def test_a_late_service_is_offered_under_soft_windows_and_the_gold_script_accepts_it() -> None:
    """Each truck carries two customers. s+ is on time everywhere (node 1 at 3, node 2 at 6, node 3
    at 4, node 4 at 8); a route driven the other way round serves its first customer late, which
    soft windows allow at a price. The gold script, asked through INJ, accepts the late plan, even
    though it returns after the depot closes (soft windows have no hard horizon)."""
    instance = _soft((5, 10, 5, 10))
    plus = plan((0, (1, 2)), (1, (3, 4)))
    assert check(instance, plus).feasible and lateness(instance, plus) <= 0
    late = _named(diverse_feasible(instance, plus), "late_service")
    assert check(instance, late).feasible and lateness(instance, late) >= FREEDOM_MARGIN
    gold = build_candidate(render_gold(instance))
    answer = inject(gold, instance, Probe(label=Label.FEASIBLE, solution=late, variety="late_service"))
    assert answer.verdict is InjVerdict.FEASIBLE, answer


def test_the_gold_model_finds_a_late_plan_or_proves_there_is_none() -> None:
    found, impossible = freedom_plan(_soft((5, 10, 5, 10)), "late_service")
    assert found is not None and not impossible
    assert check(_soft((5, 10, 5, 10)), found).feasible and lateness(_soft((5, 10, 5, 10)), found) >= FREEDOM_MARGIN
    roomy = _soft((500, 500, 500, 500))
    assert freedom_plan(roomy, "late_service") == (None, True)


def test_the_gold_model_proves_a_single_vehicle_cannot_split() -> None:
    alone = make("SDVRP", on_axes((2, 2, 2, 2)), (Vehicle(capacity=10),))
    assert freedom_plan(alone, "split_delivery") == (None, True)
    pair = make("SDVRP", on_axes((2, 2, 2, 2)), (Vehicle(capacity=10),) * 2)
    found, _ = freedom_plan(pair, "split_delivery")
    assert found is not None and check(pair, found).feasible
    assert FREEDOM["split_delivery"].used(pair, found)
    with pytest.raises(ValueError, match="no gold requirement"):
        freedom_plan(pair, "waiting")


def test_a_waiting_vehicle_is_offered_under_hard_windows() -> None:
    """Each truck carries two customers. s+ drives [2, 1]: node 1 is reached at 9, as it opens.
    Swapping the two reaches node 1 at 3, six time units before it opens: the vehicle waits there,
    which the rules allow."""
    windows = [TimeWindow(start=9, end=100), WIDE, WIDE, WIDE]
    customers = on_axes((1, 1, 1, 1), window=windows)
    instance = make("VRPHTW", customers, (Vehicle(capacity=2),) * 2, depots=(Depot(x=0, y=0, window=TimeWindow(start=0, end=200)),))
    plus = plan((0, (2, 1)), (1, (3, 4)))
    assert check(instance, plus).feasible and waiting(instance, plus) <= 0
    waits = [p for _, p in diverse_feasible(instance, plus) if FREEDOM["waiting"].used(instance, p)]
    assert waits, "a far-apart plan waits (here the tightest-window one already does)"
    assert all(check(instance, p).feasible for p in waits)
    assert max(waiting(instance, p) for p in waits) == pytest.approx(6.0)


def test_an_open_route_that_could_not_have_closed_is_offered() -> None:
    """The depot closes at 20: both routes of s+ could drive home in time (12 and 16), but node 2
    moved to the end of the other route (a truck carries three) is served at 18 and its way home
    would end at 24. Open
    routes need no way home, so the plan is feasible, and a model that keeps the return rejects it."""
    customers = on_axes((1, 1, 1, 1), window=[WIDE] * 4)
    instance = make("OVRPHTW", customers, (Vehicle(capacity=3),) * 2, depots=(Depot(x=0, y=0, window=TimeWindow(start=0, end=20)),))
    plus = plan((0, (1, 2)), (1, (3, 4)))
    assert check(instance, plus).feasible and closed_excess(instance, plus) <= 0
    open_end = _named(diverse_feasible(instance, plus), "open_end")
    assert check(instance, open_end).feasible and closed_excess(instance, open_end) >= FREEDOM_MARGIN


def test_a_route_on_the_vehicle_type_s_plus_leaves_idle() -> None:
    """Two small trucks carry s+; the large one (another capacity and fixed cost) stays home. A
    route handed over to it is offered, so a model that leaves that type out is asked about it."""
    customers = (Customer(x=3, y=0, demand=4), Customer(x=0, y=4, demand=4))
    small, large = Vehicle(capacity=10), Vehicle(capacity=20, fixed_cost=5)
    instance = make("HFVRP", customers, (small, small, large))
    plus = plan((0, (1,)), (1, (2,)))
    assert vehicle_type(large) not in types_used(instance, plus)
    every = _named(diverse_feasible(instance, plus), EVERY_VEHICLE_TYPE)
    assert check(instance, every).feasible and every.route_of(2) is not None
    assert types_used(instance, every) >= {vehicle_type(large)}


def test_a_wait_that_makes_the_next_customer_late_is_offered_under_soft_windows() -> None:
    """Node 1 opens at 10 (penalty 1), node 2 closes at 11 (penalty 5). s+ drives [2, 1]: on time at
    node 2 (6), a wait at node 1 that delays nobody. Driven [1, 2], the truck reaches node 1 at 3,
    waits until 10 and is 2 late at node 2 (price 10); a model that lets service start before the
    window opens at the late penalty per unit early starts node 1 at 8 (2 early, node 2 on time at
    11) and prices that plan 8 lower, which only a plan with such a wait shows (issue 28 audit:
    earliness priced instead of forbidden)."""
    windows = [TimeWindow(start=10, end=100), TimeWindow(start=0, end=11), WIDE, WIDE]
    customers = on_axes((1, 1, 1, 1), window=windows, late_penalty=[1.0, 5.0, 1.0, 1.0])
    depot = Depot(x=0, y=0, window=TimeWindow(start=0, end=200))
    instance = make("VRPSTW", customers, (Vehicle(capacity=2),) * 2, depots=(depot,))
    plus = plan((0, (2, 1)), (1, (3, 4)))
    assert check(instance, plus).feasible and costly_wait(instance, plus) == 0
    assert costly_wait(instance, plan((0, (1, 2)), (1, (3, 4)))) == pytest.approx(8.0)
    costly = [p for _, p in diverse_feasible(instance, plus) if FREEDOM["costly_wait"].used(instance, p)]
    assert costly and all(check(instance, p).feasible for p in costly)
    gold = build_candidate(render_gold(instance))
    for found in costly:
        answer = inject(gold, instance, Probe(label=Label.FEASIBLE, solution=found, variety="costly_wait"))
        assert answer.verdict is InjVerdict.FEASIBLE, answer


def test_the_gold_model_finds_a_costly_wait_or_proves_there_is_none() -> None:
    """The same instance: the gold model, asked for a plan whose waits cost lateness (by at least
    the margin, priced exactly as ``costly_wait`` prices it), finds one; with every window open from
    0 no vehicle ever waits, and it proves that no such plan exists."""
    customers = on_axes(
        (1, 1, 1, 1), window=[TimeWindow(start=10, end=100), TimeWindow(start=0, end=11), WIDE, WIDE],
        late_penalty=[1.0, 5.0, 1.0, 1.0],
    )
    depot = Depot(x=0, y=0, window=TimeWindow(start=0, end=200))
    instance = make("VRPSTW", customers, (Vehicle(capacity=2),) * 2, depots=(depot,))
    found, impossible = freedom_plan(instance, "costly_wait")
    assert found is not None and not impossible
    assert check(instance, found).feasible and costly_wait(instance, found) >= FREEDOM_MARGIN
    never = on_axes((1, 1, 1, 1), window=[TimeWindow(start=0, end=c) for c in (5, 10, 5, 10)], late_penalty=[1.0] * 4)
    relaxed = make("VRPSTW", never, (Vehicle(capacity=2),) * 2, depots=(depot,))
    assert freedom_plan(relaxed, "costly_wait") == (None, True)


def test_each_vehicle_type_is_loaded_past_the_next_smaller_types_limit() -> None:
    """Two trucks of 5 and one of 12: s+ gives the large one 3, which a model that gives it the
    small trucks' capacity accepts. A plan loads it past 5, and then no gap is left (a plan loading
    the small trucks past a smaller limit cannot exist: none is smaller)."""
    customers = on_axes((4, 1, 3, 2))
    instance = make("HFVRP", customers, (Vehicle(capacity=5), Vehicle(capacity=5), Vehicle(capacity=12, fixed_cost=5)))
    plus = plan((0, (1,)), (1, (3,)), (2, (2, 4)))
    assert check(instance, plus).feasible
    assert [g.name for g in load_gaps(instance, [plus])] == ["type_load_k2"]
    found = [p for _, p in diverse_feasible(instance, plus)]
    assert load_gaps(instance, [plus, *found]) == []
    assert any(r.vehicle == 2 and sum(instance.customer(c).demand for c in r.visits) > 5 for p in found for r in p.routes)


def test_no_freedom_ends_a_route_at_another_depot() -> None:
    """docs/semantics.md: a closed route returns to the depot it left on every variant, so no
    feasible plan ends elsewhere; ``other_depot_return`` probes that rule from the violating side."""
    assert not any("depot" in f.name for f in FREEDOMS)
    depots = (Depot(x=0, y=0), Depot(x=10, y=0))
    instance = make("MDVRP", on_axes((1, 1, 1, 1)), (Vehicle(capacity=10, depot=0), Vehicle(capacity=10, depot=1)), depots=depots)
    elsewhere = Solution(routes=(plan((0, (2, 3, 4, 5))).routes[0].model_copy(update={"end_depot": 1}),))
    assert not check(instance, elsewhere).feasible


# ---- how often each is found on the small grid --------------------------------------------------


def test_each_freedom_is_found_on_the_small_grid_wherever_the_gold_model_finds_one() -> None:
    """Per freedom and variant, the samples (base and copies) whose feasible probes use it. Split
    deliveries, late services and costly waits, the freedoms the gold model is asked for, are on every sample
    unless the gold model proves the instance has none; the others come from plans near s+ and
    are counted (``waiting`` is found on most window samples; ``open_end`` rarely, because the
    sampled instances' horizon leaves room for every closed return of plans near s+). Costly waits
    are asked of the gold model too."""
    allowed: Counter[tuple[str, str]] = Counter()
    used: Counter[tuple[str, str]] = Counter()
    missing: list[str] = []
    for variant, spec in VARIANTS.items():
        for sample in grid_samples(variant):
            plans = [p.solution for p in sample.probes if p.label is Label.FEASIBLE]
            for freedom in (f for f in FREEDOMS if f.allowed(sample.instance)):
                allowed[(freedom.name, variant)] += 1
                hit = any(freedom.used(sample.instance, p) for p in plans)
                used[(freedom.name, variant)] += hit
                if not hit and freedom.name in FREEDOM_REQUIREMENTS:
                    if freedom_plan(sample.instance, freedom.name)[1] is not True:
                        missing.append(f"{sample.id}: {freedom.name}")
            if spec.heterogeneous:
                allowed[(EVERY_VEHICLE_TYPE, variant)] += 1
                fleet = {vehicle_type(v) for v in sample.instance.vehicles}
                used[(EVERY_VEHICLE_TYPE, variant)] += set().union(*(types_used(sample.instance, p) for p in plans)) == fleet
    print("\nfreedom, variant: samples whose feasible probes use it / samples that allow it")
    for key in sorted(allowed):
        print(f"  {key[0]:<20} {key[1]:<9} {used[key]}/{allowed[key]}")
    assert not missing, missing
    assert {name for name, _ in allowed} == {*(f.name for f in FREEDOMS), EVERY_VEHICLE_TYPE}
    for name in ("split_delivery", "late_service", "waiting", EVERY_VEHICLE_TYPE):
        assert sum(n for (f, _), n in used.items() if f == name) > 0, name


# ---- flawed models that forbid a freedom ----------------------------------------------------------


def _admits(sample: Sample, freedom: str) -> bool:
    """The sample's instance admits a plan that uses the freedom: one of its feasible probes does,
    or the gold model does not prove that none exists."""
    plans = [p.solution for p in sample.probes if p.label is Label.FEASIBLE]
    if any(FREEDOM[freedom].used(sample.instance, p) for p in plans):
        return True
    return freedom_plan(sample.instance, freedom)[1] is not True


@pytest.mark.parametrize(
    ("file", "variant", "freedom"),
    [("sdvrp_3index_no_split.py", "SDVRP", "split_delivery"), ("vrpstw_2index_hard_windows.py", "VRPSTW", "late_service")],
    ids=["sdvrp_no_split", "vrpstw_soft_as_hard"],
)
def test_a_model_that_forbids_a_freedom_loses_reward_wherever_it_is_allowed(file: str, variant: str, freedom: str) -> None:
    """A no-split SDVRP and a VRPSTW with hard window ends find the right optimum on these samples
    (no optimal plan here splits or is late), so only a feasible probe that uses the freedom shows
    them wrong: on the old samples they earned full reward on every one."""
    template = (FLAWED / file).read_text()
    samples = grid_samples(variant)
    admitted = [s for s in samples if _admits(s, freedom)]
    assert len(admitted) == len(samples), "every sample of this point admits the witness"
    verdicts = [verify(render_source(template, s.instance), s, CONFIG) for s in admitted]
    assert all(v.diff for v in verdicts), "\n".join(map(describe, verdicts))
    full = [v for v in verdicts if v.reward is None or v.reward >= 1.0 - 1e-9]
    assert not full, "\n".join(map(describe, full))
    for verdict in verdicts:
        assert any(not p.passed and p.label is Label.FEASIBLE for p in verdict.probes), describe(verdict)


def test_the_soft_window_model_without_its_flaw_earns_full_reward() -> None:
    """The same VRPSTW script with the hard window end taken out is correct: the flaw is the only
    thing the feasible probes catch."""
    template = (FLAWED / "vrpstw_2index_hard_windows.py").read_text()
    hard_end = '        m.addConstr(start[j] <= WINDOW[j][1], name=f"closes[{j}]")\n'
    assert hard_end in template
    fixed = template.replace(hard_end, "")
    for sample in grid_samples("VRPSTW"):
        verdict = verify(render_source(fixed, sample.instance), sample, CONFIG)
        assert verdict.passed and verdict.reward == pytest.approx(1.0), describe(verdict)
