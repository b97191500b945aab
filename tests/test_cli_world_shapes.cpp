#define BOOST_TEST_MODULE cli_world_shapes
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "program.hpp"

// `abdyn simulate` with the world's own collision shapes: a URDF link fixed to the world (a table on the
// root link of tests/models/world_table.urdf) and MJCF worldbody geoms (a box and a concave mesh,
// tests/models/mjcf/world_shapes.xml) collide with the bodies whenever contacts are on, --no-world-shapes
// turns them off, and the summary says which it did and where the lowest point ended. Rest positions are closed forms from the files'
// dimensions (their comments), to 1 mm: the contacts' resting penetration is well under it.

namespace {

using abdyn::test::ProgramRun;
using abdyn::test::RemoveScratch;
using abdyn::test::runProgram;

BOOST_TEST_GLOBAL_FIXTURE(RemoveScratch);

std::string source(const std::string& path) { return std::string(ABDYN_SOURCE_DIR) + "/" + path; }
bool contains(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

// The value of coordinate `name` on the summary's "final q:" line.
double finalCoordinate(const std::string& out, const std::string& name) {
  const std::size_t line = out.find("final q:");
  BOOST_REQUIRE(line != std::string::npos);
  const std::size_t at = out.find(" " + name + "=", line);
  BOOST_REQUIRE(at != std::string::npos && at < out.find('\n', line));
  return std::stod(out.substr(at + name.size() + 2));
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_urdf_link_fixed_to_the_world_stops_the_arm) {
  const std::string file = source("tests/models/world_table.urdf");
  const ProgramRun on = runProgram({"simulate", file, "--ground", "0", "--duration", "1"});
  BOOST_TEST_REQUIRE(on.status == 0, on.err);
  BOOST_TEST(std::abs(finalCoordinate(on.out, "lift") - std::asin(0.3)) <= 1e-3 / 0.4);  // 1 mm at the 0.4 m tip
  BOOST_TEST(contains(on.out, "world shapes:   1 collision shape on the world ('base/collision0') collide with the bodies"),
             on.out);

  const ProgramRun off = runProgram({"simulate", file, "--ground", "0", "--duration", "1", "--no-world-shapes"});
  BOOST_TEST_REQUIRE(off.status == 0, off.err);
  BOOST_TEST(finalCoordinate(off.out, "lift") > 0.6);  // through the table
  BOOST_TEST(contains(off.out, "world shapes:   off (--no-world-shapes)"), off.out);
}

// A URDF file does not say which links may touch the world's shapes: a body overlapping one at the start (the
// arm's ball sunk into the table at lift = 0.4 rad, 0.45 - 0.4 sin(0.4) = 0.294 < 0.3) is left out of them,
// so it swings on through the table, and the summary names it.
BOOST_AUTO_TEST_CASE(a_urdf_body_overlapping_the_world_at_the_start_is_left_out) {
  const ProgramRun r = runProgram({"simulate", source("tests/models/world_table.urdf"), "--ground", "0", "--duration", "1",
                                   "--q0", "lift=0.4"});
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(contains(r.out, "; bodies overlapping them at the start do not: 'arm'"), r.out);
  BOOST_TEST(finalCoordinate(r.out, "lift") > 0.6);
}

BOOST_AUTO_TEST_CASE(mjcf_worldbody_geoms_collide_and_world_meshes_stay_concave) {
  const std::string file = source("tests/models/mjcf/world_shapes.xml");
  const ProgramRun on = runProgram({"simulate", file, "--ground", "0", "--duration", "1.5"});
  BOOST_TEST_REQUIRE(on.status == 0, on.err);
  BOOST_TEST(std::abs(finalCoordinate(on.out, "ball_free[2]") - 0.4) <= 1e-3);     // on the table top 0.35
  BOOST_TEST(std::abs(finalCoordinate(on.out, "brick_free[2]") - 0.415) <= 1e-3);  // on the ledge top 0.375
  BOOST_TEST(std::abs(finalCoordinate(on.out, "pebble_free[2]") - 0.04) <= 1e-3);  // through the L's notch
  BOOST_TEST(contains(on.out, "world shapes:   2 collision shapes on the world ('table', 'ledge')"), on.out);
  // The summary's lowest point: the pebble's and the brick's undersides on the ground, within 1 mm.
  const std::size_t low = on.out.find("lowest point:   ");
  BOOST_TEST_REQUIRE(low != std::string::npos, on.out);
  BOOST_TEST(std::abs(std::stod(on.out.substr(low + 16))) <= 1e-3, on.out.substr(low));

  const ProgramRun off = runProgram({"simulate", file, "--ground", "0", "--duration", "1.5", "--no-world-shapes"});
  BOOST_TEST_REQUIRE(off.status == 0, off.err);
  BOOST_TEST(std::abs(finalCoordinate(off.out, "ball_free[2]") - 0.05) <= 1e-3);  // on the ground
  BOOST_TEST(std::abs(finalCoordinate(off.out, "brick_free[2]") - 0.04) <= 1e-3);
}

BOOST_AUTO_TEST_CASE(the_summary_is_silent_without_world_shapes_and_a_useless_flag_is_named) {
  // No contacts: the world's shapes play no part and the summary does not mention them.
  const ProgramRun none = runProgram({"simulate", source("tests/models/world_table.urdf"), "--duration", "0.01"});
  BOOST_TEST_REQUIRE(none.status == 0, none.err);
  BOOST_TEST(!contains(none.out, "world shapes:"));
  // A floating model has no shape on the world: the flag would do nothing, and a warning says so.
  const ProgramRun floating = runProgram({"simulate", source("models/quadruped.urdf"), "--floating", "--ground", "0",
                                          "--duration", "0.01", "--no-world-shapes"});
  BOOST_TEST_REQUIRE(floating.status == 0, floating.err);
  BOOST_TEST(!contains(floating.out, "world shapes:"));
  BOOST_TEST(contains(floating.err, "--no-world-shapes: model 'quadruped' has no collision shape on the world"), floating.err);
}
