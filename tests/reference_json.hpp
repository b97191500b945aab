#pragma once
// Reading the peer reference files of tests/reference/ (JSON written by Pinocchio and RBDL runs).

#include <string>

#include <nlohmann/json.hpp>

#include "abdyn/abdyn.hpp"

namespace abdyn::test {

inline Eigen::VectorXd vec(const nlohmann::json& j) {
  Eigen::VectorXd x(j.size());
  for (size_t k = 0; k < j.size(); ++k) x[static_cast<Eigen::Index>(k)] = j[k].get<double>();
  return x;
}

/// abdyn's joint names in the peer's order, from the file's dof_names: the floating base (its six
/// "__root__:" coordinates, abdyn's root_joint) first, then one name per joint.
inline JointOrder peerJointOrder(const nlohmann::json& dof_names, bool floating) {
  JointOrder order;
  if (floating) order.push_back("root_joint");
  for (const auto& n : dof_names) {
    const std::string name = n.get<std::string>();
    if (name.rfind("__root__:", 0) != 0) order.push_back(name);
  }
  return order;
}

}  // namespace abdyn::test
