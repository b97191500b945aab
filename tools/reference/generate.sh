#!/usr/bin/env bash
# Writes tests/reference/bundled/{rbdl,pinocchio}/<model>[_floating].json with the generators built in
# BUILD (default ./build), and tests/reference/patterns/pinocchio/<pattern>[_floating].json for the
# loader's pattern files (tests/models/patterns/) that Pinocchio and abdyn both load with the same
# dynamics; a library whose generator was not built is skipped. Never run by CI.
#   usage: tools/reference/generate.sh [BUILD]   (LD_LIBRARY_PATH must reach the libraries)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$here/build}"
fixed=(pendulum double_pendulum cartpole iiwa7 quadruped humanoid four_bar slider_crank five_bar)
# 3 states for the 30- and 36-coordinate humanoid, 5 elsewhere; Pinocchio's derivatives (five nv x nv
# matrices a state) for the first state of the humanoid and the first 2 elsewhere: the files stay a
# few hundred KB per library.
states() { [[ $1 == humanoid ]] && echo 3 || echo 5; }
derivative_states() { [[ $1 == humanoid ]] && echo 1 || echo 2; }
floating=(iiwa7 quadruped humanoid)
for peer in rbdl pinocchio; do
  exe="$build/reference_$peer"
  if [[ ! -x "$exe" ]]; then echo "skipping $peer: $exe not built"; continue; fi
  out="$root/tests/reference/bundled/$peer"
  mkdir -p "$out"
  for m in "${fixed[@]}"; do
    "$exe" "$root/models/$m.urdf" "$m" fixed "$out/$m.json" "$(states "$m")" 7 "$(derivative_states "$m")"
  done
  for m in "${floating[@]}"; do
    "$exe" "$root/models/$m.urdf" "$m" floating "$out/${m}_floating.json" "$(states "$m")" 7 "$(derivative_states "$m")"
  done
done

# The pattern files that abdyn loads with default options (not indefinite_body and massless_fingers);
# urdfdom logs errors for the nameless materials and the capsule of ignored_elements and
# several_patterns but skips only those elements, as abdyn does. world_root and several_patterns with a
# fixed base only: a floating Pinocchio model puts its free flyer on the massless "world" link, abdyn on
# the link welded to it (the same dynamics in other coordinates). 3 states, all with derivatives, seed 15.
exe="$build/reference_pinocchio"
if [[ -x "$exe" ]]; then
  out="$root/tests/reference/patterns/pinocchio"
  mkdir -p "$out"
  patterns_fixed=(ignored_elements welded_point_mass triangle_violation world_root world_root_free negative_limits rounding_inertia
                  indefinite_welded mimics several_patterns)
  patterns_floating=(welded_point_mass world_root_free)
  for m in "${patterns_fixed[@]}"; do
    "$exe" "$root/tests/models/patterns/$m.urdf" "$m" fixed "$out/$m.json" 3 15
  done
  for m in "${patterns_floating[@]}"; do
    "$exe" "$root/tests/models/patterns/$m.urdf" "$m" floating "$out/${m}_floating.json" 3 15
  done
fi
