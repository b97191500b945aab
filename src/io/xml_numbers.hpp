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

}  // namespace abdyn::internal
