"""Library sub-instances with the file's own fleet: gold optimum vs a second exact method.

For every library file in tests/data/instances and 5, 8, 10 and 12 customers (as many as the file
has), the sub-instance is imported under the documented default conventions and solved by its gold
script within the size-limited licence; the optimum is compared with a method that shares nothing
with the gold's arc formulation: a route-label dynamic programme with set partitioning
(tests/shared/bruteforce.py ``dp_optimum``), or for split delivery a route-based MIP
(``split_route_optimum``). Both plans are priced by the independent checker. VRPB keeps the first
backhauls and linehauls of the file (a route of backhauls only is not allowed, and A1 lists its
five backhauls first). Exits non-zero when any row disagrees or is not solved.

    .venv/bin/python benchmarks/library_optima.py [--sizes 5 8 10 12] [--files solomon/C101.txt ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the second method is test support (tests/shared/bruteforce.py)

from rich.console import Console  # noqa: E402
from rich.progress import track  # noqa: E402
from rich.table import Table  # noqa: E402

from tests.shared.bruteforce import dp_optimum, split_route_optimum  # noqa: E402
from tests.shared.library_files import LIBRARY_FILES, is_split, library_sub_instance  # noqa: E402
from vrpcoder.cli import json_only  # noqa: E402
from vrpcoder.gold import render_gold, solve_gold  # noqa: E402
from vrpcoder.gold.render import LICENCE_LIMIT, choose_features, model_size  # noqa: E402

TOLERANCE = 1e-6


def row_for(path: str, size: int, time_limit: float) -> dict[str, object] | None:
    try:
        imported = library_sub_instance(path, size)
    except ValueError as exc:
        if "customers must be between" in str(exc):
            return None
        raise
    instance = imported.instance
    notes = {c.topic: c.choice for c in imported.conventions}
    variables, constraints = model_size(render_gold(instance))
    gold = solve_gold(instance, time_limit=time_limit)
    started = time.perf_counter()
    if is_split(imported):
        second, method = split_route_optimum(instance), "route MIP"
    else:
        second, method = dp_optimum(instance)[0], "label DP"
    second_time = time.perf_counter() - started
    agree = gold.objective is not None and abs(gold.objective - second) <= TOLERANCE * max(1.0, abs(second))
    return {
        "file": path,
        "customers": len(instance.customers),
        "variant": instance.variant,
        "fleet": len(instance.vehicles),
        "distance": notes["distance"],
        "model": "two-index" if choose_features(instance).two_index else "vehicle-indexed",
        "variables": variables,
        "constraints": constraints,
        "within_licence": variables <= LICENCE_LIMIT and constraints <= LICENCE_LIMIT,
        "gold_status": gold.status.value,
        "gold": gold.objective,
        "gold_seconds": round(gold.runtime, 3),
        "second": second,
        "second_method": method,
        "second_seconds": round(second_time, 3),
        "equal": agree and gold.status.value == "optimal",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 8, 10, 12])
    parser.add_argument("--files", nargs="+", default=[f.path for f in LIBRARY_FILES])
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--json", action="store_true", help="print the rows as JSON only")
    args = parser.parse_args()

    jobs = [(path, size) for path in args.files for size in args.sizes]
    rows = []
    with json_only(args.json):  # Gurobi's licence banner goes to stderr
        for path, size in track(jobs, description="library sub-instances", console=Console(stderr=True)):
            row = row_for(path, size, args.time_limit)
            if row is not None:
                rows.append(row)
    bad = [r for r in rows if not (r["equal"] and r["within_licence"])]
    if args.json:
        print(json.dumps({"rows": rows, "all_equal_within_licence": not bad}, indent=2))
        return 1 if bad else 0
    table = Table(title="gold optimum vs second exact method (file's own fleet, default conventions)")
    for column in ("file", "n", "variant", "fleet", "distance", "model", "vars/cons", "gold", "s", "second", "method", "s", "equal"):
        table.add_column(column, justify="left" if column in ("file", "variant", "distance", "model", "method") else "right")
    for r in rows:
        table.add_row(
            str(r["file"]),
            str(r["customers"]),
            str(r["variant"]),
            str(r["fleet"]),
            str(r["distance"]),
            str(r["model"]),
            f"{r['variables']}/{r['constraints']}",
            "-" if r["gold"] is None else f"{r['gold']:.2f}",
            f"{r['gold_seconds']:.2f}",
            f"{r['second']:.2f}",
            str(r["second_method"]),
            f"{r['second_seconds']:.2f}",
            "[green]yes[/]" if r["equal"] and r["within_licence"] else f"[red]no ({r['gold_status']})[/]",
        )
    Console().print(table)
    print(f"{len(rows) - len(bad)} of {len(rows)} sub-instances solved within the licence and equal to the second method")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
