#pragma once
// Numbers in XML attribute values, as URDF writes them: decimal floating point ("1", "-0.5", "2.5e-3",
// a leading '+' allowed), separated by white space. Read with std::from_chars, which ignores the
// process's locale (a German locale must not turn "0.5" into 0), like urdfdom's classic-locale streams.
// A value that underflows (1e-400) reads as zero; one that overflows (1e400), "nan", "inf" and anything
// that is not a number are refused: every number abdyn reads from a URDF must be finite.

#include <string>

namespace abdyn::internal {

/// XML's white space (the XML 1.0 S production): space, tab, newline, carriage return.
inline bool isXmlSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// Reads exactly `count` numbers from `text` into `out`. Returns "" on success, otherwise what is
/// wrong, naming the offending word and the count ("'abc' is not a number", "expected 3 numbers, found
/// 2"), for the caller to prefix with the element and attribute.
std::string parseNumbers(const char* text, double* out, int count);

/// parseNumbers, and when it refuses the text, the loose spellings whose meaning is still plain: commas
/// followed by white space between the numbers ("0.07, 0, -0.69"; "1,5" may be a decimal comma), a stray '.' after a number that has its decimal point
/// ("-1.57."), extra numbers after the `count`-th that are all zero ("-3.14159 1.57079 0 0"), and a
/// roslaunch substitution xacro left in place, "$(optenv NAME 0.19 0 0.149)", read as its default. Returns
/// "" when the text reads either way, with `note` empty or saying what was assumed and the numbers read;
/// otherwise parseNumbers's complaint.
std::string parseNumbersLoosely(const char* text, double* out, int count, std::string& note);

}  // namespace abdyn::internal
