#include "io/urdf_tree.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "abdyn/error.hpp"

namespace abdyn::internal {

UrdfTree buildUrdfTree(const UrdfDocument& doc, const std::string& source) {
  const auto fail = [&](const std::string& what) { throw Error(source + ": " + what); };
  UrdfTree tree;
  tree.doc = &doc;
  const int nlinks = static_cast<int>(doc.links.size()), njoints = static_cast<int>(doc.joints.size());
  const auto link_name = [&](int l) -> const std::string& { return doc.links[l].name; };
  const auto joint_name = [&](int j) -> const std::string& { return doc.joints[j].name; };
  reserveNames(tree.link_index, doc.links.size());
  reserveNames(tree.joint_index, doc.joints.size());
  for (int l = 0; l < nlinks; ++l) {
    if (insertName(tree.link_index, l, doc.links[l].name, l, link_name) >= 0) fail("link '" + doc.links[l].name + "' is defined more than once");
  }
  for (int j = 0; j < njoints; ++j) {
    if (insertName(tree.joint_index, j, doc.joints[j].name, j, joint_name) >= 0) fail("joint '" + doc.joints[j].name + "' is defined more than once");
  }
  tree.parent_joint.assign(nlinks, -1);
  tree.joint_parent.resize(njoints);
  tree.joint_child.resize(njoints);
  for (int j = 0; j < njoints; ++j) {
    const UrdfJoint& joint = doc.joints[j];
    const int parent = tree.link(joint.parent);
    if (parent < 0) {
      // A link named only as a parent is the root of a fragment that another file includes.
      const bool only_parent = std::none_of(doc.joints.begin(), doc.joints.end(),
                                            [&](const UrdfJoint& other) { return other.child == joint.parent; });
      fail("joint '" + joint.name + "' refers to parent link '" + joint.parent + "', which does not exist" +
           (only_parent ? "; the file names '" + joint.parent + "' only as a parent, as a fragment meant to be "
                          "included in a larger description does"
                        : ""));
    }
    const int child = tree.link(joint.child);
    if (child < 0) {
      // A misspelt child: the link meant is among those no joint holds (the root is one of them).
      std::unordered_set<std::string_view> held;
      for (const UrdfJoint& o : doc.joints) held.insert(o.child);
      std::string loose;
      int count = 0;
      for (const UrdfLink& l : doc.links) {
        if (held.count(l.name) == 0 && ++count <= 4) loose += (loose.empty() ? "'" : ", '") + l.name + "'";
      }
      fail("joint '" + joint.name + "' refers to child link '" + joint.child + "', which does not exist" +
           (count > 0 ? " (links no joint holds as its child: " + loose + (count > 4 ? ", ..." : "") + ")" : ""));
    }
    int& parent_joint = tree.parent_joint[child];
    if (parent_joint >= 0) {
      fail("link '" + joint.child + "' is the child of two joints, '" + doc.joints[parent_joint].name + "' and '" +
           joint.name + "', but a URDF must be one tree");
    }
    parent_joint = j;
    tree.joint_parent[j] = parent;
    tree.joint_child[j] = child;
  }
  for (int l = 0; l < nlinks; ++l) {
    if (tree.parent_joint[l] >= 0) continue;
    if (tree.root >= 0) {
      fail("several root links: links '" + doc.links[tree.root].name + "' and '" + doc.links[l].name +
           "' both have no parent joint, but a URDF must be one tree");
    }
    tree.root = l;
  }
  if (tree.root < 0) fail("no root link: every link has a parent joint, so the joints form a cycle");
  // Each link's child joints, grouped by a counting sort over the joints in file order.
  tree.child_offset.assign(nlinks + 1, 0);
  for (int j = 0; j < njoints; ++j) ++tree.child_offset[tree.joint_parent[j] + 1];
  for (int l = 0; l < nlinks; ++l) tree.child_offset[l + 1] += tree.child_offset[l];
  tree.child_joint_list.resize(njoints);
  std::vector<int> next(tree.child_offset.begin(), tree.child_offset.end() - 1);
  for (int j = 0; j < njoints; ++j) tree.child_joint_list[next[tree.joint_parent[j]]++] = j;
  // Siblings in the order of their joint names, as urdfdom (and so Pinocchio) visit them: models
  // loaded before abdyn had its own reader keep their body numbering.
  for (int l = 0; l < nlinks; ++l) {
    int* first = tree.child_joint_list.data() + tree.child_offset[l];
    int* last = tree.child_joint_list.data() + tree.child_offset[l + 1];
    if (last - first > 1) std::sort(first, last, [&](int a, int b) { return doc.joints[a].name < doc.joints[b].name; });
  }
  return tree;
}

}  // namespace abdyn::internal
