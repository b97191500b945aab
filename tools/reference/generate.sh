#!/usr/bin/env bash
# Writes tests/reference/bundled/{rbdl,pinocchio}/<model>[_floating].json with the generators built in
# BUILD (default ./build); a library whose generator was not built is skipped. Never run by CI.
#   usage: tools/reference/generate.sh [BUILD]   (LD_LIBRARY_PATH must reach the libraries)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$here/build}"
fixed=(pendulum double_pendulum cartpole iiwa7 quadruped humanoid four_bar slider_crank five_bar)
# 3 states for the 30- and 36-coordinate humanoid, 5 elsewhere: the files stay a few hundred KB in all.
states() { [[ $1 == humanoid ]] && echo 3 || echo 5; }
floating=(iiwa7 quadruped humanoid)
for peer in rbdl pinocchio; do
  exe="$build/reference_$peer"
  if [[ ! -x "$exe" ]]; then echo "skipping $peer: $exe not built"; continue; fi
  out="$root/tests/reference/bundled/$peer"
  mkdir -p "$out"
  for m in "${fixed[@]}"; do "$exe" "$root/models/$m.urdf" "$m" fixed "$out/$m.json" "$(states "$m")" 7; done
  for m in "${floating[@]}"; do "$exe" "$root/models/$m.urdf" "$m" floating "$out/${m}_floating.json" "$(states "$m")" 7; done
done
