#pragma once
// The one step that ExplicitEuler and SemiImplicitEuler share; they differ only in which velocity moves q:
//   explicit:       q1 = q (+) h v,    v1 = v + h qdd(q, v),
//   semi-implicit:  v1 = v + h qdd(q, v),  q1 = q (+) h v1.

#include <Eigen/Core>

#include "abdyn/algorithms/aba.hpp"
#include "abdyn/integrators/joint_force.hpp"
#include "abdyn/model/configuration.hpp"
#include "internal/checks.hpp"

namespace abdyn::internal {

enum class EulerVariant { Explicit, SemiImplicit };

/// One step under constant joint forces tau; tau_work is the integrator's nv workspace (its size is the
/// nv the integrator was built for).
inline void eulerStep(EulerVariant variant, const Model& model, Data& data, const Eigen::VectorXd& tau_work,
                      Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau, double h,
                      const DynamicsOptions& options, const char* function) {
  checkIntegratorStep(model, data, tau_work.size(), q, v, function);
  checkTimeStep(h, function);
  const Eigen::VectorXd& a = forwardDynamics(model, data, q, v, tau, options);
  if (variant == EulerVariant::SemiImplicit) v += h * a;
  integrate(model, q, v, h, q);
  if (variant == EulerVariant::Explicit) v += h * a;
}

/// One step under joint forces evaluated at the start of the step, into tau_work.
inline void eulerStep(EulerVariant variant, const Model& model, Data& data, Eigen::VectorXd& tau_work,
                      Eigen::VectorXd& q, Eigen::VectorXd& v, const JointForceFunction& tau, double h,
                      const DynamicsOptions& options, const char* function) {
  checkIntegratorStep(model, data, tau_work.size(), q, v, function);
  tau(q, v, tau_work);
  eulerStep(variant, model, data, tau_work, q, v, tau_work, h, options, function);
}

}  // namespace abdyn::internal
