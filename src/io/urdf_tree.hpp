#pragma once
// The links and joints of a URDF document as one tree: names resolved to indices, every link but the
// root the child of exactly one joint. Refuses (abdyn::Error naming the links and joints) duplicate
// names, a joint naming a missing link, a link with two parent joints, no root or several roots. Links
// the root does not reach (a cycle beside the tree) are left for the walk from the root to find.

#include <string>
#include <string_view>
#include <vector>

#include "io/urdf_document.hpp"
#include "model/name_index.hpp"

namespace abdyn::internal {

struct UrdfTree {
  const UrdfDocument* doc = nullptr;  // the document it indexes (names are read from it)
  int root = -1;                      // the link without a parent joint
  std::vector<int> parent_joint;      // by link: the joint whose child it is, -1 for the root
  std::vector<int> joint_parent, joint_child;  // by joint: its parent and child links
  // By link l: the joints whose parent it is, by name (see urdf.hpp), are
  // child_joint_list[child_offset[l] .. child_offset[l + 1]) (one array for all links: no vector per link).
  std::vector<int> child_offset, child_joint_list;
  NameSlots link_index, joint_index;  // names -> positions in the document (model/name_index.hpp)

  struct Joints {
    const int* first;
    const int* last;
    const int* begin() const { return first; }
    const int* end() const { return last; }
    std::size_t size() const { return static_cast<std::size_t>(last - first); }
  };
  Joints childJoints(int link) const {
    return {child_joint_list.data() + child_offset[link], child_joint_list.data() + child_offset[link + 1]};
  }
  /// Position of the link (joint) with this name in the document, -1 if there is none.
  int link(std::string_view name) const {
    return findName(link_index, name, [this](int l) -> const std::string& { return doc->links[l].name; });
  }
  int joint(std::string_view name) const {
    return findName(joint_index, name, [this](int j) -> const std::string& { return doc->joints[j].name; });
  }
};

/// Throws abdyn::Error "<source>: ..." if the document is not one tree (see above). The tree refers to
/// `doc`, which must outlive it.
UrdfTree buildUrdfTree(const UrdfDocument& doc, const std::string& source);

}  // namespace abdyn::internal
