#define BOOST_TEST_MODULE cli
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "program.hpp"

// The `abdyn` program, run as a user runs it: exit codes, the summary, the CSV layout and the error
// messages for bad arguments. The CSV is checked against the library (joint names and sizes from the
// Model, energies recomputed from the CSV's q and v).

namespace {

namespace fs = std::filesystem;
using namespace abdyn::test;

std::string model(const std::string& name) { return std::string(ABDYN_SOURCE_DIR) + "/models/" + name + ".urdf"; }

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::stringstream s(line);
  for (std::string item; std::getline(s, item, sep);) out.push_back(item);
  return out;
}

// A CSV file the program wrote: its header's columns and its rows' cells.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// Runs the program on `args` plus --csv scratch()/`file`, requires exit status 0, and reads the CSV.
std::pair<ProgramRun, Csv> simulateToCsv(std::vector<std::string> args, const std::string& file) {
  const fs::path csv = scratch() / file;
  args.insert(args.end(), {"--csv", csv.string()});
  const ProgramRun r = runProgram(args);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  Csv table;
  std::ifstream in(csv);
  std::string line;
  if (std::getline(in, line)) table.header = split(line, ',');
  while (std::getline(in, line)) table.rows.push_back(split(line, ','));
  return {r, table};
}

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(RemoveScratch);

// Every bundled model simulates from its neutral configuration, fixed and floating base. The floating
// pendulum, double pendulum and cart-pole hang a single 1-DoF body under a massless root, so their
// floating-base mass matrix is singular: the program refuses them up front (a usage error) and says why.
BOOST_AUTO_TEST_CASE(simulate_every_bundled_model) {
  const std::vector<std::string> names = {"pendulum", "double_pendulum", "cartpole", "iiwa7", "quadruped", "humanoid"};
  const std::vector<std::string> singular_when_floating = {"pendulum", "double_pendulum", "cartpole"};
  for (const std::string& name : names) {
    for (const bool floating : {false, true}) {
      std::vector<std::string> args = {"simulate", model(name), "--duration", "0.05", "--dt", "0.001"};
      if (floating) args.push_back("--floating");
      const ProgramRun r = runProgram(args);
      const bool singular = floating && std::count(singular_when_floating.begin(), singular_when_floating.end(), name) > 0;
      if (singular) {
        // The loader gives a kinematic model; the program refuses it up front (a usage error) and says why.
        BOOST_TEST(r.status == 2, name << " floating: exit " << r.status);
        BOOST_TEST(contains(r.err, "is massless"), name << " floating: " << r.err);
        BOOST_TEST(contains(r.err, "singular"), name << " floating: " << r.err);
        BOOST_TEST(contains(r.err, "without --floating"), name << " floating: " << r.err);
        continue;
      }
      BOOST_TEST(r.status == 0, name << (floating ? " floating" : "") << ": exit " << r.status << "\n" << r.err);
      BOOST_TEST(contains(r.out, "50 steps"), r.out);
      BOOST_TEST(contains(r.out, "energy:"), r.out);
      BOOST_TEST(!contains(r.out, "nan"), r.out);
    }
  }
}

// --csv writes t, q:<joint> (suffixed [k] for multi-coordinate joints), v:<joint>, kinetic, potential,
// one row at t = 0 and one per step. The energy columns agree with the library's energies at the CSV's own q and v, and
// the double pendulum conserves energy (RK4 at 1 ms over 1 s: 1e-6 relative).
BOOST_AUTO_TEST_CASE(csv_layout_and_energy) {
  const fs::path csv = scratch() / "humanoid.csv";
  const ProgramRun r = runProgram({"simulate", model("humanoid"), "--floating", "--duration", "0.02", "--csv", csv.string()});
  BOOST_REQUIRE(r.status == 0);
  abdyn::UrdfOptions options;
  options.floating_base = true;
  const abdyn::Model m = abdyn::loadUrdf(model("humanoid"), options);
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(line, ',');
  BOOST_REQUIRE(static_cast<int>(header.size()) == 1 + m.nq() + m.nv() + 2);
  BOOST_TEST(header[0] == "t");
  BOOST_TEST(header[1] == "q:root_joint[0]");
  BOOST_TEST(header[7] == "q:root_joint[6]");
  BOOST_TEST(header[1 + m.nq()] == "v:root_joint[0]");
  BOOST_TEST(header[header.size() - 2] == "kinetic");
  BOOST_TEST(header.back() == "potential");
  for (int i = 2; i < m.nbodies(); ++i) {
    const abdyn::Joint& j = m.joint(i);
    if (j.nq == 1) BOOST_TEST(header[1 + j.idx_q] == "q:" + j.name);
    if (j.nv == 1) BOOST_TEST(header[1 + m.nq() + j.idx_v] == "v:" + j.name);
  }
  abdyn::Data data(m);
  int rows = 0;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split(line, ',');
    BOOST_REQUIRE(cells.size() == header.size());
    Eigen::VectorXd x(cells.size());
    for (size_t c = 0; c < cells.size(); ++c) x[static_cast<Eigen::Index>(c)] = std::stod(cells[c]);
    BOOST_TEST(x[0] == rows * 0.001, boost::test_tools::tolerance(1e-12));
    ++rows;
    Eigen::VectorXd q = x.segment(1, m.nq());
    const Eigen::VectorXd v = x.segment(1 + m.nq(), m.nv());
    abdyn::normalize(m, q);  // the CSV holds 12 significant digits
    const double kinetic = abdyn::kineticEnergy(m, data, q, v), potential = abdyn::potentialEnergy(m, data, q);
    BOOST_TEST(std::abs(x[x.size() - 2] - kinetic) <= 1e-9 * (1.0 + std::abs(kinetic)));
    BOOST_TEST(std::abs(x[x.size() - 1] - potential) <= 1e-9 * (1.0 + std::abs(potential)));
  }
  BOOST_TEST(rows == 21);

  const fs::path csv2 = scratch() / "double_pendulum.csv";
  BOOST_REQUIRE(runProgram({"simulate", model("double_pendulum"), "--q0", "1.5,-0.5", "--duration", "1", "--csv", csv2.string()}).status == 0);
  std::ifstream in2(csv2);
  std::getline(in2, line);
  std::vector<double> energy;
  while (std::getline(in2, line)) {
    const std::vector<std::string> cells = split(line, ',');
    energy.push_back(std::stod(cells[cells.size() - 2]) + std::stod(cells.back()));
  }
  BOOST_REQUIRE(energy.size() == 1001u);
  BOOST_TEST(std::abs(energy.back() - energy.front()) <= 1e-6 * std::abs(energy.front()));
}

// --integrator and --substeps: every integrator runs the pendulum from 1 rad for 2 s; the energy drift
// (from the CSV) of explicit Euler exceeds semi-implicit Euler's, which exceeds implicit midpoint's, and
// four sub-steps of explicit Euler drift less than one (first order: about 4x less).
BOOST_AUTO_TEST_CASE(integrators_and_substeps) {
  const auto drift = [](const std::vector<std::string>& extra) {
    const fs::path csv = scratch() / "pendulum.csv";
    std::vector<std::string> args = {"simulate", model("pendulum"), "--q0", "1.0", "--duration", "2", "--dt", "0.01",
                                     "--csv", csv.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProgramRun r = runProgram(args);
    BOOST_REQUIRE(r.status == 0);
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    double first = 0.0, worst = 0.0;
    for (int row = 0; std::getline(in, line); ++row) {
      const std::vector<std::string> cells = split(line, ',');
      const double energy = std::stod(cells[cells.size() - 2]) + std::stod(cells.back());
      if (row == 0) first = energy;
      worst = std::max(worst, std::abs(energy - first));
    }
    return worst;
  };
  const double explicit_euler = drift({"--integrator", "explicit-euler"});
  const double explicit_euler_4 = drift({"--integrator", "explicit-euler", "--substeps", "4"});
  const double semi_implicit = drift({"--integrator", "semi-implicit-euler"});
  const double midpoint = drift({"--integrator", "implicit-midpoint"});
  const double rk4 = drift({"--integrator", "rk4"});
  BOOST_TEST_MESSAGE("pendulum energy drift: explicit Euler " << explicit_euler << " (4 sub-steps " << explicit_euler_4
                     << "), semi-implicit " << semi_implicit << ", midpoint " << midpoint << ", RK4 " << rk4);
  BOOST_TEST(explicit_euler > semi_implicit);
  BOOST_TEST(semi_implicit > midpoint);
  BOOST_TEST(explicit_euler_4 < 0.4 * explicit_euler);
  BOOST_TEST(rk4 < 1e-6);
}

// --ground and --limits: the floating humanoid starts at rest in its neutral pose 2 cm above the ground
// (its feet reach 0.93 m below the pelvis) and stands on it; it has joint damping, so the default step
// is implicit-damping. The CSV gains iterations, residual,
// constraint_error and contacts; after 0.5 s there are contacts, no NaN, and penetration below 1 mm.
BOOST_AUTO_TEST_CASE(ground_and_limits_add_statistics) {
  const fs::path csv = scratch() / "ragdoll.csv";
  const ProgramRun r = runProgram({"simulate", model("humanoid"), "--floating", "--ground", "-0.95", "--limits", "--duration", "0.5",
                                   "--dt", "0.002", "--csv", csv.string()});
  BOOST_REQUIRE(r.status == 0);
  BOOST_TEST(contains(r.out, "implicit-damping, joint limits, ground at z = -0.95"), r.out);
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(line, ',');
  BOOST_REQUIRE(header.size() >= 4u);
  BOOST_TEST(header[header.size() - 4] == "iterations");
  BOOST_TEST(header[header.size() - 1] == "contacts");
  std::vector<std::string> last;
  while (std::getline(in, line)) last = split(line, ',');
  BOOST_REQUIRE(last.size() == header.size());
  BOOST_TEST(std::stoi(last.back()) > 0);
  BOOST_TEST(std::stod(last[last.size() - 2]) < 1e-3);
  BOOST_TEST(!contains(r.out, "nan"));
}

// --srdf: the bodies collide with each other too, but the pairs the file disables. The humanoid's shapes
// overlap in its neutral pose wherever a link without shapes lies between two that have them (pelvis and
// thighs across the hip's yaw and roll links) and where the arms hang against the trunk and thighs: the file
// disables those pairs, as a generated SRDF would ("Default" pairs, in collision in the default pose).
// The floating humanoid then stands on the ground, no NaN, with the body contacts counted.
BOOST_AUTO_TEST_CASE(srdf_adds_body_contacts) {
  const fs::path srdf = scratch() / "humanoid.srdf";
  const char* const pairs[][2] = {
      {"pelvis", "left_thigh"},         {"pelvis", "right_thigh"},         {"pelvis", "left_forearm"},
      {"pelvis", "right_forearm"},      {"left_thigh", "left_forearm"},    {"right_thigh", "right_forearm"},
      {"left_thigh", "left_hand"},      {"right_thigh", "right_hand"},     {"abdomen", "left_upper_arm"},
      {"abdomen", "left_forearm"},      {"abdomen", "right_upper_arm"},    {"abdomen", "right_forearm"},
      {"torso", "left_upper_arm"},      {"torso", "right_upper_arm"}};
  {
    std::ofstream out(srdf);
    out << "<robot name=\"humanoid\">\n";
    for (const auto& p : pairs) out << "  <disable_collisions link1=\"" << p[0] << "\" link2=\"" << p[1] << "\" reason=\"Default\"/>\n";
    out << "</robot>\n";
  }
  const fs::path csv = scratch() / "srdf.csv";
  const ProgramRun r = runProgram({"simulate", model("humanoid"), "--floating", "--ground", "-0.95", "--srdf", srdf.string(),
                                   "--duration", "0.3", "--dt", "0.002", "--csv", csv.string()});
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  std::ifstream in(csv);
  std::string line;
  std::vector<std::string> last;
  while (std::getline(in, line)) last = split(line, ',');
  BOOST_REQUIRE(!last.empty());
  BOOST_TEST(std::stoi(last.back()) > 0);                 // the feet on the ground
  BOOST_TEST(std::stod(last[last.size() - 2]) < 1e-3);    // penetration
  BOOST_TEST(!contains(r.out, "nan"), r.out);
}

BOOST_AUTO_TEST_CASE(info_lists_every_body) {
  const ProgramRun r = runProgram({"info", model("iiwa7")});
  BOOST_REQUIRE(r.status == 0);
  const abdyn::Model m = abdyn::loadUrdf(model("iiwa7"));
  BOOST_TEST(contains(r.out, "nv = " + std::to_string(m.nv())));
  for (int i = 1; i < m.nbodies(); ++i) BOOST_TEST(contains(r.out, m.bodyName(i) + "  (joint " + m.joint(i).name), m.bodyName(i));
}

// Bad arguments: a message on stderr naming what is wrong, nothing on stdout, exit code 2 for usage
// errors and 1 for errors in the input files.
BOOST_AUTO_TEST_CASE(bad_arguments_get_clear_messages) {
  const fs::path dir = scratch();
  const fs::path broken = dir / "broken.urdf";
  std::ofstream(broken) << "<robot name=\"r\"><link name=\"a\"/><joint name=\"j\" type=\"revolute\"><parent link=\"a\"/>"
                           "<child link=\"missing\"/></joint></robot>";
  const fs::path unknown_link = dir / "unknown_link.srdf";
  std::ofstream(unknown_link) << "<robot name=\"humanoid\"><disable_collisions link1=\"pelvis\" link2=\"nowhere\"/></robot>";
  const fs::path not_srdf = dir / "not_srdf.srdf";
  std::ofstream(not_srdf) << "<robot><disable_collisions link1=\"pelvis\"/></robot>";
  const std::vector<Refusal> cases = {
      {{}, 2, "missing command"},
      {{"fly", model("pendulum")}, 2, "unknown command 'fly'"},
      {{"simulate"}, 2, "missing MODEL.urdf"},
      {{"simulate", model("pendulum"), "--bogus"}, 2, "unknown option '--bogus'"},
      {{"simulate", model("pendulum"), "--dt"}, 2, "--dt needs a value"},
      {{"simulate", model("pendulum"), "--dt", "abc"}, 2, "--dt expects a finite number, got 'abc'"},
      {{"simulate", model("pendulum"), "--dt", "-0.1"}, 2, "--dt expects a positive number"},
      {{"simulate", model("pendulum"), "--duration", "nan"}, 2, "--duration expects a finite number"},
      {{"simulate", model("pendulum"), "--duration", "0.001", "--dt", "0.01"}, 2, "--dt must not exceed --duration"},
      {{"simulate", model("double_pendulum"), "--q0", "1.0"}, 2, "--q0 has 1 values, the model has nq = 2"},
      {{"simulate", model("double_pendulum"), "--q0", "1.0,x"}, 2, "--q0 expects a finite number, got 'x'"},
      {{"simulate", model("pendulum"), "extra"}, 2, "unexpected argument 'extra'"},
      {{"simulate", (dir / "nowhere.urdf").string()}, 1, "nowhere.urdf"},
      {{"simulate", broken.string()}, 1, "broken.urdf"},
      {{"info", model("pendulum"), "--duration", "1"}, 2, "unknown option '--duration' for 'info'"},
      {{"simulate", model("pendulum"), "--integrator", "verlet"}, 2, "--integrator expects rk4, explicit-euler"},
      {{"simulate", model("pendulum"), "--duration", "1e16"}, 2, "at most 1e+09 are allowed"},
      {{"simulate", model("pendulum"), "--duration", "0.01", "--csv", "/dev/full"}, 1, "cannot write CSV file '/dev/full'"},
      {{"simulate", model("pendulum"), "--height", "1"}, 2, "--height places a floating base: add --floating"},
      {{"simulate", model("humanoid"), "--floating", "--q0", "root_joint.w=1"}, 2, "--q0 names 'root_joint.w', which is no coordinate"},
      {{"simulate", model("humanoid"), "--floating", "--q0", "left_knee=0.3,1"}, 2, "--q0 mixes named and unnamed values"},
      {{"simulate", model("humanoid"), "--ground", "0"}, 2, "the model starts 0.9275 m below the ground at z = 0"},
      {{"simulate", model("humanoid"), "--floating", "--ground", "0", "--q0", "root_joint.z=0.5"}, 2, "--height 0 puts its lowest point"},
      {{"simulate", model("pendulum"), "--floating"}, 2, "root link 'base' of model 'pendulum' is massless"},
      {{"simulate", model("pendulum"), "--limits", "--no-limits"}, 2, "--limits and --no-limits contradict each other"},
      {{"simulate", model("pendulum"), "--substeps", "0"}, 2, "--substeps expects a positive number"},
      {{"simulate", model("pendulum"), "--substeps", "1.5"}, 2, "--substeps expects a positive integer"},
      {{"simulate", model("pendulum"), "--ground", "low"}, 2, "--ground expects a finite number, got 'low'"},
      {{"simulate", model("pendulum"), "--limits", "--integrator", "rk4"}, 2, "--integrator rk4 cannot enforce them"},
      {{"simulate", model("humanoid"), "--floating", "--srdf", unknown_link.string()}, 1, "no body or link named 'nowhere'"},
      {{"simulate", model("humanoid"), "--floating", "--srdf", not_srdf.string()}, 1, "disable_collisions has no link2"},
      {{"simulate", model("humanoid"), "--floating", "--srdf", (dir / "none.srdf").string()}, 1, "none.srdf: cannot read the SRDF file"},
      {{"simulate", model("pendulum"), "--duration", "0.01", "--csv", (dir / "no_dir" / "x.csv").string()}, 1,
       "cannot write CSV file"},
  };
  for (const Refusal& c : cases) {
    const ProgramRun r = checkRefusal(c);
    BOOST_TEST(r.out.empty(), c.message << ": stdout was\n" << r.out);
  }
}

// Models with loop joints simulate with post-stabilisation: the summary reports the closure, the CSV gains
// a constraint_error column that stays below 1e-9; a start far from any closed configuration is refused
// with a message that points to --q0.
BOOST_AUTO_TEST_CASE(simulate_models_with_loop_joints) {
  const auto [r, table] = simulateToCsv({"simulate", model("four_bar"), "--q0", "0.7,-0.3,1.1", "--duration", "0.5"}, "four_bar.csv");
  BOOST_TEST(contains(r.out, "loop closure:   1 loop joint(s)"), r.out);
  BOOST_TEST(table.header.back() == "constraint_error");
  for (const std::vector<std::string>& row : table.rows) BOOST_TEST(std::stod(row.back()) < 1e-9);
  BOOST_TEST(table.rows.size() == 501u);
  BOOST_TEST(runProgram({"simulate", model("slider_crank"), "--q0", "1,0,1", "--duration", "0.1"}).status == 0);
  // The five-bar, the delta robot and the welded humanoid close their loops in the neutral configuration
  // (each file says how), so they run without --q0; the summary reports every loop joint.
  const std::vector<std::pair<std::string, int>> closed_models = {{"five_bar", 1}, {"delta_robot", 3}, {"humanoid_welded", 2}};
  for (const auto& [name, loops] : closed_models) {
    const ProgramRun closed = runProgram({"simulate", model(name), "--duration", "0.05"});
    BOOST_TEST(closed.status == 0, name << ": " << closed.err);
    BOOST_TEST(contains(closed.out, "loop closure:   " + std::to_string(loops) + " loop joint(s)"), closed.out);
  }

  // The four-bar's neutral configuration (all links along x) cannot be closed by Gauss-Newton: the program
  // finds a closed one from guesses near it, says so, and starts there.
  const ProgramRun found = runProgram({"simulate", model("four_bar"), "--duration", "0.1"});
  BOOST_TEST(found.status == 0, found.err);
  BOOST_TEST(contains(found.out, "start:          closed loops: the neutral configuration does not close them"), found.out);
  BOOST_TEST(contains(runProgram({"info", model("four_bar")}).out, "closed configuration: the neutral configuration does not"));
  const ProgramRun refused = runProgram({"simulate", model("four_bar"), "--q0", "0,0,0", "--duration", "0.1"});
  BOOST_TEST(refused.status == 1);
  BOOST_TEST(contains(refused.err, "closing its loops"), refused.err);
  BOOST_TEST(contains(refused.err, "--q0"), refused.err);
  // --limits on a loop model: the loops become row joints solved with the limit rows.
  const ProgramRun limits = runProgram({"simulate", model("four_bar"), "--q0", "0.7,-0.3,1.1", "--limits", "--duration", "0.1"});
  BOOST_TEST(limits.status == 0, limits.err);
  BOOST_TEST(contains(limits.out, "(constraint rows with the limits)"), limits.out);
}

// A model whose only constraint is a mimic coupling (follower = 2 leader + 0.5) keeps it in the default
// RK4 run (constrained RK4 with post-stabilisation, as for loop joints), rather than letting the follower
// swing freely; a free integrator is refused for it.
BOOST_AUTO_TEST_CASE(simulate_keeps_mimic_couplings) {
  const fs::path urdf = scratch() / "mimic.urdf";
  {
    std::ofstream out(urdf);
    out << R"(<robot name="mimicked">
  <link name="base"/>
  <link name="a"><inertial><origin xyz="0.5 0 0"/><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><origin xyz="0 0 -0.5"/><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="leader" type="continuous"><parent link="base"/><child link="a"/><axis xyz="0 1 0"/></joint>
  <joint name="follower" type="continuous"><parent link="a"/><child link="b"/><origin xyz="1 0 0"/><axis xyz="0 1 0"/>
    <mimic joint="leader" multiplier="2" offset="0.5"/></joint>
</robot>
)";
  }
  const ProgramRun r = runProgram({"simulate", urdf.string(), "--q0", "0.2,0.9", "--duration", "0.5"});
  BOOST_REQUIRE(r.status == 0);
  BOOST_TEST(contains(r.out, "0 loop joint(s), 1 mimic coupling(s)"), r.out);
  // final q: leader and follower on the coupling (post-stabilised to 1e-12 every step; printed to 6 digits).
  const std::string marker = "final q:";
  const std::size_t at = r.out.find(marker);
  BOOST_REQUIRE(at != std::string::npos);
  // "final q:        leader=x, follower=y"
  std::string line = r.out.substr(at + marker.size(), r.out.find('\n', at) - at - marker.size());
  for (const char* name : {"leader=", "follower="}) line.replace(line.find(name), std::string(name).size(), " ");
  std::replace(line.begin(), line.end(), ',', ' ');
  std::istringstream final_q(line);
  double leader = 0.0, follower = 0.0;
  final_q >> leader >> follower;
  BOOST_TEST(std::abs(follower - (2.0 * leader + 0.5)) < 1e-4, "leader " << leader << ", follower " << follower);
  BOOST_TEST(std::abs(leader - 0.2) > 1e-3);  // it moved: the check above is not of the start
  const ProgramRun euler = runProgram({"simulate", urdf.string(), "--integrator", "explicit-euler", "--duration", "0.1"});
  BOOST_TEST(euler.status == 2);
  BOOST_TEST(contains(euler.err, "mimic couplings step with rk4"), euler.err);
}

// ---------------------------------------------------------------------------------------------------
// abdyn check, and the URDF options of every command.

namespace {

std::string pattern(const std::string& name) { return std::string(ABDYN_SOURCE_DIR) + "/tests/models/patterns/" + name + ".urdf"; }

// The line `abdyn check` printed for a file and a base ("fixed" or "floating"), or "".
std::string checkLine(const std::string& out, const std::string& mode, const std::string& path) {
  for (const std::string& line : split(out, '\n')) {
    if (line.rfind(mode, 0) == 0 && contains(line, " " + path + ": ")) return line;
  }
  return "";
}

}  // namespace

// Over the bundled models: one line per file and base, each agreeing with the library (loaded, a
// kinematic model, or refused; nq and nv), a summary that counts them, and exit status 0: every file loads
// in the modes it was written for (five floating bases do not apply: a massless root link under a
// pendulum or cart-pole, a 'world' that holds its robot itself).
BOOST_AUTO_TEST_CASE(check_the_bundled_models) {
  const std::string folder = std::string(ABDYN_SOURCE_DIR) + "/models";
  const ProgramRun r = runProgram({"check", folder});
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().extension() == ".urdf") files.push_back(entry.path().string());
  }
  BOOST_REQUIRE(!files.empty());
  int loaded[2] = {0, 0}, not_applicable = 0;
  for (const std::string& file : files) {
    for (const bool floating : {false, true}) {
      const std::string line = checkLine(r.out, floating ? "floating" : "fixed", file);
      BOOST_TEST_REQUIRE(!line.empty(), file << (floating ? " floating" : " fixed") << " missing from\n" << r.out);
      abdyn::UrdfOptions options;
      options.floating_base = floating;
      try {
        const abdyn::Model m = abdyn::loadUrdf(file, options);
        BOOST_TEST(contains(line, "nq " + std::to_string(m.nq()) + ", nv " + std::to_string(m.nv())), line);
        if (m.hasDynamics()) {
          ++loaded[floating];
          BOOST_TEST(contains(line, " loaded "), line);
        } else {
          // Only the floating bases over a massless root, which do not apply.
          ++not_applicable;
          BOOST_TEST(floating);
          BOOST_TEST(contains(line, " n/a "), line);
          BOOST_TEST(contains(line, "the root link is massless"), line);
        }
      } catch (const abdyn::Error& e) {
        ++not_applicable;
        BOOST_TEST(floating);
        BOOST_TEST(contains(line, " n/a "), line);
        const std::string message = e.what();
        BOOST_TEST(contains(line, message.substr(file.size() + 2)), line << "\nvs " << message);
      }
    }
  }
  const int n = static_cast<int>(files.size());
  BOOST_TEST(loaded[0] == n);  // every bundled model loads with a fixed base
  BOOST_TEST(not_applicable == 5);
  BOOST_TEST(contains(r.out, "checked " + std::to_string(n) + " files: fixed base " + std::to_string(n) +
                                 " loaded (0 kinematic only), 0 not applicable, 0 refused; floating base " +
                                 std::to_string(loaded[1]) + " loaded (0 kinematic only), " +
                                 std::to_string(not_applicable) + " not applicable, 0 refused"),
             r.out);
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.err.empty(), r.err);  // warnings are counted on the lines, not logged
}

// Over the loader's pattern files, with and without the options; exit status 0 only when all load.
BOOST_AUTO_TEST_CASE(check_the_pattern_files) {
  const std::string folder = std::string(ABDYN_SOURCE_DIR) + "/tests/models/patterns";
  {
    const ProgramRun r = runProgram({"check", folder});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(contains(checkLine(r.out, "fixed", pattern("massless_fingers")),
                        "kinematic " + pattern("massless_fingers") + ": nq 2, nv 2, 2 bodies, no dynamics (massless: 'finger', 'tip'"),
               r.out);
    BOOST_TEST(contains(checkLine(r.out, "floating", pattern("spherical_joint")), "n/a       "), r.out);
    BOOST_TEST(contains(checkLine(r.out, "fixed", pattern("xacro_source")), "it is a xacro source"), r.out);
    BOOST_TEST(contains(checkLine(r.out, "floating", pattern("indefinite_body")), "body 'pole' has an invalid inertia"), r.out);
    BOOST_TEST(contains(checkLine(r.out, "fixed", pattern("triangle_violation")), "loaded    "), r.out);
    BOOST_TEST(contains(checkLine(r.out, "fixed", pattern("triangle_violation")), "mass 1.5 kg, 1 warning"), r.out);
    BOOST_TEST(contains(checkLine(r.out, "floating", pattern("several_patterns")), "nq 8, nv 7, 2 bodies, mass 13.5 kg, 4 warnings"),
               r.out);
    BOOST_TEST(contains(r.out, "checked 28 files: fixed base 26 loaded (2 kinematic only), 0 not applicable, 2 refused; "
                               "floating base 23 loaded (2 kinematic only), 3 not applicable, 2 refused"),
               r.out);
  }
  {
    // The bounds load the fingers; --warnings shows each warning under its file.
    const ProgramRun r = runProgram({"check", folder, "--bound-mass", "0.01", "--bound-inertia", "1e-6", "--warnings"});
    BOOST_TEST(contains(checkLine(r.out, "floating", pattern("massless_fingers")), "loaded    "), r.out);
    BOOST_TEST(contains(r.out, "    warning: link 'plate': principal moments 0.01, 0.01, 0.021 violate the triangle inequality"), r.out);
    BOOST_TEST(contains(r.out, "checked 28 files: fixed base 26 loaded (0 kinematic only), 0 not applicable, 2 refused; "
                               "floating base 26 loaded (0 kinematic only), 0 not applicable, 2 refused"),
               r.out);
    BOOST_TEST(r.status == 1);  // indefinite_body and xacro_source still refused
  }
  {
    const ProgramRun r = runProgram({"check", pattern("triangle_violation"), "--strict"});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(contains(checkLine(r.out, "fixed", pattern("triangle_violation")), "strict"), r.out);
  }
  {
    const ProgramRun r = runProgram({"check", model("iiwa7"), pattern("triangle_violation"), pattern("world_root")});
    BOOST_TEST(r.status == 0, r.out);
    BOOST_TEST(contains(r.out, "checked 3 files: fixed base 3 loaded (0 kinematic only), 0 not applicable, 0 refused; "
                               "floating base 3 loaded (0 kinematic only), 0 not applicable, 0 refused"),
               r.out);
  }
  {
    const ProgramRun r = runProgram({"check", (scratch() / "nowhere.urdf").string()});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(contains(r.out, "nowhere.urdf: cannot read the URDF file: no such file"), r.out);
  }
}

// info and simulate take the same URDF options; info shows the loader's warnings on stderr.
BOOST_AUTO_TEST_CASE(urdf_options_on_every_command) {
  {
    // A kinematic model: info works and says so; simulate refuses it naming the bodies and the options.
    const ProgramRun r = runProgram({"info", pattern("massless_fingers")});
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(contains(r.err, "--bound-mass M --bound-inertia I"), r.err);
    BOOST_TEST(contains(r.out, "dynamics: none, a kinematic model"), r.out);
    const ProgramRun s = runProgram({"simulate", pattern("massless_fingers"), "--duration", "0.01"});
    BOOST_TEST(s.status == 1);
    BOOST_TEST(contains(s.err, "kinematic model without dynamics"), s.err);
    BOOST_TEST(contains(s.err, "'finger', 'tip'"), s.err);
    BOOST_TEST(contains(s.err, "--bound-mass M --bound-inertia I"), s.err);
  }
  {
    const ProgramRun r = runProgram({"info", pattern("massless_fingers"), "--bound-mass", "0.01", "--bound-inertia", "1e-6"});
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(contains(r.out, "finger  (joint finger_joint, prismatic_x, parent world, mass 0.01 kg"), r.out);
  }
  {
    const ProgramRun r = runProgram({"info", pattern("triangle_violation")});
    BOOST_TEST(r.status == 0);
    BOOST_TEST(contains(r.err, "link 'plate': principal moments 0.01, 0.01, 0.021 violate the triangle inequality"), r.err);
    BOOST_TEST(runProgram({"info", pattern("triangle_violation"), "--strict"}).status == 1);
    BOOST_TEST(runProgram({"info", pattern("triangle_violation"), "--balance-inertia", "--strict"}).status == 0);
  }
  {
    const ProgramRun r = runProgram({"simulate", pattern("world_root"), "--floating", "--duration", "0.01"});
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(contains(r.out, "nq = 9, nv = 8"), r.out);
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>> usage = {
      {{"check"}, "missing FILE_OR_FOLDER"},
      {{"check", model("pendulum"), "--floating"}, "unknown option '--floating' for 'check'"},
      {{"check", model("pendulum"), "--bound-mass", "-1"}, "--bound-mass expects a finite number >= 0, got '-1'"},
      {{"info", model("pendulum"), "--bound-inertia"}, "--bound-inertia needs a value"},
  };
  for (const auto& [args, message] : usage) {
    const ProgramRun r = runProgram(args);
    BOOST_TEST(r.status == 2, args.front() << ": exit " << r.status);
    BOOST_TEST(contains(r.err, message), r.err);
  }
}

// The delta robot's info lists its loop joints; a URDF with a mimic joint lists the coupling.
BOOST_AUTO_TEST_CASE(info_lists_loops_and_mimics) {
  const ProgramRun delta = runProgram({"info", model("delta_robot")});
  BOOST_REQUIRE(delta.status == 0);
  BOOST_TEST(std::count(delta.out.begin(), delta.out.end(), '\n') > 3);
  std::size_t loops = 0;
  for (std::size_t at = delta.out.find("loop joint: "); at != std::string::npos; at = delta.out.find("loop joint: ", at + 1)) ++loops;
  BOOST_TEST(loops == 3u, delta.out);
  BOOST_TEST(contains(delta.out, "closed configuration: the neutral configuration closes them"), delta.out);
  const fs::path file = scratch() / "mimic.urdf";
  std::ofstream(file) << R"(<robot name="gripper"><link name="palm"/>
    <link name="left"><inertial><mass value="0.1"/><inertia ixx="1e-4" ixy="0" ixz="0" iyy="1e-4" iyz="0" izz="1e-4"/></inertial></link>
    <link name="right"><inertial><mass value="0.1"/><inertia ixx="1e-4" ixy="0" ixz="0" iyy="1e-4" iyz="0" izz="1e-4"/></inertial></link>
    <joint name="finger" type="prismatic"><parent link="palm"/><child link="left"/><axis xyz="0 1 0"/>
      <limit lower="0" upper="0.04" effort="10" velocity="1"/></joint>
    <joint name="finger_mirror" type="prismatic"><parent link="palm"/><child link="right"/><axis xyz="0 1 0"/>
      <limit lower="-0.04" upper="0" effort="10" velocity="1"/><mimic joint="finger" multiplier="-1" offset="0"/></joint>
    </robot>)";
  const ProgramRun gripper = runProgram({"info", file.string()});
  BOOST_TEST(gripper.status == 0, gripper.err);
  BOOST_TEST(contains(gripper.out, "mimic: finger_mirror = -1 * finger + 0"), gripper.out);
}

BOOST_AUTO_TEST_CASE(version_and_help) {
  const ProgramRun version = runProgram({"--version"});
  BOOST_TEST(version.status == 0);
  BOOST_TEST(version.out == std::string("abdyn ") + ABDYN_VERSION + "\n");
  for (const std::string asked : {"help", "--help"}) {
    const ProgramRun help = runProgram({asked});
    BOOST_TEST(help.status == 0);
    for (const std::string command : {"abdyn info", "abdyn simulate", "abdyn help", "abdyn --version"}) {
      BOOST_TEST(contains(help.out, command), asked << " lists " << command);
    }
  }
}

// A --dt that does not divide --duration ends with a shorter step, exactly at the duration: 0.0105 s at
// 1 ms is 10 whole steps and one of 0.5 ms, and the CSV's last row is at t = 0.0105.
BOOST_AUTO_TEST_CASE(run_ends_exactly_at_the_duration) {
  const auto [r, table] = simulateToCsv({"simulate", model("pendulum"), "--q0", "0.5", "--duration", "0.0105"}, "short.csv");
  BOOST_TEST(contains(r.out, "11 steps of 0.001 s (the last 0.0005 s)"), r.out);
  BOOST_TEST_REQUIRE(table.rows.size() == 12u);
  BOOST_TEST(std::stod(table.rows.back()[0]) == 0.0105);
}

// Placing a floating base: named --q0 entries change the neutral configuration; --height puts the lowest
// collision point that far above the ground; a floating start below the ground is lifted onto it. The
// humanoid's soles are 0.9275 m below its pelvis origin in the neutral configuration (its file's header),
// so the pelvis starts at 0.9275 m + the height.
BOOST_AUTO_TEST_CASE(placing_a_floating_base) {
  const auto firstRow = [](const fs::path& csv) {
    std::ifstream in(csv);
    std::string header, row;
    std::getline(in, header);
    std::getline(in, row);
    const std::vector<std::string> names = split(header, ','), cells = split(row, ',');
    std::vector<std::pair<std::string, double>> out;
    for (std::size_t c = 0; c < names.size() && c < cells.size(); ++c) out.emplace_back(names[c], std::stod(cells[c]));
    return out;
  };
  const auto value = [](const std::vector<std::pair<std::string, double>>& row, const std::string& name) {
    for (const auto& [n, x] : row) if (n == name) return x;
    BOOST_FAIL("no column " << name);
    return 0.0;
  };
  const fs::path csv = scratch() / "placed.csv";
  ProgramRun r = runProgram({"simulate", model("humanoid"), "--floating", "--q0", "root_joint.z=1.2,left_knee=0.3", "--duration", "0.01",
                             "--csv", csv.string()});
  BOOST_REQUIRE(r.status == 0);
  auto row = firstRow(csv);
  BOOST_TEST(value(row, "q:root_joint[2]") == 1.2);
  BOOST_TEST(value(row, "q:left_knee") == 0.3);
  BOOST_TEST(value(row, "q:right_knee") == 0.0);

  r = runProgram({"simulate", model("humanoid"), "--floating", "--ground", "0.5", "--height", "0.1", "--duration", "0.01", "--csv",
                  csv.string()});
  BOOST_REQUIRE(r.status == 0);
  BOOST_TEST(value(firstRow(csv), "q:root_joint[2]") == 0.5 + 0.9275 + 0.1, boost::test_tools::tolerance(1e-9));

  r = runProgram({"simulate", model("humanoid"), "--floating", "--ground", "0", "--duration", "0.05", "--csv", csv.string()});
  BOOST_REQUIRE(r.status == 0);
  BOOST_TEST(contains(r.out, "start:          lifted 0.9275 m so that its lowest point"), r.out);
  BOOST_TEST(value(firstRow(csv), "q:root_joint[2]") == 0.9275, boost::test_tools::tolerance(1e-9));
}

namespace {

// A finger of three 10 g, 5 cm links with joint damping 0.05 N m s/rad: the hinges' decay rates d / I reach
// about 2e4 / s (docs/integrators.md), so explicit RK4 at 1 ms (h d / I about 20, beyond its stability bound 2.785) diverges.
std::string stiffFinger(const std::string& damping = "0.05") {
  std::string urdf = R"(<robot name="finger"><link name="palm"/>)";
  for (int k = 0; k < 3; ++k) {
    const std::string link = "link" + std::to_string(k);
    urdf += "<link name=\"" + link + R"("><inertial><origin xyz="0.025 0 0"/><mass value="0.01"/>
      <inertia ixx="1e-8" ixy="0" ixz="0" iyy="2.08e-6" iyz="0" izz="2.08e-6"/></inertial></link>
      <joint name="hinge)" + std::to_string(k) + R"(" type="continuous"><parent link=")" + (k ? "link" + std::to_string(k - 1) : "palm") +
            R"("/><child link=")" + link + R"("/><origin xyz=")" + (k ? "0.05" : "0") + R"( 0 0"/><axis xyz="0 1 0"/>
      <dynamics damping=")" + damping + R"("/></joint>)";
  }
  return urdf + "</robot>";
}

}  // namespace

// Divergence is reported as divergence: the time, the step, the coordinate that grew and the advice,
// with exit code 1 and no summary; the same model runs with the default (implicit-damping) step. A
// denormal mass gives non-finite dynamics: also a divergence error, never NaN with exit code 0.
BOOST_AUTO_TEST_CASE(divergence_is_reported_as_divergence) {
  const fs::path file = scratch() / "finger.urdf";
  std::ofstream(file) << stiffFinger();
  const ProgramRun rk4 = runProgram({"simulate", file.string(), "--q0", "0.4,0.6,-0.3", "--duration", "1", "--integrator", "rk4"});
  BOOST_TEST(rk4.status == 1);
  BOOST_TEST(rk4.out.empty(), rk4.out);
  for (const std::string part : {"the simulation diverged at t = ", " s (step ", " of 1000): v[", "(joint 'hinge",
                                  "lower --dt (now 0.001)", "use --integrator implicit-damping"}) {
    BOOST_TEST(contains(rk4.err, part), part << " in " << rk4.err);
  }
  BOOST_TEST(!contains(rk4.err, "singular"), rk4.err);
  BOOST_TEST(!contains(rk4.err, "non-finite entries"), rk4.err);
  const ProgramRun implicit = runProgram({"simulate", file.string(), "--q0", "0.4,0.6,-0.3", "--duration", "1"});
  BOOST_TEST(implicit.status == 0, implicit.err);
  BOOST_TEST(contains(implicit.out, "(implicit-damping"), implicit.out);
  BOOST_TEST(!contains(implicit.out, "nan"), implicit.out);

  // With damping 5000 (decay rates about 2e9 / s) adaptive-rk4 would need about 1e6 sub-steps per step:
  // it stops at its budget with its own reason and the advice, not as a divergence.
  const fs::path stiffer = scratch() / "stiffer_finger.urdf";
  std::ofstream(stiffer) << stiffFinger("5000");
  const ProgramRun adaptive = runProgram({"simulate", stiffer.string(), "--q0", "0.4,0.6,-0.3", "--duration", "1", "--integrator", "adaptive-rk4"});
  BOOST_TEST(adaptive.status == 1);
  BOOST_TEST(adaptive.out.empty(), adaptive.out);
  for (const std::string part : {"adaptive-rk4 stopped at t = 0 s (step 1 of 1000): ", "(max_substeps)",
                                 "use --integrator implicit-damping"}) {
    BOOST_TEST(contains(adaptive.err, part), part << " in " << adaptive.err);
  }
  BOOST_TEST(!contains(adaptive.err, "diverged"), adaptive.err);

  const fs::path tiny = scratch() / "tiny.urdf";
  std::ofstream(tiny) << R"(<robot name="tiny"><link name="base"/><link name="bob"><inertial><origin xyz="0 0 -1"/>
    <mass value="1e-310"/><inertia ixx="1e-310" ixy="0" ixz="0" iyy="1e-310" iyz="0" izz="1e-310"/></inertial></link>
    <joint name="hinge" type="continuous"><parent link="base"/><child link="bob"/><axis xyz="0 1 0"/></joint></robot>)";
  const ProgramRun denormal = runProgram({"simulate", tiny.string(), "--q0", "0.5", "--duration", "0.1"});
  BOOST_TEST(denormal.status != 0);
  BOOST_TEST(!contains(denormal.out, "nan"), denormal.out);
  if (denormal.status == 1 && contains(denormal.err, "diverged")) {
    BOOST_TEST(contains(denormal.err, "at t = 0.001 s (step 1 of 100)"), denormal.err);
  }
}

// A file whose default pose is folded into itself (tests/models/mjcf/folded_start.xml: the hand's bar lies 5 cm
// deep across the upper bar, by its dimensions): the summary's start line names the deepest overlapping pair of
// collision shapes and its depth (box against box: the exact 50 mm, to the printed digits); a start where they
// are apart has no such note, and neither has a run without body contacts.
BOOST_AUTO_TEST_CASE(shapes_overlapping_at_the_start_are_named) {
  const std::string file = std::string(ABDYN_SOURCE_DIR) + "/tests/models/mjcf/folded_start.xml";
  const ProgramRun folded = runProgram({"simulate", file, "--limits", "--duration", "0.01"});
  BOOST_TEST_REQUIRE(folded.status == 0, folded.err);
  BOOST_TEST(contains(folded.out, "start:          collision shapes overlap at the start: 'upper_bar' and 'hand_bar' 50 mm deep\n"),
             folded.out);
  const ProgramRun apart = runProgram({"simulate", file, "--limits", "--duration", "0.01", "--q0", "wrist=3.14159"});
  BOOST_TEST_REQUIRE(apart.status == 0, apart.err);
  BOOST_TEST(!contains(apart.out, "overlap"), apart.out);
  const ProgramRun without = runProgram({"simulate", file, "--limits", "--no-body-contacts", "--duration", "0.01"});
  BOOST_TEST_REQUIRE(without.status == 0, without.err);
  BOOST_TEST(!contains(without.out, "overlap"), without.out);
}

// The ginger_robot pattern (tests/models/whip_finger.urdf): an undamped finger with a
// point-mass tip on a heavy falling body whips to hundreds of rad/s. With the defaults (no damping:
// adaptive-rk4) it simulates one second at the default 1 ms step and conserves energy within the
// program's 1e-6 of the energy scale; fixed-step rk4 at 1 ms does not (it diverges or loses energy,
// depending on rounding: the motion is chaotic).
BOOST_AUTO_TEST_CASE(a_whipping_finger_simulates_at_the_default_step) {
  const std::string file = std::string(ABDYN_SOURCE_DIR) + "/tests/models/whip_finger.urdf";
  const ProgramRun r = runProgram({"simulate", file, "--duration", "1"});
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(contains(r.out, "1000 steps of 0.001 s (adaptive-rk4, "), r.out);
  BOOST_TEST(contains(r.out, "error-controlled sub-steps"), r.out);
  BOOST_TEST(contains(r.out, "): conserved (the change is within 1e-6"), r.out);
  const ProgramRun fixed = runProgram({"simulate", file, "--duration", "1", "--integrator", "rk4"});
  BOOST_TEST(!contains(fixed.out, "conserved"), fixed.out);
  if (fixed.status != 0) BOOST_TEST(contains(fixed.err, "the simulation diverged at t = "), fixed.err);
}

// Every bundled model in every mode: models x {fixed, floating} x {plain, --ground 0, --limits}, 0.05 s
// at the default step (short: it runs under the sanitizers too). Each run either simulates (exit 0,
// finite numbers, and an energy statement that matches the energies it prints: "conserved" within 1e-6
// of the stated scale, "dissipated" only if the energy fell, and no energy gained: nothing in these runs
// supplies energy) or is refused up front with a reason (exit 2): ground contacts on loop-joint models,
// a floating base under a massless root link, a fixed base that starts below the ground. A floating
// start below the ground is lifted onto it. Loop-joint models take --limits (their loops become row
// joints).
BOOST_AUTO_TEST_CASE(every_model_in_every_mode) {
  const std::vector<std::string> models = {"pendulum", "double_pendulum", "cartpole", "iiwa7", "quadruped", "humanoid",
                                           "four_bar", "five_bar", "slider_crank", "delta_robot", "humanoid_welded"};
  const std::vector<std::string> loops = {"four_bar", "five_bar", "slider_crank", "delta_robot", "humanoid_welded"};
  const std::vector<std::string> massless_root = {"pendulum", "double_pendulum", "cartpole"};
  // Fixed bases whose geometry reaches below z = 0 in the neutral configuration.
  const std::vector<std::string> below_ground = {"pendulum", "double_pendulum", "cartpole", "quadruped", "humanoid"};
  // Files whose root link is `world`: --floating is the loader's decision (refused today, exit 1).
  const std::vector<std::string> world_root = {"delta_robot", "humanoid_welded"};
  const auto in = [](const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  for (const std::string& name : models) {
    for (const bool floating : {false, true}) {
      for (const std::string mode : {"plain", "ground", "limits"}) {
        std::vector<std::string> args = {"simulate", model(name), "--duration", "0.05"};
        if (floating) args.push_back("--floating");
        if (mode == "ground") args.insert(args.end(), {"--ground", "0"});
        if (mode == "limits") args.push_back("--limits");
        const ProgramRun r = runProgram(args);
        const std::string label = name + (floating ? " floating " : " fixed ") + mode;
        BOOST_TEST_MESSAGE(label << ": exit " << r.status);
        BOOST_TEST(!contains(r.out + r.err, "nan"), label << "\n" << r.out << r.err);
        BOOST_TEST(!contains(r.out, "inf "), label << "\n" << r.out);
        if (floating && in(world_root, name) && r.status == 1) {
          BOOST_TEST(contains(r.err, "root link"), label << ": " << r.err);
          continue;
        }
        std::string refusal;
        if (in(loops, name) && mode == "ground") refusal = "--ground is not available for models with loop joints";
        else if (floating && in(massless_root, name)) refusal = "is massless";
        else if (!floating && mode == "ground" && in(below_ground, name)) refusal = "below the ground at z = 0";
        if (!refusal.empty()) {
          BOOST_TEST(r.status == 2, label << ": exit " << r.status << "\n" << r.err);
          BOOST_TEST(contains(r.err, refusal), label << ": " << r.err);
          BOOST_TEST(r.out.empty(), label << ": " << r.out);
          continue;
        }
        BOOST_TEST(r.status == 0, label << ": exit " << r.status << "\n" << r.err);
        const std::size_t at = r.out.find("energy:");
        BOOST_REQUIRE_MESSAGE(at != std::string::npos, label << ": " << r.out);
        std::stringstream line(r.out.substr(at + 7));
        double E0 = 0.0, E1 = 0.0;
        std::string joule, arrow;
        line >> E0 >> joule >> arrow >> E1;
        const std::string statement = r.out.substr(at, r.out.find('\n', at) - at);
        // The scale the program judged by: at least the energies' size.
        double scale = std::max(std::abs(E0), std::abs(E1));
        const std::size_t scale_at = statement.find("energy scale ");
        if (scale_at != std::string::npos) {
          const double stated = std::stod(statement.substr(scale_at + 13));
          BOOST_TEST(stated >= 0.999 * scale, label << ": " << statement);
          scale = stated;
        }
        const double tolerance = 1.0001e-6 * std::max(scale, 1e-9);
        if (contains(statement, "conserved")) BOOST_TEST(std::abs(E1 - E0) <= tolerance, label << ": " << statement);
        if (contains(statement, "dissipated")) BOOST_TEST(E1 < E0, label << ": " << statement);
        BOOST_TEST(!contains(statement, "gained"), label << ": " << statement);
        BOOST_TEST(E1 <= E0 + tolerance, label << ": " << statement);
        if (floating && mode == "ground" && in(below_ground, name)) BOOST_TEST(contains(r.out, "start:          lifted"), label);
      }
    }
  }
}

// abdyn reduce: the written file is buildReducedModel's model (read back), and mistakes are usage errors.
BOOST_AUTO_TEST_CASE(reduce_writes_the_reduced_model) {
  const fs::path out = scratch() / "reduced.urdf";
  const ProgramRun r = runProgram({"reduce", model("humanoid"), "--floating", "--lock", "left_elbow,right_elbow", "--lock", "waist_yaw",
                                   "--q", "0.5,-0.25,0.1", "--out", out.string()});
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(contains(r.out, "3 joint(s) locked"));
  abdyn::UrdfOptions floating;
  floating.floating_base = true;
  const abdyn::Model full = abdyn::loadUrdf(model("humanoid"), floating);
  Eigen::VectorXd q = abdyn::neutral(full);
  q[full.joint("left_elbow").idx_q] = 0.5;
  q[full.joint("right_elbow").idx_q] = -0.25;
  q[full.joint("waist_yaw").idx_q] = 0.1;
  const abdyn::Model expected = abdyn::buildReducedModel(full, {"left_elbow", "right_elbow", "waist_yaw"}, q);
  const abdyn::Model written = abdyn::loadUrdf(out.string());
  BOOST_TEST(written.nv() == expected.nv());
  BOOST_TEST(written.totalMass() == expected.totalMass(), boost::test_tools::tolerance(1e-12));
  for (int i = 1; i < expected.nbodies(); ++i) BOOST_TEST(written.joint(i).name == expected.joint(i).name);

  const ProgramRun unknown = runProgram({"reduce", model("humanoid"), "--lock", "no_such_joint", "--out", out.string()});
  BOOST_TEST(unknown.status == 2);
  BOOST_TEST(contains(unknown.err, "--lock: model 'humanoid': no joint named 'no_such_joint'"));
  const ProgramRun count = runProgram({"reduce", model("humanoid"), "--lock", "left_elbow", "--q", "1,2", "--out", out.string()});
  BOOST_TEST(count.status == 2);
  BOOST_TEST(contains(count.err, "--q has 2 values, but the locked joints have 1 coordinates"));
  const ProgramRun no_out = runProgram({"reduce", model("humanoid"), "--lock", "left_elbow"});
  BOOST_TEST(no_out.status == 2);
  // A file with loop joints: the tree is written, with a warning that the loops are not.
  const ProgramRun loops = runProgram({"reduce", model("four_bar"), "--lock", "crank", "--out", (scratch() / "four_bar.urdf").string()});
  BOOST_TEST(contains(loops.err, "loop joint(s), which the written URDF does not hold"), loops.err);
}

// Every bundled model runs its default duration (5 s) with the program's default options: the loop
// models with their joints kept to their ranges (--limits is on by default for them), the rest as
// chosen by the model. Each summary names the joints in final q and final v.
BOOST_AUTO_TEST_CASE(bundled_models_run_their_default_duration) {
  for (const auto& entry : fs::directory_iterator(std::string(ABDYN_SOURCE_DIR) + "/models")) {
    if (entry.path().extension() != ".urdf") continue;
    const std::string name = entry.path().stem().string();
    const ProgramRun r = runProgram({"simulate", name});
    BOOST_TEST(r.status == 0, name << ": exit " << r.status << "\n" << r.err);
    BOOST_TEST(contains(r.out, "simulated:      5 s"), name << ": " << r.out);
    BOOST_TEST(!contains(r.out, "nan"), name << ": " << r.out);
    const abdyn::Model m = abdyn::loadUrdf(entry.path().string());
    const abdyn::Joint& first = m.joint(1);
    BOOST_TEST(contains(r.out, "final q:        " + first.name + (first.nq == 1 ? "=" : "[0]=")), name << ": " << r.out);
    BOOST_TEST(contains(r.out, "final v:        " + first.name + (first.nv == 1 ? "=" : "[0]=")), name << ": " << r.out);
  }
}

// --ground on a model with collision shapes the contacts do not collide: one warning on stderr, and the
// summary says so (the pattern's mesh files do not exist, so no hull is loaded for them).
BOOST_AUTO_TEST_CASE(simulate_names_uncollided_shapes) {
  const ProgramRun r = runProgram({"simulate", pattern("mesh_collisions"), "--floating", "--ground", "0", "--duration", "0.05"});
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(contains(r.err, "2 of its 3 collision shapes are not collided by the contacts (2 mesh)"), r.err);
  BOOST_TEST(contains(r.out, "contacts:       model 'mesh_collisions': 2 of its 3 collision shapes"), r.out);
  BOOST_TEST(contains(r.out, "no collidable shape, which pass through the ground and other bodies: 'arm'"), r.out);
}

// The energy statement says what the change comes from only where it is known: RK4 on an undamped arm
// without loops loses energy to its step (and a smaller --dt conserves it); the implicit-damping run
// of a damped model is the damping's work.
BOOST_AUTO_TEST_CASE(energy_statement_names_known_causes) {
  const ProgramRun coarse = runProgram({"simulate", model("double_pendulum"), "--integrator", "rk4", "--dt", "0.02", "--duration", "1",
                                        "--q0", "1.5,0.5"});
  BOOST_TEST(coarse.status == 0, coarse.err);
  BOOST_TEST(contains(coarse.out, "the error of the time step (rk4 at --dt 0.02), which a smaller --dt reduces"), coarse.out);
  BOOST_TEST(!contains(coarse.out, "post-stabilisation"), coarse.out);
  const ProgramRun fine = runProgram({"simulate", model("double_pendulum"), "--integrator", "rk4", "--dt", "0.0005", "--duration", "1",
                                      "--q0", "1.5,0.5"});
  BOOST_TEST(fine.status == 0, fine.err);
  BOOST_TEST(contains(fine.out, "conserved"), fine.out);
}

// An MJCF file: its warnings logged once, its <option timestep> the default step, its gravity, its
// capsule (drawn through the ground: the start, MuJoCo's qpos0, is lifted) on the ground.
BOOST_AUTO_TEST_CASE(mjcf_files_use_their_options_and_geoms) {
  const fs::path xml = scratch() / "capsule.xml";
  std::ofstream(xml) << R"(<mujoco><option timestep="0.005" gravity="0 0 -5"/><worldbody>
    <body name="b" pos="0 0 0"><freejoint/><geom type="capsule" size="0.05 0.1"/></body></worldbody><tendon/></mujoco>)";
  const ProgramRun info = runProgram({"info", xml.string()});
  BOOST_TEST(info.status == 0);
  const std::string all = info.out + info.err;
  const std::string warning = "tendons are not modelled";
  BOOST_TEST(all.find(warning) != std::string::npos);
  BOOST_TEST(all.find(warning) == all.rfind(warning), "the warning is logged more than once: " << all);
  const ProgramRun sim = runProgram({"simulate", xml.string(), "--duration", "0.05"});
  BOOST_TEST(sim.status == 0, sim.err);
  BOOST_TEST(contains(sim.out, "10 steps of 0.005 s"), sim.out);
  BOOST_TEST(contains(sim.out, "gravity  0  0 -5"), sim.out);
  BOOST_TEST(contains(runProgram({"simulate", xml.string(), "--duration", "0.05", "--dt", "0.01"}).out, "5 steps of 0.01 s"));
  const ProgramRun ground = runProgram({"simulate", xml.string(), "--duration", "0.1", "--ground", "0"});
  BOOST_TEST(ground.status == 0, ground.err);
  BOOST_TEST(contains(ground.out, "collision geometry 'b/geom0'"), ground.out);
  const ProgramRun short_run = runProgram({"simulate", xml.string(), "--duration", "0.001"});
  BOOST_TEST(short_run.status != 0);
  BOOST_TEST(contains(short_run.err, "the model's time step (0.005"), short_run.err);
}

// An MJCF file starts from MuJoCo's qpos0 (the pose it draws, hinges at ref) or from a --keyframe.
BOOST_AUTO_TEST_CASE(mjcf_files_start_from_qpos0_or_a_keyframe) {
  const fs::path xml = scratch() / "start.xml";
  std::ofstream(xml) << R"(<mujoco><option gravity="0 0 0"/><worldbody><body name="b" pos="0.5 0 2"><freejoint/>
    <geom size="0.1"/><body name="c" pos="0 0 -0.3"><joint name="h" axis="0 1 0" ref="30"/><geom size="0.05"/></body>
    </body></worldbody><keyframe><key name="up" qpos="0 0 3 1 0 0 0 0.2"/></keyframe></mujoco>)";
  const ProgramRun drawn = runProgram({"simulate", xml.string(), "--duration", "0.01"});
  BOOST_TEST(drawn.status == 0, drawn.err);
  BOOST_TEST(contains(drawn.out, "joint0[0]=0.5, joint0[1]=0, joint0[2]=2,"), drawn.out);
  BOOST_TEST(contains(drawn.out, "h=0.523599"), drawn.out);  // 30 degrees
  const ProgramRun key = runProgram({"simulate", xml.string(), "--duration", "0.01", "--keyframe", "up"});
  BOOST_TEST(key.status == 0, key.err);
  BOOST_TEST(contains(key.out, "joint0[0]=0, joint0[1]=0, joint0[2]=3,"), key.out);
  BOOST_TEST(contains(key.out, "h=0.2"), key.out);
  const ProgramRun bad = runProgram({"simulate", xml.string(), "--keyframe", "down"});
  BOOST_TEST(bad.status != 0);
  BOOST_TEST(contains(bad.err, "--keyframe down: model 'MuJoCo Model' has no such configuration (its configurations: up)"), bad.err);
}

// A loop model whose neutral configuration closes its loops only outside its joints' ranges (a gripper
// finger's five-bar linkage, tests/models/patterns/light_linkage_finger.urdf) starts from a closed
// configuration within them, found from a guess, and simulates its second with both bases, the fixed
// one at rest (nothing but a 7e-6 rad tilt of the linkage's plane drives it).
BOOST_AUTO_TEST_CASE(loop_models_start_within_their_joint_ranges) {
  for (const char* base : {"", "--floating"}) {
    std::vector<std::string> args = {"simulate", pattern("light_linkage_finger"), "--duration", "1"};
    if (*base != '\0') args.push_back(base);
    const ProgramRun r = runProgram(args);
    BOOST_TEST(r.status == 0, r.out << r.err);
    BOOST_TEST(contains(r.out, "closed loops: the neutral configuration closes them only outside the joints' position "
                               "limits; found from a guess near it"),
               r.out);
    if (*base == '\0') BOOST_TEST(contains(r.out, "conserved"), r.out);
  }
}
