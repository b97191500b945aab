#include "io/xml_numbers.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>
#include <system_error>
#include <vector>

namespace abdyn::internal {
namespace {

// Whether the number in [begin, end) has a negative decimal exponent: out of range, it underflowed.
bool negativeExponent(const char* begin, const char* end) {
  for (const char* p = begin; p + 1 < end; ++p) {
    if ((*p == 'e' || *p == 'E') && p[1] == '-') return true;
  }
  return false;
}

}  // namespace

std::string parseNumbers(const char* text, double* out, int count) {
  const char* p = text;
  const char* const end = text + std::strlen(text);
  int found = 0;
  while (true) {
    while (p < end && isXmlSpace(*p)) ++p;
    if (p == end) break;
    const char* word_end = p;
    while (word_end < end && !isXmlSpace(*word_end)) ++word_end;
    const std::string word(p, word_end);
    if (found == count) return "expected " + std::to_string(count) + (count == 1 ? " number" : " numbers") + ", found more ('" + word + "')";
    // from_chars takes no '+' sign; "+-1" must still fail.
    const char* first = p;
    if (*first == '+' && first + 1 < word_end && *(first + 1) != '-' && *(first + 1) != '+') ++first;
    double value = 0.0;
    const std::from_chars_result r = std::from_chars(first, word_end, value);
    if (r.ptr != word_end || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)) {
      return "'" + word + "' is not a number";
    }
    if (r.ec == std::errc::result_out_of_range) {
      if (!negativeExponent(first, word_end)) return "'" + word + "' is out of the range of a double";
      value = *p == '-' ? -0.0 : 0.0;
    }
    if (!std::isfinite(value)) return "'" + word + "' is not a finite number";
    out[found++] = value;
    p = word_end;
  }
  if (found != count) {
    return "expected " + std::to_string(count) + (count == 1 ? " number" : " numbers") + ", found " + std::to_string(found);
  }
  return "";
}

std::string parseNumbersLoosely(const char* text, double* out, int count, std::string& note) {
  note.clear();
  const std::string strict_why = parseNumbers(text, out, count);
  if (strict_why.empty()) return "";
  // "$(optenv NAME default...)": a roslaunch substitution that xacro left in place; the file's own
  // default is the value (xacro would take NAME from the environment when it is set).
  std::string_view whole(text);
  while (!whole.empty() && isXmlSpace(whole.front())) whole.remove_prefix(1);
  while (!whole.empty() && isXmlSpace(whole.back())) whole.remove_suffix(1);
  constexpr std::string_view kOptenv = "$(optenv ";
  if (whole.substr(0, kOptenv.size()) == kOptenv && whole.back() == ')') {
    std::string_view inner = whole.substr(kOptenv.size(), whole.size() - kOptenv.size() - 1);
    while (!inner.empty() && isXmlSpace(inner.front())) inner.remove_prefix(1);
    std::size_t name_end = 0;
    while (name_end < inner.size() && !isXmlSpace(inner[name_end])) ++name_end;
    const std::string name(inner.substr(0, name_end));
    std::string_view fallback = inner.substr(name_end);
    while (!fallback.empty() && isXmlSpace(fallback.front())) fallback.remove_prefix(1);
    const std::string value(fallback);
    if (name.empty() || !parseNumbers(value.c_str(), out, count).empty()) return strict_why;
    note = "not URDF's number syntax (an unexpanded roslaunch substitution $(optenv " + name + " ...)): its default \"" + value +
           "\" is read (xacro would take " + name + " from the environment)";
    return "";
  }

  // A comma separates only when white space follows it: "1,5" may be a decimal comma, and stays refused.
  std::string spaced(text);
  bool commas = false;
  for (std::size_t k = 0; k < spaced.size(); ++k) {
    if (spaced[k] != ',') continue;
    if (k + 1 < spaced.size() && !isXmlSpace(spaced[k + 1])) return strict_why;
    spaced[k] = ' ';
    commas = true;
  }
  std::vector<double> values;
  std::vector<std::string> stray_dots;
  std::size_t p = 0;
  while (true) {
    while (p < spaced.size() && isXmlSpace(spaced[p])) ++p;
    if (p == spaced.size()) break;
    std::size_t word_end = p;
    while (word_end < spaced.size() && !isXmlSpace(spaced[word_end])) ++word_end;
    std::string word = spaced.substr(p, word_end - p);
    p = word_end;
    double value = 0.0;
    if (!parseNumbers(word.c_str(), &value, 1).empty()) {
      // "-1.57.": a number with a decimal point and one more '.' after it
      const std::string trimmed = word.substr(0, word.size() - 1);
      if (word.size() < 3 || word.back() != '.' || trimmed.find('.') == std::string::npos ||
          !parseNumbers(trimmed.c_str(), &value, 1).empty()) {
        return strict_why;
      }
      stray_dots.push_back(word);
    }
    values.push_back(value);
  }
  const std::size_t wanted = static_cast<std::size_t>(count);
  if (values.size() < wanted) return strict_why;
  const bool extra_zeros = values.size() > wanted;
  for (std::size_t k = wanted; k < values.size(); ++k) {
    if (values[k] != 0.0) return strict_why;
  }
  std::string how;
  if (commas) how = "commas between the numbers";
  for (const std::string& word : stray_dots) how += (how.empty() ? "" : ", ") + ("a stray '.' after '" + word.substr(0, word.size() - 1) + "'");
  if (extra_zeros) {
    how += (how.empty() ? "" : ", ") + std::to_string(values.size() - wanted) + " extra zero" + (values.size() - wanted > 1 ? "s" : "") +
           " after the " + std::to_string(count) + (count == 1 ? " number" : " numbers");
  }
  std::copy(values.begin(), values.begin() + count, out);
  std::string read_as;
  for (int k = 0; k < count; ++k) {
    char buffer[32];  // the shortest text that reads back as the same double
    const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof buffer, out[k]);
    read_as += (k ? " " : "") + std::string(buffer, r.ptr);
  }
  note = "not URDF's number syntax (" + how + "): read as \"" + read_as + "\"";
  return "";
}

}  // namespace abdyn::internal
