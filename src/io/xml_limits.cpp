#include "io/xml_limits.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <system_error>

#include "abdyn/error.hpp"
#include "io/xml_numbers.hpp"

namespace abdyn::internal {
namespace {

[[noreturn]] void refuse(const std::string& source, const std::string& what, std::uint64_t line) {
  throw Error(source + ": refused before parsing: " + what + (line ? " (line " + std::to_string(line) + ")" : "") +
              "; abdyn does not hand such files to its XML parsers (limits in src/io/xml_limits.hpp)");
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

std::string readXmlFile(const std::string& path, const char* kind) {
  const std::string failure = path + ": cannot read the " + kind + " file: ";
  // A directory opens as a stream on Linux and reads as empty: say what it is instead.
  std::error_code ec;
  const std::filesystem::file_type type = std::filesystem::status(path, ec).type();
  if (type == std::filesystem::file_type::not_found) throw Error(failure + "no such file");
  if (type == std::filesystem::file_type::directory) throw Error(failure + "it is a directory");
  checkXmlFileSize(path);
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(failure + (errno ? std::strerror(errno) : "cannot open it"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(failure + "read error");
  return text;
}

// The scan jumps from one '<' to the next (memchr) and through quoted attribute values; it counts no
// lines on the way: a refusal counts the line breaks before the place where the limit was broken.
void checkXmlLimits(const std::string& xml, const std::string& source, const XmlLimits& limits, XmlOutline* outline) {
  if (xml.size() > limits.max_bytes) {
    refuse(source, "the document has " + std::to_string(xml.size()) + " bytes, more than the limit of " +
                       std::to_string(limits.max_bytes), 0);
  }
  const char* p = xml.data();
  const char* const end = p + xml.size();
  const auto lineAt = [&](const char* q) {
    return static_cast<std::uint64_t>(1 + std::count(xml.data(), q, '\n'));
  };
  std::uint64_t elements = 0;
  int depth = 0;
  bool unterminated = false;  // a comment, CDATA section, declaration or end tag runs to the end
  // Skips to just after `terminator`; to the end if it is missing (the parser reports that).
  const auto skipPast = [&](std::string_view terminator) {
    const std::size_t at = std::string_view(p, static_cast<std::size_t>(end - p)).find(terminator);
    if (at == std::string_view::npos) {
      p = end;
      unterminated = true;
    } else {
      p += at + terminator.size();
    }
  };
  const auto startsWith = [&](std::string_view prefix) {
    return static_cast<std::size_t>(end - p) >= prefix.size() && std::memcmp(p, prefix.data(), prefix.size()) == 0;
  };
  // The outline (filled only if asked for): the names of the open elements of the two upper levels.
  XmlOutline unused;
  XmlOutline& o = outline != nullptr ? *outline : unused;
  std::string_view open[2];
  const auto nameAt = [&](const char* q) {
    const char* n = q;
    while (n < end && *n != '>' && *n != '/' && !isXmlSpace(*n)) ++n;
    return std::string_view(q, static_cast<std::size_t>(n - q));
  };
  const auto offset = [&](const char* q) { return static_cast<std::size_t>(q - xml.data()); };
  while (p < end) {
    const char* const tag = static_cast<const char*>(std::memchr(p, '<', static_cast<std::size_t>(end - p)));
    const char* const text_end = tag != nullptr ? tag : end;
    if (depth < 2 && !std::all_of(p, text_end, isXmlSpace)) o.clean = false;
    if (tag == nullptr) break;
    p = tag;
    if (startsWith("<!--")) {
      skipPast("-->");
    } else if (startsWith("<![CDATA[")) {
      skipPast("]]>");
    } else if (startsWith("<?")) {
      // tinyxml2 takes every "<?" for a declaration and accepts declarations only before the first
      // element: one between the pieces would pass a parse of the pieces but not of the whole.
      if (depth == 1 || (depth == 0 && elements > 0)) o.clean = false;
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
      ++p;
      if (++elements > limits.max_elements) {
        refuse(source, "more than " + std::to_string(limits.max_elements) + " elements", lineAt(tag));
      }
      int attributes = 0;
      bool self_closing = false;
      for (; p < end; ++p) {
        const char c = *p;
        if (c == '"' || c == '\'') {
          const void* close = std::memchr(p + 1, c, static_cast<std::size_t>(end - p - 1));
          p = close != nullptr ? static_cast<const char*>(close) : end - 1;  // unclosed: to the end
        } else if (c == '=') {
          if (++attributes > limits.max_attributes) {
            refuse(source, "an element has more than " + std::to_string(limits.max_attributes) + " attributes", lineAt(p));
          }
        } else if (c == '>') {
          self_closing = p[-1] == '/';
          ++p;
          break;
        }
      }
      if (outline != nullptr && depth == 0) {
        XmlOutline::TopElement top;
        top.name = std::string(nameAt(tag + 1));
        top.span = {offset(tag), offset(p)};  // the end moves to the end tag's, if there is one
        top.start_tag_end = offset(p);
        top.self_closing = self_closing;
        open[0] = nameAt(tag + 1);
        o.top.push_back(std::move(top));
      } else if (outline != nullptr && depth == 1 && !o.top.empty()) {
        o.top.back().children.push_back({offset(tag), offset(p)});
        open[1] = nameAt(tag + 1);
      }
      if (!self_closing && ++depth > limits.max_depth) {
        refuse(source, "elements are nested more than " + std::to_string(limits.max_depth) + " levels deep", lineAt(p));
      }
    }
  }
  if (depth != 0 || unterminated) o.clean = false;
}

}  // namespace abdyn::internal
