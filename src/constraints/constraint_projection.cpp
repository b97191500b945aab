// projectPositions and projectVelocities (constrained_dynamics.hpp): q onto C(q) = 0 by Gauss-Newton, v onto
// G v = 0 by the Factorized solver's pieces (constrained_solvers.hpp).

#include "abdyn/constraints/constrained_dynamics.hpp"

#include <string>

#include "abdyn/error.hpp"
#include "abdyn/model/configuration.hpp"
#include "constraints/constrained_solvers.hpp"
#include "constraints/passes.hpp"
#include "internal/checks.hpp"
#include "internal/dense_solve.hpp"

namespace abdyn {

int projectPositions(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                     Eigen::VectorXd& q, double tolerance, int max_iterations) {
  const char* fn = "abdyn::projectPositions";
  internal::checkConstrainedCall(model, data, cd, constraints, q, nullptr, fn);
  if (!(tolerance > 0.0) || max_iterations < 1) {
    throw InvalidArgument(std::string(fn) + ": need tolerance > 0 and max_iterations >= 1");
  }
  ConstraintKinematics& k = cd.kinematics;
  for (int it = 0; it <= max_iterations; ++it) {
    internal::constraintsAt(model, data, cd, constraints, q, true);
    const double error = k.C.size() ? k.C.cwiseAbs().maxCoeff() : 0.0;
    if (error <= tolerance) return it;
    if (it == max_iterations) {
      throw Error(std::string(fn) + ": no configuration of model '" + model.name() + "' closing its loops within " +
                  internal::numberText(tolerance) + " was found near the guess (largest error " + internal::numberText(error) +
                  " after " + std::to_string(max_iterations) + " Gauss-Newton steps)");
    }
    // Minimum-norm Gauss-Newton step dq = -J^+ C, decomposing J itself (J^T J would square its conditioning).
    internal::work(cd).jacobian_solver.compute(k.G_exact);
    internal::minimumNormSolve(internal::work(cd).jacobian_solver, k.C, internal::work(cd).solve_work.head(k.C.size()), internal::work(cd).solve_y.head(model.nv()), internal::work(cd).row);
    internal::work(cd).row = -internal::work(cd).row;
    integrate(model, q, internal::work(cd).row, 1.0, q);
  }
  return max_iterations;
}

void projectVelocities(const Model& model, Data& data, ConstrainedDynamicsData& cd, const ConstraintSet& constraints,
                       const Eigen::VectorXd& q, Eigen::VectorXd& v, const DynamicsOptions& options) {
  const char* fn = "abdyn::projectVelocities";
  internal::checkConstrainedCall(model, data, cd, constraints, q, nullptr, fn);
  internal::checkVector(v, model.nv(), fn, "v");
  internal::jacobianAndFactor(model, data, cd, constraints, q, options);
  internal::factorizedSchur(model, data, cd, cd.kinematics.G, 0.0);
  internal::work(cd).eta.noalias() = cd.kinematics.G * v;
  internal::solveMultipliers(model, cd, ConstrainedDynamicsSettings{});  // G v lies in Gamma's range: consistent
  internal::work(cd).column.setZero();
  internal::addYTimesLambda(cd, internal::work(cd).column);
  internal::finishSolve(model, data, internal::work(cd).column);
  v -= internal::work(cd).column;
}

}  // namespace abdyn
