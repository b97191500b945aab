#include "io/mass_matrix_diagnosis.hpp"

#include <cmath>

#include "abdyn/algorithms/crba.hpp"
#include "abdyn/model/configuration.hpp"
#include "algorithms/passes.hpp"

namespace abdyn::internal {

Eigen::VectorXd genericConfiguration(const Model& model) {
  Eigen::VectorXd v(model.nv());
  for (int k = 0; k < model.nv(); ++k) v[k] = 0.3 + 0.7 * std::abs(std::sin(1.0 + 2.0 * k));
  Eigen::VectorXd q(model.nq());
  integrate(model, neutral(model), v, 1.0, q);
  return q;
}

int singularCoordinate(const Model& model, Data& data, const Eigen::VectorXd& q) {
  massMatrix(model, data, q);
  return factorizeAtMassMatrix(model, data, 1e-10);
}

}  // namespace abdyn::internal
