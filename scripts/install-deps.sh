#!/usr/bin/env bash
# Installs abdyn's build and test dependencies from Debian 12 packages.
# Does nothing when everything is present; runs `apt-get update` only when something is missing.
#   ./scripts/install-deps.sh            the build, the tests, the benchmarks and CI's fuzzing phase
#   ./scripts/install-deps.sh --program  only what the library and the abdyn program need (README's first command)
#   ./scripts/install-deps.sh --peers    also the Debian packages of the benchmark peers (docs/performance.md)
set -euo pipefail

# The library and the program.
program_packages=(
  build-essential cmake pkg-config
  libeigen3-dev          # linear algebra
  libtinyxml2-dev        # XML of URDF files (abdyn reads URDF itself)
  libspdlog-dev          # library logger
  libhwy-dev             # Highway: the batched kernels' SIMD lanes and run-time dispatch (src/algorithms/pack_kernels.cpp)
  libcli11-dev           # the abdyn program's command line (header-only)
  libqhull-dev           # convex hulls of collision meshes (src/model/convex_hull.cpp, libqhull_r)
)
# Everything else: tests, benchmarks, the Python module, the viewer, fuzzing.
packages=(
  "${program_packages[@]}"
  liburdfdom-dev         # the optional component abdyn::urdfdom (buildModel from urdfdom's model)
  libboost-test-dev      # unit tests
  nlohmann-json3-dev     # tests: reading the reference outputs of other libraries
  libbenchmark-dev       # bench/ only
  libmujoco-dev          # optional cross-check test against MuJoCo
  libfcl-dev             # optional cross-check tests of the narrow phase against FCL (test_convex_distance, test_static_mesh_fcl)
  libassimp-dev          # optional: COLLADA (.dae) meshes (src/io/mesh_dae.cpp; CMake option ABDYN_WITH_ASSIMP)
  clang-14 libclang-rt-14-dev  # CI's fuzzing phase: clang with libFuzzer and the sanitizer runtimes (fuzz/)
  python3-dev python3-numpy python3-pybind11  # the Python module (python/), built for Debian's /usr/bin/python3
  python3-pytest         # the Python module's tests
  python3-matplotlib     # examples/python/ plots
  python3-distributed    # abdyn.distributed (Dask), its tests and examples/python/sweep.py
  chromium               # the viewer's browser test (tests/viewer), headless
  doxygen graphviz       # the reference manual (docs/: target abdyn_docs and its test, docs) and its class graphs
)
# The viewer (viewer/) is built with Node.js and npm; Debian's only when the machine has no node at all.
if ! command -v node > /dev/null 2>&1; then packages+=(nodejs npm); fi
for arg in "$@"; do
  case "$arg" in
    --program) ;;  # handled below
    --peers) packages+=(libbullet-dev libbullet-extras-dev)  # bench_step_peers: Bullet's btMultiBody, double precision
             # Pinocchio 3.7 built from source (tools/reference/README.md) requires these Boost libraries
             packages+=(libboost-filesystem-dev libboost-serialization-dev libboost-system-dev) ;;
    *) echo "install-deps: unknown option '$arg' (known: --program, --peers)" >&2; exit 2 ;;
  esac
done

# --program drops everything but the library's and the program's packages, whatever else was asked.
for arg in "$@"; do
  if [ "$arg" = --program ]; then packages=("${program_packages[@]}"); fi
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
echo "install-deps: installing ${missing[*]}" >&2
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
