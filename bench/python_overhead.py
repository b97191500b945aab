"""Python overhead of abdyn's module, measured side by side with the C++ benchmarks in one run.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [--build build]

Runs build/bench/bench_dynamics (ABA on the 7-DoF arm and the floating humanoid) and build/bench/bench_batch
(the C++ loop and forwardDynamicsBatch over its states), then times from Python abdyn.forward_dynamics
on the same models and states and abdyn.forward_dynamics_batch with 1 and 2 threads. Per-call times are
the best of several repeats of timeit (the least-disturbed estimate on a shared machine), as Google
Benchmark's are its mean over an adaptive run; docs/performance.md records the figures.
"""

import argparse
import json
import pathlib
import subprocess
import timeit

import numpy as np

import abdyn

SOURCE = pathlib.Path(__file__).resolve().parents[1]
MODELS = {
    "iiwa": (SOURCE / "bench" / "models" / "kuka_iiwa.urdf", dict(accept_invalid_inertia=True)),
    "humanoid_floating": (SOURCE / "models" / "humanoid.urdf", dict(floating_base=True)),
}


def google_benchmark(binary, pattern):
    out = subprocess.run([str(binary), f"--benchmark_filter={pattern}", "--benchmark_format=json",
                          "--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true"],
                         check=True, capture_output=True, text=True).stdout
    rows = json.loads(out)["benchmarks"]
    # run_name carries "/real_time" for benchmarks timed in wall-clock time (bench_batch).
    return {r["run_name"].replace("/real_time", ""): r for r in rows if r.get("aggregate_name") == "median"}


def seconds(row):
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[row["time_unit"]]
    return row["real_time"] * scale


def best_per_call(statement, number, repeat=7):
    return min(timeit.repeat(statement, number=number, repeat=repeat)) / number


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=str(SOURCE / "build"))
    args = parser.parse_args()
    bench = pathlib.Path(args.build) / "bench"
    cxx = google_benchmark(bench / "bench_dynamics", "^ABA/(iiwa|humanoid_floating)$")
    cxx_batch = google_benchmark(bench / "bench_batch", "^(Single|Threads)/ABA/(iiwa|humanoid_floating)")

    print(f"{'model':20s} {'C++ ABA':>10s} {'Python':>10s} {'added':>10s}")
    for label, (path, options) in MODELS.items():
        model = abdyn.load_urdf(path, **options)
        data = abdyn.Data(model)
        rng = np.random.default_rng(0)
        q = abdyn.random_configuration(model, 0)
        v, tau = rng.standard_normal(model.nv), rng.standard_normal(model.nv)
        python = best_per_call(lambda: abdyn.forward_dynamics(model, data, q, v, tau), 20000)
        native = seconds(cxx[f"ABA/{label}"])
        print(f"{label:20s} {native * 1e6:8.3f} us {python * 1e6:8.3f} us {(python - native) * 1e6:8.3f} us")

    print(f"\n{'model':20s} {'C++ loop':>12s} {'C++ batch 1':>12s} {'C++ batch 2':>12s} {'Py batch 1':>12s} "
          f"{'Py batch 2':>12s}   (states per second; C++ from bench_batch, Python 1e5 states)")
    for label, (path, options) in MODELS.items():
        model = abdyn.load_urdf(path, **options)
        n = 100000
        rng = np.random.default_rng(1)
        Q = np.array([abdyn.random_configuration(model, k) for k in range(n)])
        V, TAU = rng.standard_normal((n, model.nv)), rng.standard_normal((n, model.nv))
        rates = [cxx_batch[run]["items_per_second"] for run in
                 (f"Single/ABA/{label}", f"Threads/ABA/{label}/simd:0/threads:1", f"Threads/ABA/{label}/simd:0/threads:2")]
        for threads in (1, 2):
            rates.append(n / best_per_call(lambda: abdyn.forward_dynamics_batch(model, Q, V, TAU, threads), 1, 5))
        print(f"{label:20s} " + " ".join(f"{r / 1e6:9.3f} M/s" for r in rates) +
              f"   Py 2/1 = {rates[4] / rates[3]:.2f}, Py 1 / C++ loop = {rates[3] / rates[0]:.2f}")


if __name__ == "__main__":
    main()
