// Loading MuJoCo models from text (see mujoco_load.hpp).

#include "mujoco_load.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace abdyn_bench {

MujocoModel loadMujocoText(const std::string& xml, const char* name, std::string& error) {
  MujocoModel none(nullptr, mj_deleteModel);
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  if (mj_makeEmptyFileVFS(vfs.get(), name, static_cast<int>(xml.size())) != 0) {
    error = "mj_makeEmptyFileVFS failed";
    return none;
  }
  std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), name)], xml.data(), xml.size());
  char message[1000] = "";
  MujocoModel model(mj_loadXML(name, vfs.get(), message, sizeof message), mj_deleteModel);
  mj_deleteVFS(vfs.get());
  if (!model) {
    error = std::string("mj_loadXML: ") + message;
    std::replace(error.begin(), error.end(), '\n', ' ');
  }
  return model;
}

std::string mujocoUrdf(const Problem& problem, bool repair, std::string& error) {
  constexpr const char* kRepair = " balanceinertia=\"true\" boundmass=\"1e-9\" boundinertia=\"1e-12\"";
  std::ifstream file(problem.urdf);
  std::stringstream text;
  text << file.rdbuf();
  std::string xml = text.str();
  const auto robot = xml.find("<robot");
  const auto open_end = robot == std::string::npos ? robot : xml.find('>', robot);
  if (open_end == std::string::npos) {
    error = "no <robot> element in " + problem.urdf;
    return {};
  }
  std::string extra = std::string("<mujoco><compiler inertiafromgeom=\"false\"") + (repair ? kRepair : "") + "/></mujoco>";
  for (const JointSlice& joint : problem.joints) {
    if (problem.floating_base && joint.floating) {
      extra += "<link name=\"world\"/><joint name=\"" + joint.name + "\" type=\"floating\"><parent link=\"world\"/>" +
               "<child link=\"" + joint.child_link + "\"/></joint>";
    }
  }
  return xml.insert(open_end + 1, extra);
}

}  // namespace abdyn_bench
