#pragma once
/// @file
/// The collision pairs an SRDF file (MoveIt's Semantic Robot Description Format) disables: its
/// `disable_collisions` elements, `<disable_collisions link1="a" link2="b" reason="Adjacent"/>` under the root
/// `robot`, read into GroundContactSettings::excluded_pairs (row_contacts.hpp), which resolves the link names
/// on the model. The file's other elements (groups, group states, end effectors, virtual joints, passive
/// joints) are not read. The XML passes the same limits as a URDF's before it is parsed (size, nesting depth,
/// attributes per element, element count).

#include <string>
#include <utility>
#include <vector>

namespace abdyn {

/// The (link1, link2) pairs of the `disable_collisions` elements of the SRDF text `xml`, in the file's order;
/// `source` names the text in messages. Throws abdyn::Error naming the source (and the line) for text that
/// breaks the XML limits or is not well-formed XML, a root element other than `robot`, and a
/// `disable_collisions` element without a non-empty link1 or link2.
std::vector<std::pair<std::string, std::string>> parseSrdfDisabledCollisions(const std::string& xml,
                                                                             const std::string& source = "<string>");

/// The same for the SRDF file at `path`; throws abdyn::Error naming it when it cannot be read.
std::vector<std::pair<std::string, std::string>> readSrdfDisabledCollisions(const std::string& path);

}  // namespace abdyn
