// constrainedImpact (constrained_dynamics.hpp): the velocity jump that makes the constraints' velocities
// -e times what they were, by the three solvers of constrained_solvers.hpp.

#include "abdyn/constraints/constrained_dynamics.hpp"

#include <string>

#include "abdyn/error.hpp"
#include "algorithms/passes.hpp"
#include "constraints/constrained_solvers.hpp"
#include "constraints/passes.hpp"
#include "internal/checks.hpp"

namespace abdyn {

const Eigen::VectorXd& constrainedImpact(const Model& model, Data& data, ConstrainedDynamicsData& cd,
                                         const ConstraintSet& constraints, const Eigen::VectorXd& q,
                                         const Eigen::VectorXd& v_minus, double restitution,
                                         const ConstrainedDynamicsSettings& settings) {
  const char* fn = "abdyn::constrainedImpact";
  internal::checkConstrainedCall(model, data, cd, constraints, q, &settings, fn);
  internal::checkVector(v_minus, model.nv(), fn, "v_minus");
  if (!(restitution >= 0.0 && restitution <= 1.0)) {
    throw InvalidArgument(std::string(fn) + ": restitution = " + internal::numberText(restitution) + " must lie in [0, 1]");
  }
  const Eigen::MatrixXd& G = cd.kinematics.G;
  const int nv = model.nv();
  const ConstrainedSolver solver = internal::chooseSolver(cd, settings.solver);
  if (solver == ConstrainedSolver::Factorized) {
    internal::jacobianAndFactor(model, data, cd, constraints, q, settings.dynamics);
    internal::factorizedSchur(model, data, cd, G, settings.cfm);
    internal::work(cd).eta.noalias() = G * v_minus;
    internal::work(cd).eta *= -(1.0 + restitution);
    internal::solveMultipliers(model, cd, settings);
    internal::work(cd).column.setZero();
    internal::addYTimesLambda(cd, internal::work(cd).column);
    internal::finishSolve(model, data, internal::work(cd).column);
    cd.v_plus = v_minus + internal::work(cd).column;
  } else if (solver == ConstrainedSolver::Articulated) {
    internal::constraintsAt(model, data, cd, constraints, q, true);
    // ABA at zero velocity and torque only for its articulated-body inertias at q.
    internal::forwardDynamicsUnchecked(model, data, q, cd.kinematics.zero_nv, cd.kinematics.zero_nv, settings.dynamics,
                                       "abdyn::constrainedImpact");
    internal::articulatedResponse(model, data, cd, G);
    internal::work(cd).eta.noalias() = G * v_minus;
    internal::work(cd).eta *= -(1.0 + restitution);
    internal::articulatedGamma(cd, G, settings.cfm);
    internal::solveMultipliers(model, cd, settings);
    cd.v_plus = v_minus;
    cd.v_plus.noalias() += internal::work(cd).Minv_Gt * cd.lambda;
  } else {
    // [M  -G^T] [v+    ]   [M v-    ]
    // [G  cfm 1] [lambda] = [-e G v-]
    internal::constraintsAt(model, data, cd, constraints, q, true);
    internal::assembleKkt(model, data, cd, G, settings);
    internal::work(cd).kkt_rhs.head(nv).noalias() = internal::work(cd).kkt.topLeftCorner(nv, nv) * v_minus;
    internal::work(cd).kkt_rhs.tail(G.rows()).noalias() = G * v_minus;
    internal::work(cd).kkt_rhs.tail(G.rows()) *= -restitution;
    internal::solveKkt(model, cd, settings);
    cd.v_plus = internal::work(cd).kkt_solution.head(nv);
    cd.lambda = internal::work(cd).kkt_solution.tail(G.rows());
  }
  internal::closureWrenches(constraints, cd);
  return cd.v_plus;
}

}  // namespace abdyn
