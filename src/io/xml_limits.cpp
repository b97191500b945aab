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

void checkXmlLimits(const std::string& xml, const std::string& source, const XmlLimits& limits) {
  if (xml.size() > limits.max_bytes) {
    refuse(source, "the document has " + std::to_string(xml.size()) + " bytes, more than the limit of " +
                       std::to_string(limits.max_bytes), 0);
  }
  const char* p = xml.data();
  const char* const end = p + xml.size();
  std::uint64_t line = 1;
  std::uint64_t elements = 0;
  int depth = 0;
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
  };
  const auto startsWith = [&](const char* prefix) {
    const std::size_t length = std::strlen(prefix);
    return static_cast<std::size_t>(end - p) >= length && std::memcmp(p, prefix, length) == 0;
  };
  while (p < end) {
    if (*p == '\n') ++line;
    if (*p != '<') {
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
      skipPast(">");
      if (depth > 0) --depth;
    } else {
      // A start tag: count its attributes (each has one '=' outside quoted values) until '>' or "/>".
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
      if (!self_closing && ++depth > limits.max_depth) {
        refuse(source, "elements are nested more than " + std::to_string(limits.max_depth) + " levels deep", line);
      }
    }
  }
}

}  // namespace abdyn::internal
