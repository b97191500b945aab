#define BOOST_TEST_MODULE xml_limits
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include "abdyn/abdyn.hpp"
#include "test_helpers.hpp"

// Hostile URDF files are refused by a linear pre-scan before urdfdom's or tinyxml2's parser sees them
// (src/io/xml_limits.hpp): 40,000 levels of nesting used to overflow the stack inside urdfdom (the
// process died), and millions of attributes on one element kept the parsers busy for minutes. These tests
// build such files and check that every entry point refuses them with abdyn::Error naming the source and
// the limit. That they are refused by the pre-scan is what keeps them fast: a parser would crash on the
// deep file and take minutes on the wide one (no timed assertion; the suite's own time shows it).

namespace {

const std::string kRobotHead = "<?xml version=\"1.0\"?>\n<robot name=\"hostile\">\n  <link name=\"base\"/>\n";

// 40,000 nested elements inside a link (280 KB, the size of the file that crashed the loader).
std::string deepDocument(int levels) {
  std::string xml = kRobotHead + "  <link name=\"deep\">\n";
  xml.reserve(xml.size() + 7 * static_cast<std::size_t>(levels) + 64);
  for (int k = 0; k < levels; ++k) xml += "<a>";
  for (int k = 0; k < levels; ++k) xml += "</a>";
  return xml + "\n  </link>\n</robot>\n";
}

// One element with `count` attributes (2 million: about 24 MB).
std::string wideDocument(int count) {
  std::string xml = kRobotHead + "  <link name=\"wide\"";
  xml.reserve(xml.size() + 12 * static_cast<std::size_t>(count) + 64);
  for (int k = 0; k < count; ++k) xml += " a" + std::to_string(k) + "=\"0\"";
  return xml + "/>\n</robot>\n";
}

// `count` empty sibling elements inside one link.
std::string manyElementsDocument(int count) {
  std::string xml = kRobotHead + "  <link name=\"many\">";
  xml.reserve(xml.size() + 4 * static_cast<std::size_t>(count) + 64);
  for (int k = 0; k < count; ++k) xml += "<a/>";
  return xml + "</link>\n</robot>\n";
}

void checkRefused(const std::function<void()>& load, const std::string& source, const std::string& limit) {
  abdyn::test::checkError(load, source, {limit}, ": refused before parsing: ");
}

// The string entry points of both loaders, and both file entry points through a temporary file.
void checkEveryEntryRefuses(const std::string& xml, const std::string& limit, const std::string& file_name) {
  checkRefused([&] { abdyn::loadUrdfString(xml); }, "<string>", limit);
  const abdyn::Model pendulum = abdyn::loadUrdf(std::string(ABDYN_SOURCE_DIR) + "/models/pendulum.urdf");
  checkRefused([&] { abdyn::loadUrdfLoopsString(xml, pendulum); }, "<string>", limit);
  const std::string path = abdyn::test::temporaryPath(file_name);
  {
    std::ofstream out(path, std::ios::binary);
    out << xml;
  }
  checkRefused([&] { abdyn::loadUrdf(path); }, path, limit);
  checkRefused([&] { abdyn::loadUrdfLoops(path, pendulum); }, path, limit);
  std::filesystem::remove(path);
}

}  // namespace

BOOST_AUTO_TEST_CASE(deeply_nested_file_is_refused) {
  const std::string xml = deepDocument(40000);
  BOOST_TEST(xml.size() > 250000u);
  checkEveryEntryRefuses(xml, "nested more than 98 levels deep (line 5)", "abdyn_test_deep.urdf");
}

BOOST_AUTO_TEST_CASE(element_with_millions_of_attributes_is_refused) {
  checkEveryEntryRefuses(wideDocument(2000000), "an element has more than 256 attributes", "abdyn_test_wide.urdf");
}

BOOST_AUTO_TEST_CASE(too_many_elements_are_refused) {
  checkRefused([&] { abdyn::loadUrdfString(manyElementsDocument(16000001)); }, "<string>", "more than 16000000 elements");
}

// A file above the size limit is refused from its size alone, before it is read: a sparse file of
// 600 MB costs no disk and no time.
BOOST_AUTO_TEST_CASE(oversized_file_is_refused_before_reading) {
  const std::string path = abdyn::test::temporaryPath("abdyn_test_huge.urdf");
  { std::ofstream out(path, std::ios::binary); }
  std::filesystem::resize_file(path, 600u << 20);
  checkRefused([&] { abdyn::loadUrdf(path); }, path, "more than the limit of 536870912");
  const abdyn::Model pendulum = abdyn::loadUrdf(std::string(ABDYN_SOURCE_DIR) + "/models/pendulum.urdf");
  checkRefused([&] { abdyn::loadUrdfLoops(path, pendulum); }, path, "more than the limit of 536870912");
  std::filesystem::remove(path);
}

// Within the limits nothing changes: nesting, attributes and elements right at the limits, comments,
// CDATA and quoted '>' and '=' that the scan must not count, and every bundled model still load.
BOOST_AUTO_TEST_CASE(documents_within_the_limits_load) {
  const std::string head = "<?xml version=\"1.0\"?>\n<robot name=\"fine\">\n";
  // robot, link and `inner` more levels
  const auto nested = [&head](int inner) {
    std::string xml = head + "  <link name=\"deep\">";
    for (int k = 0; k < inner; ++k) xml += "<a>";
    for (int k = 0; k < inner; ++k) xml += "</a>";
    return xml + "</link>\n</robot>\n";
  };
  BOOST_CHECK_NO_THROW(abdyn::loadUrdfString(nested(96)));                              // 98 levels
  checkRefused([&] { abdyn::loadUrdfString(nested(97)); }, "<string>", "nested more than 98 levels deep");  // 99
  std::string attributes = head + "  <!-- <a b=1 c=2> = = = -->\n  <link name=\"wide\"";
  for (int k = 1; k < 256; ++k) attributes += " a" + std::to_string(k) + "='x=>y'";  // 255 after the name
  attributes += "><![CDATA[<<<===>>>]]></link>\n</robot>\n";
  BOOST_CHECK_NO_THROW(abdyn::loadUrdfString(attributes));
  checkRefused([&] { abdyn::loadUrdfString(std::string(attributes).insert(attributes.find(" a1="), " a0='1'")); }, "<string>",
               "an element has more than 256 attributes");  // one attribute more
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ABDYN_SOURCE_DIR) + "/models")) {
    if (entry.path().extension() == ".urdf") BOOST_CHECK_NO_THROW(abdyn::loadUrdf(entry.path().string()));
  }
  // A random tree of 2,000 links in URDF form: well below the limits, loads as before.
  std::mt19937 rng(3);
  const std::string tree = abdyn::randomTreeUrdf({2000, false, false, true, false}, rng);
  BOOST_TEST(abdyn::loadUrdfString(tree).nbodies() > 1000);
}
