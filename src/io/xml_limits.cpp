#include "internal/xml_limits.hpp"

#include <cstring>
#include <filesystem>
#include <system_error>

#include "abdyn/error.hpp"

namespace abdyn::internal {
namespace {

[[noreturn]] void refuse(const std::string& source, const std::string& what, std::uint64_t line) {
  throw Error(source + ": refused before parsing: " + what + (line ? " (line " + std::to_string(line) + ")" : "") +
              "; abdyn does not hand such files to its XML parsers (limits in src/internal/xml_limits.hpp)");
}

}  // namespace

void checkXmlFileSize(const std::string& path, const XmlLimits& limits) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > limits.max_bytes) {
    refuse(path, "the file has " + std::to_string(size) + " bytes, more than the limit of " +
                     std::to_string(limits.max_bytes), 0);
  }
}

void checkXmlLimits(const std::string& xml, const std::string& source, const XmlLimits& limits, XmlOutline* outline) {
  if (xml.size() > limits.max_bytes) {
    refuse(source, "the document has " + std::to_string(xml.size()) + " bytes, more than the limit of " +
                       std::to_string(limits.max_bytes), 0);
  }
  const char* p = xml.data();
  const char* const end = p + xml.size();
  std::uint64_t line = 1;
  std::uint64_t elements = 0;
  int depth = 0;
  bool unterminated = false;  // a comment, CDATA section, declaration or end tag runs to the end
  // Skips to just after `terminator`, counting lines; to the end if it is missing (the parser reports that).
  const auto skipPast = [&](const char* terminator) {
    const std::size_t length = std::strlen(terminator);
    for (; p < end; ++p) {
      if (static_cast<std::size_t>(end - p) >= length && std::memcmp(p, terminator, length) == 0) {
        p += length;
        return;
      }
      if (*p == '\n') ++line;
    }
    unterminated = true;
  };
  const auto startsWith = [&](const char* prefix) {
    const std::size_t length = std::strlen(prefix);
    return static_cast<std::size_t>(end - p) >= length && std::memcmp(p, prefix, length) == 0;
  };
  // The outline (filled only if asked for): the names of the open elements of the two upper levels.
  XmlOutline unused;
  XmlOutline& o = outline != nullptr ? *outline : unused;
  std::string open[2];
  const auto nameAt = [&](const char* q) {
    const char* n = q;
    while (n < end && *n != '>' && *n != '/' && *n != ' ' && *n != '\t' && *n != '\n' && *n != '\r') ++n;
    return std::string(q, n);
  };
  const auto offset = [&](const char* q) { return static_cast<std::size_t>(q - xml.data()); };
  while (p < end) {
    if (*p == '\n') ++line;
    if (*p != '<') {
      if (depth < 2 && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') o.clean = false;
      ++p;
      continue;
    }
    if (startsWith("<!--")) {
      skipPast("-->");
    } else if (startsWith("<![CDATA[")) {
      skipPast("]]>");
    } else if (startsWith("<?")) {
      skipPast("?>");
    } else if (startsWith("<!")) {
      skipPast(">");
    } else if (startsWith("</")) {
      const bool upper = outline != nullptr && (depth == 1 || depth == 2) && !o.top.empty();
      if ((upper && nameAt(p + 2) != open[depth - 1]) || depth == 0) o.clean = false;
      skipPast(">");
      if (upper && depth == 1) o.top.back().span.end = offset(p);
      if (upper && depth == 2 && !o.top.back().children.empty()) o.top.back().children.back().end = offset(p);
      if (depth > 0) --depth;
    } else {
      // A start tag: count its attributes (each has one '=' outside quoted values) until '>' or "/>".
      const char* const tag = p;
      ++p;
      if (++elements > limits.max_elements) {
        refuse(source, "more than " + std::to_string(limits.max_elements) + " elements", line);
      }
      int attributes = 0;
      char quote = 0;
      bool self_closing = false;
      for (; p < end; ++p) {
        const char c = *p;
        if (c == '\n') ++line;
        if (quote) {
          if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
          quote = c;
        } else if (c == '=') {
          if (++attributes > limits.max_attributes) {
            refuse(source, "an element has more than " + std::to_string(limits.max_attributes) + " attributes", line);
          }
        } else if (c == '>') {
          self_closing = p[-1] == '/';
          ++p;
          break;
        }
      }
      if (outline != nullptr && depth == 0) {
        XmlOutline::TopElement top;
        top.name = nameAt(tag + 1);
        top.span = {offset(tag), offset(p)};  // the end moves to the end tag's, if there is one
        top.start_tag_end = offset(p);
        top.self_closing = self_closing;
        open[0] = top.name;
        o.top.push_back(std::move(top));
      } else if (outline != nullptr && depth == 1 && !o.top.empty()) {
        o.top.back().children.push_back({offset(tag), offset(p)});
        open[1] = nameAt(tag + 1);
      }
      if (!self_closing && ++depth > limits.max_depth) {
        refuse(source, "elements are nested more than " + std::to_string(limits.max_depth) + " levels deep", line);
      }
    }
  }
  if (depth != 0 || unterminated) o.clean = false;
}

}  // namespace abdyn::internal
