#pragma once
// Limits on the XML a URDF loader hands to its parsers (urdfdom's TinyXML and tinyxml2), checked by a
// cheap pre-scan before either parser sees the text. The parsers recurse once per nesting level (about
// 40,000 levels overflow the stack) and handle the attributes of one element in quadratic time (a few
// million attributes keep them busy for minutes), so a hostile file must be refused before parsing. The
// limits are far above any robot description: URDF nests about 5 levels deep and its elements carry at
// most 6 attributes (tinyxml2 itself refuses more than 100 levels); a 100,000-link chain is about 60 MB with 1.2 million elements.
//
// The scan is one linear pass: it counts elements, attributes per start tag and the nesting depth, skipping
// comments, CDATA sections, processing instructions and declarations. It does not validate the XML (the
// parsers do); text that is not well formed is passed on to them unless it breaks a limit.

#include <cstdint>
#include <string>

namespace abdyn::internal {

struct XmlLimits {
  std::uint64_t max_bytes = 256ull << 20;   // 256 MiB
  int max_depth = 100;                      // nested elements (tinyxml2 stops at 100 too)
  int max_attributes = 256;                 // attributes on one element
  std::uint64_t max_elements = 8'000'000;   // elements in the document
};

/// Throws abdyn::Error "<source>: refused before parsing: ..." naming the limit, the value found and the
/// line where it was broken, if the text breaks one of the limits.
void checkXmlLimits(const std::string& xml, const std::string& source, const XmlLimits& limits = {});

/// The size check alone, for a file before it is read (throws the same way; a file whose size cannot be
/// read is left to the reader).
void checkXmlFileSize(const std::string& path, const XmlLimits& limits = {});

}  // namespace abdyn::internal
