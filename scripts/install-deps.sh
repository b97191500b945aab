#!/usr/bin/env bash
# Installs abdyn's build and test dependencies from Debian 12 packages.
# Does nothing when everything is present; runs `apt-get update` only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libeigen3-dev          # linear algebra
  liburdfdom-dev         # URDF parsing (brings tinyxml2 and console_bridge)
  libtinyxml2-dev        # XML for the loop-closure extension elements
  libspdlog-dev          # library logger
  libboost-test-dev      # unit tests
  nlohmann-json3-dev     # tests: reading the reference outputs of other libraries
  libbenchmark-dev       # bench/ only
  libmujoco-dev          # optional cross-check test against MuJoCo
  libqhull-dev           # libmujoco-dev's CMake package names /usr/include/libqhull_r without depending on it
  chromium               # the viewer's browser test (tests/viewer), headless
)
# The viewer (viewer/) is built with Node.js and npm; Debian's only when the machine has no node at all.
if ! command -v node > /dev/null 2>&1; then packages+=(nodejs npm); fi

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
