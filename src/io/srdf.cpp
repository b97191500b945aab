#include "abdyn/io/srdf.hpp"

#include <cstring>

#include <tinyxml2.h>

#include "abdyn/error.hpp"
#include "io/xml_limits.hpp"

namespace abdyn {

std::vector<std::pair<std::string, std::string>> parseSrdfDisabledCollisions(const std::string& xml, const std::string& source) {
  internal::checkXmlLimits(xml, source);  // before the XML parser sees the text
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS) {
    throw Error(source + ": malformed XML: " + (doc.ErrorStr() != nullptr ? doc.ErrorStr() : "parse error"));
  }
  const tinyxml2::XMLElement* robot = doc.RootElement();
  if (robot == nullptr) throw Error(source + ": no element");
  if (std::strcmp(robot->Name(), "robot") != 0) {
    throw Error(source + ": the root element is '" + robot->Name() + "', an SRDF file's is 'robot'");
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const tinyxml2::XMLElement* e = robot->FirstChildElement("disable_collisions"); e != nullptr;
       e = e->NextSiblingElement("disable_collisions")) {
    const char* names[2] = {e->Attribute("link1"), e->Attribute("link2")};
    for (int k = 0; k < 2; ++k) {
      if (names[k] == nullptr || names[k][0] == '\0') {
        throw Error(source + ":" + std::to_string(e->GetLineNum()) + ": disable_collisions has no " +
                    (k == 0 ? "link1" : "link2") + " attribute naming a link");
      }
    }
    pairs.emplace_back(names[0], names[1]);
  }
  return pairs;
}

std::vector<std::pair<std::string, std::string>> readSrdfDisabledCollisions(const std::string& path) {
  return parseSrdfDisabledCollisions(internal::readXmlFile(path, "SRDF"), path);
}

}  // namespace abdyn
