#include "abdyn/model/model.hpp"

#include "abdyn/error.hpp"
#include "model/digest.hpp"
#include "model/name_index.hpp"

namespace abdyn {

int Model::jointId(const std::string& name) const {
  const int joint = internal::findName(joint_index_, name, internal::namesOf(joints_));
  if (joint < 0) {
    throw Error("model '" + name_ + "': no joint named '" + name + "'" +
                (internal::findName(frame_index_, name, internal::namesOf(frames_)) >= 0
                     ? " (it is a frame; fixed joints are merged into their parent body)"
                     : ""));
  }
  return joint;
}

int Model::bodyId(const std::string& name) const {
  const int frame = internal::findName(frame_index_, name, internal::namesOf(frames_));
  if (frame < 0) throw Error("model '" + name_ + "': no body named '" + name + "'");
  const Frame& f = frames_[frame];
  // A body's own frame; ModelBuilder::addFrame may add other frames of type Body, under other names.
  if (f.type == FrameType::Body && body_names_[f.body] == name) return f.body;
  throw Error("model '" + name_ + "': no body named '" + name + "'; it is a frame on body '" + body_names_[f.body] +
              "' (merged through a fixed joint): use frameId");
}

int Model::frameId(const std::string& name) const {
  const int frame = internal::findName(frame_index_, name, internal::namesOf(frames_));
  if (frame < 0) throw Error("model '" + name_ + "': no frame named '" + name + "'");
  return frame;
}

void Model::throwIndexError(const char* accessor, int index, std::size_t count) const {
  throw InvalidArgument("abdyn::Model::" + std::string(accessor) + "(" + std::to_string(index) + "): index out of range for model '" +
                        name_ + "' (valid: 0 to " + std::to_string(static_cast<long long>(count) - 1) + ")");
}

Model Model::withGravity(const Vector3& g) const {
  if (!g.allFinite()) throw InvalidArgument("abdyn::Model::withGravity: gravity is not finite");
  Model copy(*this);
  copy.gravity_ = Motion(Vector3::Zero(), g);
  copy.computeParameterKey();
  return copy;
}

void Model::computeParameterKey() {
  internal::Fnv1a parameters;
  parameters.mixAll(gravity_.vector());
  for (std::size_t i = 1; i < joints_.size(); ++i) {
    const Joint& j = joints_[i];
    parameters.mixAll(j.axis);
    parameters.mixAll(j.axis2);
    parameters.mix(j.pitch);
    parameters.mixAll(X_tree_[i].E());
    parameters.mixAll(X_tree_[i].r());
    parameters.mixAll(inertia_matrix_[i]);
  }
  for (const Eigen::VectorXd* v : {&damping_, &armature_, &stiffness_, &spring_reference_}) parameters.mixAll(*v);
  parameter_key_ = parameters.key();
}

double Model::totalMass() const {
  double m = 0.0;
  for (const RigidBodyInertia& I : inertia_) m += I.mass();
  return m;
}

}  // namespace abdyn
