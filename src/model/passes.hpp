#pragma once
// The model layer's unchecked passes, for the layers above that checked their arguments at their own door,
// and Data's lazily allocated workspaces. Each group names the file (src/model/) that defines it.

#include "abdyn/model/data.hpp"

namespace abdyn::internal {

// data.cpp: the algorithms that need these workspaces call them at their door, so that a Data for ABA
// alone stays small on a large model.

/// Allocates data's mass-matrix workspace (M, M^-1 and its scratch, the factor and its pattern) unless it
/// is there already: at construction for small models, else on the first call that needs it (data.hpp).
void reserveMassMatrix(const Model& model, Data& data);

/// The nv x nv derivative matrices of Data (dtau_dq, ...), allocated by the first derivative call when Data
/// did not allocate them (nv > Data::kEagerMassMatrixDofs).
void reserveDerivatives(const Model& model, Data& data);

// configuration.cpp

/// integrate (configuration.hpp) without its size checks: q_out = q (+) dt v, q_out sized nq (it may be q).
void integrateUnchecked(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double dt,
                        Eigen::VectorXd& q_out);

/// normalize (configuration.hpp) without its size check; a zero or non-finite quaternion throws
/// abdyn::InvalidArgument naming `caller`.
void normalizeUnchecked(const Model& model, Eigen::VectorXd& q, const char* caller);

}  // namespace abdyn::internal
