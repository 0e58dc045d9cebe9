"""The smoke test's client: runs inside the verifier image, next to the stack, and checks it end to end.

It builds one small CVRP sample with the image's own library, registers it, and sends three
candidates through the HTTP API as a user would: the gold script (full reward), a hostile script
that writes to /etc (``sandbox_violation``) and a script that loops forever in ``build_model``
(``timeout``, within the bound its request's time limit sets). It then reads /readyz with and
without the token and /metrics. One JSON document goes to stdout (``deploy/smoke.sh`` reads it to
find each job's log lines); the exit status is 0 only if every check held.

Each candidate carries a random marker comment, so the caller can make sure no candidate text
reached the logs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from typing import Any

import httpx
from vrpcoder.samples import build_grid_point

LOOP = """
def build_model():
    while True:
        pass
"""

HOSTILE_WRITE = """
def build_model():
    try:
        with open("/etc/vrpcoder-smoke-pwned", "w") as handle:
            handle.write("pwned")
    except OSError:
        pass
    return gold_build_model()
"""


def _final(client: httpx.Client, answer: dict[str, Any], deadline: float) -> dict[str, Any]:
    """Poll a job until it is finished or failed (a 202 answer only carries its id)."""
    while answer["state"] not in ("finished", "failed") and time.monotonic() < deadline:
        time.sleep(1.0)
        answer = client.get(f"/v1/jobs/{answer['job_id']}").raise_for_status().json()
    return answer


def _kind(answer: dict[str, Any]) -> str:
    verdict = answer.get("verdict") or {}
    error = verdict.get("error") or {}
    return str(error.get("kind") or ("none" if verdict else answer["state"]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="Base URL of the API, e.g. http://verifier-api:8000")
    parser.add_argument("--token", required=True, help="A bearer token the API accepts")
    parser.add_argument("--time-limit", type=float, default=5.0, help="Gurobi time limit per solve (s)")
    parser.add_argument("--loop-deadline", type=float, default=240.0, help="How long to wait for the loop's verdict (s)")
    args = parser.parse_args()

    sample = build_grid_point("CVRP", 1, 0, time_limit=10).samples[0]
    gold = sample.gold_code
    hostile = gold.replace("def build_model(", "def gold_build_model(", 1) + HOSTILE_WRITE
    cases = {"gold": (gold, "none"), "hostile_write": (hostile, "sandbox_violation"), "loop": (LOOP, "timeout")}
    markers = {name: f"# smoke-marker-{uuid.uuid4().hex}" for name in cases}
    options = {"time_limit": args.time_limit}
    report: dict[str, Any] = {"cases": {}, "checks": {}}
    with httpx.Client(base_url=args.url, headers={"Authorization": f"Bearer {args.token}"}, timeout=120) as client:
        sample_id = client.post("/v1/samples", json=sample.model_dump(mode="json")).raise_for_status().json()["sample_id"]
        for name, (code, expected) in cases.items():
            started = time.monotonic()
            wait = 0 if name == "loop" else 90
            response = client.post(
                "/v1/verify",
                json={"candidate": f"{code}\n{markers[name]}\n", "sample_id": sample_id, "options": options, "wait": wait},
            )
            response.raise_for_status()
            answer = _final(client, response.json(), started + args.loop_deadline)
            report["cases"][name] = {
                "job_id": answer["job_id"], "state": answer["state"], "kind": _kind(answer), "expected": expected,
                "reward": answer.get("reward"), "seconds": round(time.monotonic() - started, 2),
                "marker": markers[name], "ok": _kind(answer) == expected,
            }
        report["cases"]["gold"]["ok"] &= report["cases"]["gold"]["reward"] == 1.0

        ready = client.get("/readyz")
        public = httpx.get(f"{args.url}/readyz", timeout=10)
        workers = ready.json()["workers"]
        report["checks"]["readyz"] = {
            "status": ready.status_code, "workers": len(workers),
            "sandboxes": sorted({w["sandbox"]["mechanism"] for w in workers}),
            "api_own_sandbox": ready.json()["sandbox"],
            "ok": ready.status_code == 200 and len(workers) >= 2 and all(w["sandbox"]["available"] for w in workers),
        }
        names = [w["name"] for w in workers]
        report["checks"]["readyz_without_token"] = {
            "status": public.status_code,
            "ok": public.status_code == 200 and not any(n in public.text for n in names),
        }
        metrics = httpx.get(f"{args.url}/metrics", timeout=10).text
        wanted = ("verifier_verdicts_total", "verifier_workers_alive", "verifier_job_latency_seconds_bucket")
        report["checks"]["metrics"] = {
            "ok": all(w in metrics for w in wanted) and not any(n in metrics for n in names),
            "verdict_lines": [line for line in metrics.splitlines() if line.startswith("verifier_verdicts_total{")],
        }
    report["ok"] = all(c["ok"] for c in report["cases"].values()) and all(c["ok"] for c in report["checks"].values())
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
