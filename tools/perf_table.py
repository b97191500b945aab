#!/usr/bin/env python3
"""Markdown table of bench_peers results.

Reads the JSON file written by bench_peers (--benchmark_out=FILE --benchmark_out_format=json, run with
--benchmark_repetitions=N --benchmark_report_aggregates_only=true) and prints, per model and algorithm,
abdyn's median time, each peer's median time, and abdyn's time divided by the fastest peer's. Below
the table it lists the agreement-check entries that are not clean (a peer that disagrees with abdyn
or could not run the model).

    python3 tools/perf_table.py peers.json [--real-time]
"""

import argparse
import json
import sys

ALGORITHMS = ["ABA", "RNEA", "CRBA"]
PEER_ORDER = ["pinocchio", "pinocchio_world", "rbdl", "mujoco"]


def to_ns(value, unit):
    return value * {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]


def fmt(ns):
    if ns is None:
        return "-"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e4:
        return f"{ns / 1e3:.1f} us"
    return f"{ns:.0f} ns"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", help="Google Benchmark JSON output of bench_peers")
    parser.add_argument("--real-time", action="store_true", help="use wall-clock time instead of CPU time")
    args = parser.parse_args()

    with open(args.json, encoding="utf-8") as f:
        data = json.load(f)

    field = "real_time" if args.real_time else "cpu_time"
    medians = {}  # (algorithm, model) -> {library: ns}
    for b in data.get("benchmarks", []):
        if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
            continue
        parts = b["run_name"].split("/")
        if len(parts) != 3:
            continue
        algorithm, model, library = parts
        medians.setdefault((algorithm, model), {})[library] = to_ns(b[field], b["time_unit"])
    if not medians:
        sys.exit(f"{args.json}: no median aggregates (run with --benchmark_repetitions=N)")

    present = {lib for row in medians.values() for lib in row}
    peers = [p for p in PEER_ORDER if p in present] + sorted(present - set(PEER_ORDER) - {"abdyn"})
    order = {a: i for i, a in enumerate(ALGORITHMS)}
    keys = sorted(medians, key=lambda k: (order.get(k[0], len(order)), k[0], k[1]))

    header = ["algorithm", "model", "abdyn"] + peers + ["abdyn / fastest peer"]
    print(f"Median {'wall-clock' if args.real_time else 'CPU'} time per call.\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---", "---"] + ["---:"] * (len(header) - 2)) + "|")
    for algorithm, model in keys:
        row = medians[(algorithm, model)]
        ours = row.get("abdyn")
        timed = [(row[p], p) for p in peers if p in row]
        ratio = "-"
        if ours is not None and timed:
            best, name = min(timed)
            ratio = f"{ours / best:.2f} ({name})"
        cells = [algorithm, model, fmt(ours)] + [fmt(row.get(p)) for p in peers] + [ratio]
        print("| " + " | ".join(cells) + " |")

    context = data.get("context", {})
    issues = [(k[len("agreement "):], v) for k, v in sorted(context.items())
              if k.startswith("agreement ") and ("WARNING" in v or v.startswith("not run"))]
    checked = sum(1 for k in context if k.startswith("agreement "))
    print(f"\nAgreement with abdyn on state 0 (tolerance 1e-6 relative): {checked} model/library pairs checked, "
          f"{len(issues)} not clean.")
    for what, value in issues:
        print(f"- {what}: {value}")


if __name__ == "__main__":
    main()
