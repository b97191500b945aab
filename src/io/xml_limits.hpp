#pragma once
// Limits on the XML a URDF loader hands to its parser (tinyxml2, for the tree and the loop joints), checked by a
// cheap pre-scan before the parser sees the text. The parsers recurse once per nesting level (about
// 40,000 levels overflow the stack) and handle the attributes of one element in quadratic time (a few
// million attributes keep them busy for minutes), so a hostile file must be refused before parsing. The
// limits are far above any robot description: URDF nests about 5 levels deep and its elements carry at
// most 6 attributes (tinyxml2 itself refuses more than 98 levels). Size and element count only bound linear work:
// they admit a 10^6-link chain (examples/deep_chain.cpp: 280 MB, 10 million elements).
//
// The scan is one linear pass: it counts elements, attributes per start tag and the nesting depth, skipping
// comments, CDATA sections, processing instructions and declarations. It does not validate the XML (the
// parsers do); text that is not well formed is passed on to them unless it breaks a limit.

#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

namespace abdyn::internal {

struct XmlLimits {
  std::uint64_t max_bytes = 512ull << 20;   // 512 MiB
  int max_depth = 98;                       // nested elements (tinyxml2 9 parses no more)
  int max_attributes = 256;                 // attributes on one element
  std::uint64_t max_elements = 16'000'000;  // elements in the document
};

/// Where the scan found the document's top-level elements and their children, so that a reader can
/// hand a parser one child at a time: a DOM of the whole of a 10^5-link URDF costs several hundred MB
/// and most of the loading time. Spans are [begin, end) byte offsets of whole elements (start tag to
/// end tag). `clean` is false when the scan saw anything that a parse of the whole document might judge
/// differently from a parse of the pieces (an end tag naming another element at the two upper levels,
/// text outside the elements there, a declaration after the first element, an unclosed element): the reader then parses the whole document.
struct XmlOutline {
  struct Span {
    std::size_t begin = 0, end = 0;
  };
  struct TopElement {
    std::string name;
    Span span;
    std::size_t start_tag_end = 0;  // just after the start tag's '>'
    bool self_closing = false;
    std::vector<Span> children;
  };
  bool clean = true;
  std::vector<TopElement> top;
};

/// Throws abdyn::Error "<source>: refused before parsing: ..." naming the limit, the value found and the
/// line where it was broken, if the text breaks one of the limits. Fills `outline` if given.
void checkXmlLimits(const std::string& xml, const std::string& source, const XmlLimits& limits = {},
                    XmlOutline* outline = nullptr);

/// The size check alone, for a file before it is read (throws the same way; a file whose size cannot be
/// read is left to the reader).
void checkXmlFileSize(const std::string& path, const XmlLimits& limits = {});

/// The text of the XML file at `path` after the size check; throws abdyn::Error "<path>: cannot read the
/// <kind> file: ..." (kind: "URDF", "SRDF") saying why: no such file, a directory, the system's reason
/// for not opening it, or a read error.
std::string readXmlFile(const std::string& path, const char* kind);

}  // namespace abdyn::internal
