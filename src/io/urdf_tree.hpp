#pragma once
// The links and joints of a URDF document as one tree: names resolved to indices, every link but the
// root the child of exactly one joint. Refuses (abdyn::Error naming the links and joints) duplicate
// names, a joint naming a missing link, a link with two parent joints, no root or several roots. Links
// the root does not reach (a cycle beside the tree) are left for the walk from the root to find.

#include <string>
#include <unordered_map>
#include <vector>

#include "io/urdf_document.hpp"

namespace abdyn::internal {

struct UrdfTree {
  int root = -1;                               // the link without a parent joint
  std::vector<int> parent_joint;               // by link: the joint whose child it is, -1 for the root
  std::vector<std::vector<int>> child_joints;  // by link: the joints whose parent it is, by name (see urdf.hpp)
  std::unordered_map<std::string, int> link_index, joint_index;  // names -> positions in the document
};

/// Throws abdyn::Error "<source>: ..." if the document is not one tree (see above).
UrdfTree buildUrdfTree(const UrdfDocument& doc, const std::string& source);

}  // namespace abdyn::internal
