#include "io/xml_numbers.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <system_error>

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

}  // namespace abdyn::internal
