#pragma once
// Data's lazily allocated workspaces (data.cpp defines them): the algorithms that need them call these at
// their door, so that a Data for ABA alone stays small on a large model.

#include "abdyn/model/data.hpp"

namespace abdyn::internal {

/// Allocates data's mass-matrix workspace (M, M^-1 and its scratch, the factor and its pattern) unless it
/// is there already: at construction for small models, else on the first call that needs it (data.hpp).
void reserveMassMatrix(const Model& model, Data& data);

/// The nv x nv derivative matrices of Data (dtau_dq, ...), allocated by the first derivative call when Data
/// did not allocate them (nv > Data::kEagerMassMatrixDofs).
void reserveDerivatives(const Model& model, Data& data);

}  // namespace abdyn::internal
