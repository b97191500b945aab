#include "abdyn/model/model.hpp"

#include "abdyn/error.hpp"

namespace abdyn {

int Model::jointId(const std::string& name) const {
  const auto it = joint_index_.find(name);
  if (it == joint_index_.end()) {
    throw Error("model '" + name_ + "': no joint named '" + name + "'" +
                (frame_index_.count(name) ? " (it is a frame; fixed joints are merged into their parent body)" : ""));
  }
  return it->second;
}

int Model::bodyId(const std::string& name) const {
  const auto it = body_index_.find(name);
  if (it != body_index_.end()) return it->second;
  const auto frame = frame_index_.find(name);
  if (frame != frame_index_.end()) {
    const int body = frames_[frame->second].body;
    throw Error("model '" + name_ + "': no body named '" + name + "'; it is a frame on body '" + body_names_[body] +
                "' (merged through a fixed joint): use frameId");
  }
  throw Error("model '" + name_ + "': no body named '" + name + "'");
}

int Model::frameId(const std::string& name) const {
  const auto it = frame_index_.find(name);
  if (it == frame_index_.end()) throw Error("model '" + name_ + "': no frame named '" + name + "'");
  return it->second;
}

void Model::throwIndexError(const char* accessor, int index, std::size_t count) const {
  throw InvalidArgument("abdyn::Model::" + std::string(accessor) + "(" + std::to_string(index) + "): index out of range for model '" +
                        name_ + "' (valid: 0 to " + std::to_string(static_cast<long long>(count) - 1) + ")");
}

Model Model::withGravity(const Vector3& g) const {
  if (!g.allFinite()) throw InvalidArgument("abdyn::Model::withGravity: gravity is not finite");
  Model copy(*this);
  copy.gravity_ = Motion(Vector3::Zero(), g);
  return copy;
}

double Model::totalMass() const {
  double m = 0.0;
  for (const RigidBodyInertia& I : inertia_) m += I.mass();
  return m;
}

}  // namespace abdyn
