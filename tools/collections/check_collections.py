#!/usr/bin/env python3
"""Loads and simulates every URDF of public robot-description collections: the table of
docs/loading-robots.md ("Public collections").

Each COLLECTION is a folder, or a git directory (bare or not) whose HEAD is read with `git archive`.
The *.urdf files are copied to OUT/<collection name>/ (bullet3's thousand random shapes are left out);
a file identical byte for byte to one already counted (in an earlier collection, or earlier in the same
one: datasets that gather other repositories' files hold copies) is counted once, the first time. Then,
for each file and base (fixed, floating):
  - `abdyn check FILE` says loaded, kinematic (loaded without dynamics), n/a (a floating base the file
    was not written for) or refused;
  - every model with dynamics is simulated one second with the program's defaults
    (`abdyn simulate FILE [--floating] --duration 1`, 120 s time-out);
  - urdfdom's parser (tools/collections/urdfdom_load.cpp, built here with g++ when liburdfdom-dev is
    installed) says whether Pinocchio, which builds its models from urdfdom's output, would load it.
Prints the per-collection table, the refusal reasons and the simulation outcomes as Markdown; the
per-case lines go to OUT/cases.tsv.

--ground: the mesh column instead. Each collection's whole HEAD is extracted into OUT/ground/<repository
name>/ (so that its meshes are found, package://NAME/... through a folder named NAME above the file), and
every distinct file that loads with a floating base and has a <collision> mesh is dropped onto the ground
from 2 cm (`abdyn simulate FILE --floating --ground 0 --height 0.02 --duration 1`, 300 s time-out). The
outcome is the program's own (diverged, failed, time-out), else the lowest collision point's height after
1 s (the summary's "lowest point"): on the ground (at most 1 mm into it), sinking (1 mm to 1 cm), deep
(1 cm to 10 cm) or fell through (below -10 cm: a body falling freely is 4.9 m down after 1 s); a model none
of whose collision meshes is found has nothing to stand on ("no mesh found"). Files with meshes the program
could not find are counted (its warnings). A run that diverged is tried again with --limits. Per-case lines go to OUT/ground.tsv.

    python3 tools/collections/check_collections.py --abdyn build/abdyn --out /tmp/collections \
        /path/to/example-robot-data /path/to/unitree_ros ...
"""

import argparse
import collections
import concurrent.futures
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree


def collection_name(path):
    path = os.path.abspath(path.rstrip("/"))
    parts = [p for p in path.split(os.sep) if p not in ("repo", ".git", "")]
    name = parts[-1]
    return name.replace("+", "/")


def copy_urdfs(source, dest):
    """Copies the *.urdf files of a folder or a git directory's HEAD into dest; returns their paths."""
    os.makedirs(dest, exist_ok=True)
    git_dir = next((c for c in (source, os.path.join(source, ".git")) if os.path.isfile(os.path.join(c, "HEAD"))), None)
    if git_dir is not None:
        listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", "HEAD"],
                                 check=True, capture_output=True, text=True).stdout.split("\n")
        names = [n for n in listing if n.lower().endswith(".urdf") and "random_urdfs" not in n]
        for n in names:
            blob = subprocess.run(["git", "--git-dir", git_dir, "show", "HEAD:" + n], capture_output=True).stdout
            target = os.path.join(dest, n)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(blob)
    else:
        for root, _, files in os.walk(source):
            for f in files:
                if f.lower().endswith(".urdf") and "random_urdfs" not in root:
                    rel = os.path.relpath(os.path.join(root, f), source)
                    os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
                    shutil.copy(os.path.join(root, f), os.path.join(dest, rel))
    found = []
    for root, _, files in os.walk(dest):
        found += [os.path.join(root, f) for f in files if f.lower().endswith(".urdf")]
    return sorted(found)


def check_lines(abdyn, files):
    """abdyn check over the files: {(file, base): (outcome, text)}."""
    out = subprocess.run([abdyn, "check"] + files, capture_output=True, text=True).stdout
    result = {}
    for line in out.split("\n"):
        m = re.match(r"(fixed|floating)\s+(loaded|kinematic|n/a|refused)\s+(.*?): (.*)$", line)
        if m:
            result[(m.group(3), m.group(1))] = (m.group(2), m.group(4))
    return result


def simulate(abdyn, path, floating):
    args = [abdyn, "simulate", path, "--duration", "1"] + (["--floating"] if floating else [])
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "time-out", ""
    if r.returncode != 0:
        return ("diverged" if "diverged" in r.stderr else "failed"), r.stderr.strip().split("\n")[-1]
    energy = next((l for l in r.stdout.split("\n") if l.startswith("energy:")), "")
    if "conserved" in energy:
        return "conserved", energy
    if "dissipated" in energy or "joint damping took" in energy:
        return "dissipated", energy
    return "step error", energy


def extract_tree(source, dest):
    """The whole HEAD of a git directory (or a folder's files) under dest; returns its *.urdf files and the
    number of files the git directory lists but does not hold (a partial clone leaves large files out)."""
    git_dir = next((c for c in (source, os.path.join(source, ".git")) if os.path.isfile(os.path.join(c, "HEAD"))), None)
    absent = 0
    if git_dir is None:
        shutil.copytree(source, dest, dirs_exist_ok=True)
    else:
        listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "HEAD"], check=True,
                                 capture_output=True, text=True).stdout.strip().split("\n")
        entries = [(line.split()[2], line.split("\t", 1)[1]) for line in listing if line.split()[1:2] == ["blob"]]
        batch = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch"], check=True, capture_output=True,
                               input="".join(sha + "\n" for sha, _ in entries).encode()).stdout
        at = 0
        for sha, name in entries:
            end = batch.index(b"\n", at)
            header = batch[at:end].split()
            at = end + 1
            if header[1] == b"missing":
                absent += 1
                continue
            size = int(header[2])
            target = os.path.join(dest, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(batch[at:at + size])
            at += size + 1
    found = []
    for root, _, files in os.walk(dest):
        if "random_urdfs" not in root:
            found += [os.path.join(root, f) for f in files if f.lower().endswith(".urdf")]
    return sorted(found), absent


def has_collision_mesh(path):
    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError):
        return False
    return any(c.find("geometry/mesh") is not None for c in root.iter("collision"))


def ground_run(abdyn, path, extra=()):
    """Drops the floating model on the ground: (outcome, lowest point or None, missing meshes, detail)."""
    args = [abdyn, "simulate", path, "--floating", "--ground", "0", "--height", "0.02", "--duration", "1"] + list(extra)
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "time-out", None, 0, ""
    missing = sum(1 for line in r.stderr.split("\n")
                  if "not found (searched" in line or "cannot be found" in line or "keeps no mesh" in line)
    if r.returncode != 0:
        return ("diverged" if "diverged" in r.stderr else "failed"), None, missing, r.stderr.strip().split("\n")[-1]
    m = re.search(r"^lowest point:\s+(\S+) m above the ground at the end \((.*)\)$", r.stdout, flags=re.MULTILINE)
    if not m:
        return "failed", None, missing, "no lowest point in the summary"
    low = float(m.group(1))
    outcome = ("no mesh found" if "has no collision geometry" in m.group(2) else "on the ground" if low >= -1e-3 else "sinking" if low >= -1e-2 else "deep" if low >= -0.1
               else "fell through")
    return outcome, low, missing, m.group(2)


def ground_column(abdyn, sources, out, jobs):
    """The mesh column (see --ground above): prints its table, writes OUT/ground.tsv."""
    seen = set()
    kinds = ["on the ground", "sinking", "deep", "fell through", "diverged", "failed", "time-out", "no mesh found"]
    rows = []
    lines = open(os.path.join(out, "ground.tsv"), "w")
    for source in sources:
        name = collection_name(source)
        files = []
        urdfs, absent = extract_tree(source, os.path.join(out, "ground", name.split("/")[-1]))
        for f in urdfs:
            with open(f, "rb") as text:
                digest = hashlib.sha256(text.read()).hexdigest()
            if digest not in seen:
                seen.add(digest)
                files.append(f)
        verdict = check_lines(abdyn, files) if files else {}
        meshed = [f for f in files if verdict.get((f, "floating"), ("",))[0] == "loaded" and has_collision_mesh(f)]
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(lambda f: ground_run(abdyn, f), meshed))
        # A run that diverged is tried again with the joint limits enforced (--limits): a robot collapsing at
        # zero torque drives its joints far past their ranges, where light links whip.
        retried = {f: ground_run(abdyn, f, ["--limits"]) for f, r in zip(meshed, results) if r[0] == "diverged"}
        c = collections.Counter()
        lows = []
        for f, (outcome, low, missing, detail) in zip(meshed, results):
            c[outcome] += 1
            c["missing"] += missing > 0
            if f in retried:
                c["limits " + retried[f][0]] += 1
                detail += " | with --limits: " + retried[f][0] + (f" ({retried[f][1]:.6f} m)" if retried[f][1] is not None else "")
            if low is not None and outcome != "no mesh found":
                lows.append(low)
            lines.write("\t".join([name, f, outcome, "" if low is None else repr(low), str(missing), detail]) + "\n")
        rows.append((name, len(files), len(meshed), c, min(lows) if lows else None, absent))
    lines.close()
    print("| collection | distinct files | floating, with collision meshes | " + " | ".join(kinds) +
          " | diverged, on the ground with --limits | with meshes not found | deepest lowest point (m) |"
          " files absent from the snapshot |")
    print("| --- | ---: | ---: | " + " | ".join("---:" for _ in kinds) + " | ---: | ---: | ---: | ---: |")
    for name, n, runs, c, deepest, absent in rows:
        print(f"| {name} | {n} | {runs} | " + " | ".join(str(c[k]) for k in kinds) +
              f" | {c['limits on the ground']} | {c['missing']} | {'' if deepest is None else f'{deepest:.4f}'} | {absent} |")
    return 0


def urdfdom_verdicts(files, workdir):
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "urdfdom_load.cpp")
    binary = os.path.join(workdir, "urdfdom_load")
    built = subprocess.run(["g++", "-O1", "-std=c++17", source, "-lurdfdom_model", "-o", binary],
                           capture_output=True, text=True)
    if built.returncode != 0:
        return None
    verdicts = {}
    for k in range(0, len(files), 200):
        out = subprocess.run([binary] + files[k:k + 200], capture_output=True, text=True).stdout
        for line in out.split("\n"):
            if line.startswith("loaded "):
                verdicts[line[len("loaded "):]] = True
            elif line.startswith("refused "):
                verdicts[line[len("refused "):].split(": ")[0]] = False
    return verdicts


def reason_class(text):
    rules = [
        ("xacro source", "a xacro source (not expanded)"),
        ("by XInclude", "an XInclude source (not expanded)"),
        ("describes a deformable body", "no <link> element: a deformable body (PyBullet's <deformable>)"),
        ("<robot> element is empty", "no <link> element: an empty <robot>"),
        ("<robot> holds only", "no <link> element: only other elements"),
        ("no <link> element", "no <link> element"),
        ("only as a parent", "a fragment: its root link is defined in another file"),
        ("which does not exist", "a joint names a link that does not exist"),
        ("defined more than once", "a link or joint defined twice"),
        ("<inertial>", "an <inertial> that cannot be read"),
        ("invalid inertia", "a body with an indefinite inertia"),
        ("malformed XML", "malformed XML"),
        ("no <robot>", "no <robot> element"),
        ("<robot> has no name", "<robot> without a name"),
        ("unknown type", "an unknown joint type"),
        ("negative mass", "a negative mass"),
        ("loop joint", "a loop joint that cannot be read"),
    ]
    for key, label in rules:
        if key in text:
            return label
    return "other: " + text[:80]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("collections", nargs="+")
    parser.add_argument("--abdyn", required=True, help="the abdyn program")
    parser.add_argument("--out", required=True, help="folder for the copied files and cases.tsv")
    parser.add_argument("--no-simulate", action="store_true")
    parser.add_argument("--ground", action="store_true",
                        help="the mesh column: drop every floating file with collision meshes on the ground (above)")
    parser.add_argument("--jobs", type=int, default=2, help="--ground: simulations run at once")
    args = parser.parse_args()
    if args.ground:
        os.makedirs(args.out, exist_ok=True)
        return ground_column(args.abdyn, args.collections, args.out, args.jobs)

    all_files = []
    per_collection = collections.OrderedDict()
    copies = collections.Counter()
    seen = set()
    for source in args.collections:
        name = collection_name(source)
        files = []
        for f in copy_urdfs(source, os.path.join(args.out, name.replace("/", "+"))):
            with open(f, "rb") as text:
                digest = hashlib.sha256(text.read()).hexdigest()
            if digest in seen:
                copies[name] += 1
            else:
                seen.add(digest)
                files.append(f)
        per_collection[name] = files
        all_files += files
    with tempfile.TemporaryDirectory() as tmp:
        urdfdom = urdfdom_verdicts(all_files, tmp)

    totals = collections.Counter()
    reasons = collections.Counter()
    sims = collections.Counter()
    table = []
    cases = open(os.path.join(args.out, "cases.tsv"), "w")
    for name, files in per_collection.items():
        if not files:
            if copies[name]:
                table.append((name, 0, collections.Counter(copies=copies[name])))
                totals["copies"] += copies[name]
            continue
        verdict = check_lines(args.abdyn, files)
        c = collections.Counter()
        for f in files:
            for base in ("fixed", "floating"):
                outcome, text = verdict.get((f, base), ("refused", "no line from abdyn check"))
                c[base + " " + outcome] += 1
                if outcome != "n/a":
                    c["cases"] += 1
                    if outcome in ("loaded", "kinematic"):
                        c["model"] += 1
                    if urdfdom is not None and urdfdom.get(f, False):
                        c["urdfdom"] += 1
                if outcome == "refused":
                    reasons[(reason_class(text), base)] += 1
                sim = ""
                if outcome == "loaded" and not args.no_simulate:
                    sim, detail = simulate(args.abdyn, f, base == "floating")
                    sims[(base, sim)] += 1
                cases.write("\t".join([name, f, base, outcome, sim, text]) + "\n")
        c["copies"] = copies[name]
        totals.update(c)
        table.append((name, len(files), c))
    cases.close()

    print("| collection | files | copies skipped | cases | model (loaded / kinematic) | urdfdom (Pinocchio's parser) | "
          "n/a floating | refused |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, n, c in table + [("all", sum(len(f) for f in per_collection.values()), totals)]:
        model = f"{c['model']} ({c['fixed loaded'] + c['floating loaded']} / {c['fixed kinematic'] + c['floating kinematic']})"
        pin = str(c["urdfdom"]) if urdfdom is not None else "-"
        print(f"| {name} | {n} | {c['copies']} | {c['cases']} | {model} | {pin} | {c['floating n/a']} | "
              f"{c['fixed refused'] + c['floating refused']} |")
    if totals["cases"]:
        print(f"\nmodel by default: {totals['model']} of {totals['cases']} cases "
              f"({100.0 * totals['model'] / totals['cases']:.1f}%)" +
              (f"; urdfdom parses {totals['urdfdom']} ({100.0 * totals['urdfdom'] / totals['cases']:.1f}%)"
               if urdfdom is not None else ""))
    print("\n| refusal | fixed | floating |\n| --- | ---: | ---: |")
    for label in sorted({k[0] for k in reasons}, key=lambda l: -(reasons[(l, 'fixed')] + reasons[(l, 'floating')])):
        print(f"| {label} | {reasons[(label, 'fixed')]} | {reasons[(label, 'floating')]} |")
    if sims:
        kinds = ["conserved", "dissipated", "step error", "diverged", "failed", "time-out"]
        print("\n| base | runs | " + " | ".join(kinds) + " |\n| --- | ---: | " + " | ".join("---:" for _ in kinds) + " |")
        for base in ("fixed", "floating"):
            runs = sum(sims[(base, k)] for k in kinds)
            print(f"| {base} | {runs} | " + " | ".join(str(sims[(base, k)]) for k in kinds) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
