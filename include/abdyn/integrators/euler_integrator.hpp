#pragma once
/// @file
/// The first-order Euler steps on the configuration manifold, one class template with the scheme as its
/// parameter; ExplicitEuler, SemiImplicitEuler and ImplicitDampingEuler (each in its own header, with its
/// properties) name its three instances. With (+) the exponential map of configuration.hpp:
///   Explicit:         q[t+h] = q[t] (+) h v[t],    v[t+h] = v[t] + h a(q[t], v[t])
///   SemiImplicit:     v[t+h] = v[t] + h a(q[t], v[t]),   q[t+h] = q[t] (+) h v[t+h]
///   ImplicitDamping:  v[t+h] = v[t] + h (M + h D)^-1 (f - D v[t]),   q[t+h] = q[t] (+) h v[t+h]

#include "abdyn/algorithms/dynamics_options.hpp"
#include "abdyn/integrators/joint_force.hpp"
#include "abdyn/model/data.hpp"

namespace abdyn {

/// Which velocity moves q (the start's or the end's), and whether the joint damping is taken at the end of
/// the step (implicit_damping_euler.hpp).
enum class EulerScheme {
  Explicit,         ///< q moved by the start's v, then v by h a (ExplicitEuler)
  SemiImplicit,     ///< v moved by h a first, then q by the new v (SemiImplicitEuler)
  ImplicitDamping,  ///< as SemiImplicit with M + h D in place of M (ImplicitDampingEuler)
};

/// One Euler step of the given scheme; see ExplicitEuler, SemiImplicitEuler and ImplicitDampingEuler.
template <EulerScheme Scheme>
class EulerIntegrator {
 public:
  /// Allocates the workspace for this model; step() allocates nothing.
  explicit EulerIntegrator(const Model& model);

  /// Advances (q, v) by h under constant joint forces tau. For ImplicitDamping,
  /// options.implicit_damping_step is set to h (with options.damping off there is no damping to take
  /// implicitly and the step is semi-implicit Euler's).
  void step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau, double h,
            const DynamicsOptions& options = {});
  /// Advances (q, v) by h under joint forces evaluated at the start of the step.
  void step(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v, const JointForceFunction& tau,
            double h, const DynamicsOptions& options = {});

 private:
  void stepChecked(const Model& model, Data& data, Eigen::VectorXd& q, Eigen::VectorXd& v, const Eigen::VectorXd& tau,
                   double h, const DynamicsOptions& options);
  Eigen::VectorXd tau_;
};

extern template class EulerIntegrator<EulerScheme::Explicit>;
extern template class EulerIntegrator<EulerScheme::SemiImplicit>;
extern template class EulerIntegrator<EulerScheme::ImplicitDamping>;

}  // namespace abdyn
