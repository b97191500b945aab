#include "io/urdf_tree.hpp"

#include <algorithm>

#include "abdyn/error.hpp"

namespace abdyn::internal {

UrdfTree buildUrdfTree(const UrdfDocument& doc, const std::string& source) {
  const auto fail = [&](const std::string& what) { throw Error(source + ": " + what); };
  UrdfTree tree;
  const int nlinks = static_cast<int>(doc.links.size()), njoints = static_cast<int>(doc.joints.size());
  tree.link_index.reserve(doc.links.size());
  tree.joint_index.reserve(doc.joints.size());
  for (int l = 0; l < nlinks; ++l) {
    if (!tree.link_index.emplace(doc.links[l].name, l).second) fail("link '" + doc.links[l].name + "' is defined more than once");
  }
  for (int j = 0; j < njoints; ++j) {
    if (!tree.joint_index.emplace(doc.joints[j].name, j).second) fail("joint '" + doc.joints[j].name + "' is defined more than once");
  }
  tree.parent_joint.assign(nlinks, -1);
  tree.child_joints.resize(nlinks);
  for (int j = 0; j < njoints; ++j) {
    const UrdfJoint& joint = doc.joints[j];
    const auto parent = tree.link_index.find(joint.parent);
    if (parent == tree.link_index.end()) {
      fail("joint '" + joint.name + "' refers to parent link '" + joint.parent + "', which does not exist");
    }
    const auto child = tree.link_index.find(joint.child);
    if (child == tree.link_index.end()) {
      fail("joint '" + joint.name + "' refers to child link '" + joint.child + "', which does not exist");
    }
    int& parent_joint = tree.parent_joint[child->second];
    if (parent_joint >= 0) {
      fail("link '" + joint.child + "' is the child of two joints, '" + doc.joints[parent_joint].name + "' and '" +
           joint.name + "', but a URDF must be one tree");
    }
    parent_joint = j;
    tree.child_joints[parent->second].push_back(j);
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
  // Siblings in the order of their joint names, as urdfdom (and so Pinocchio) visit them: models
  // loaded before abdyn had its own reader keep their body numbering.
  for (std::vector<int>& children : tree.child_joints) {
    if (children.size() > 1) {
      std::sort(children.begin(), children.end(),
                [&](int a, int b) { return doc.joints[a].name < doc.joints[b].name; });
    }
  }
  return tree;
}

}  // namespace abdyn::internal
