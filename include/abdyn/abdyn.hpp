#pragma once
/// @file
/// abdyn: the whole public API, layer by layer (each layer uses only the ones above it).

// Errors, the library logger and checked mode: what every layer reports through.
#include "abdyn/checked_mode.hpp"
#include "abdyn/error.hpp"
#include "abdyn/logging.hpp"

// Spatial algebra: 6D motions and forces (angular first), Pluecker transforms in both conventions
// (Plx: Featherstone / RBDL; Plxb: Brax / TDS), inertias, rotations.
#include "abdyn/spatial/articulated_body_inertia.hpp"
#include "abdyn/spatial/cross.hpp"
#include "abdyn/spatial/euler.hpp"
#include "abdyn/spatial/force.hpp"
#include "abdyn/spatial/motion.hpp"
#include "abdyn/spatial/plx.hpp"
#include "abdyn/spatial/plxb.hpp"
#include "abdyn/spatial/quaternion.hpp"
#include "abdyn/spatial/rigid_body_inertia.hpp"
#include "abdyn/spatial/rotation.hpp"
#include "abdyn/spatial/rotation_integration.hpp"
#include "abdyn/spatial/se3.hpp"
#include "abdyn/spatial/types.hpp"

// The model (immutable description) and Data (per-call workspace), and the configuration space.
#include "abdyn/model/configuration.hpp"
#include "abdyn/model/configuration_derivatives.hpp"
#include "abdyn/model/convex_hull.hpp"
#include "abdyn/model/data.hpp"
#include "abdyn/model/frame.hpp"
#include "abdyn/model/geometry.hpp"
#include "abdyn/model/joint.hpp"
#include "abdyn/model/mesh_shape.hpp"
#include "abdyn/model/model.hpp"
#include "abdyn/model/model_builder.hpp"
#include "abdyn/model/random_model.hpp"
#include "abdyn/model/reduced_model.hpp"
#include "abdyn/model/triangle_mesh.hpp"

// Reading models: URDF, the loop-joint extensions, MJCF (MuJoCo), the files a description names and meshes.
#include "abdyn/io/mesh.hpp"
#include "abdyn/io/mjcf.hpp"
#include "abdyn/io/resource_resolver.hpp"
#include "abdyn/io/srdf.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/io/urdf_export.hpp"
#include "abdyn/io/urdf_loops.hpp"

// Algorithms on a tree: free functions f(model, data, ...).
#include "abdyn/algorithms/aba.hpp"
#include "abdyn/algorithms/batch.hpp"
#include "abdyn/algorithms/center_of_mass.hpp"
#include "abdyn/algorithms/crba.hpp"
#include "abdyn/algorithms/derivatives.hpp"
#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/algorithms/forward_dynamics_crba.hpp"
#include "abdyn/algorithms/inverse_mass_matrix.hpp"
#include "abdyn/algorithms/jacobian.hpp"
#include "abdyn/algorithms/kinematics.hpp"
#include "abdyn/algorithms/rnea.hpp"

// Constraints: loop closures (Lagrange multipliers) and one-dimensional rows (joints, limits, motors,
// contacts) with their responses and the PGS solver.
#include "abdyn/constraints/broad_phase.hpp"
#include "abdyn/constraints/constrained_derivatives.hpp"
#include "abdyn/constraints/constrained_dynamics.hpp"
#include "abdyn/constraints/convex_distance.hpp"
#include "abdyn/constraints/mesh_distance.hpp"
#include "abdyn/constraints/loop_closure.hpp"
#include "abdyn/constraints/reduced_constraints.hpp"
#include "abdyn/constraints/row_contacts.hpp"
#include "abdyn/constraints/row_joints.hpp"
#include "abdyn/constraints/row_pgs.hpp"
#include "abdyn/constraints/row_response.hpp"
#include "abdyn/constraints/row_tree_joints.hpp"
#include "abdyn/constraints/rows.hpp"

// Time: integrators and their Jacobians, the Simulator, rollouts on many threads.
#include "abdyn/integrators/adaptive_runge_kutta4.hpp"
#include "abdyn/integrators/constrained_implicit_damping_euler.hpp"
#include "abdyn/integrators/constrained_runge_kutta4.hpp"
#include "abdyn/integrators/constrained_step_settings.hpp"
#include "abdyn/integrators/constrained_step_derivatives.hpp"
#include "abdyn/integrators/euler_integrator.hpp"
#include "abdyn/integrators/explicit_euler.hpp"
#include "abdyn/integrators/implicit_damping_euler.hpp"
#include "abdyn/integrators/implicit_midpoint.hpp"
#include "abdyn/integrators/joint_force.hpp"
#include "abdyn/integrators/rollout.hpp"
#include "abdyn/integrators/rollout_batch.hpp"
#include "abdyn/integrators/runge_kutta4.hpp"
#include "abdyn/integrators/semi_implicit_euler.hpp"
#include "abdyn/integrators/simulator.hpp"
#include "abdyn/integrators/simulator_step_derivatives.hpp"
#include "abdyn/integrators/step_derivatives.hpp"
#include "abdyn/integrators/substeps.hpp"

// Other libraries' layouts and conventions: RBDL, Brax, TDS, Pinocchio, MuJoCo.
#include "abdyn/conventions/brax.hpp"
#include "abdyn/conventions/mujoco.hpp"
#include "abdyn/conventions/pinocchio.hpp"
#include "abdyn/conventions/rbdl.hpp"
#include "abdyn/conventions/state_layout.hpp"
#include "abdyn/conventions/tds.hpp"

/// Articulated-body dynamics on Featherstone's spatial vector algebra: the spatial types, Model and Data,
/// the loaders, the algorithms, constraints, integrators and the Simulator. Spatial vectors are
/// [angular; linear]; a Plx named X_B_A maps A coordinates to B coordinates.
namespace abdyn {}
