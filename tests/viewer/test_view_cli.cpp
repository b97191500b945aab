#define BOOST_TEST_MODULE view_cli
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"
#include "program.hpp"

// `abdyn view` and `abdyn simulate --html` without a browser: what data.js carries across to the page
// (checked against the library's Model and loop closures and against the files themselves), mesh
// lookup, and the messages for bad arguments. The page itself is tested in Chromium (viewer.test.mjs).

namespace {

namespace fs = std::filesystem;
using namespace abdyn::test;

BOOST_TEST_GLOBAL_FIXTURE(RemoveScratch);

std::string source(const std::string& path) { return std::string(ABDYN_SOURCE_DIR) + "/" + path; }

// data.js is `window.ABDYN_DATA = {...};`: the object is JSON.
nlohmann::json pageData(const fs::path& dir) {
  const std::string js = readFile(dir / "data.js");
  const std::string prefix = "window.ABDYN_DATA = ";
  BOOST_REQUIRE(js.compare(0, prefix.size(), prefix) == 0);
  const std::size_t end = js.rfind(';');
  return nlohmann::json::parse(js.substr(prefix.size(), end - prefix.size()));
}

std::string decodeBase64(const std::string& text) {
  const std::string digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned word = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == '=') break;
    word = (word << 6) | static_cast<unsigned>(digits.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((word >> bits) & 0xffu);
    }
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(view_out_writes_the_model_the_page_needs) {
  const fs::path dir = scratch() / "humanoid";
  const ProgramRun r = runProgram({"view", source("models/humanoid.urdf"), "--floating", "--out", dir.string()});
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(contains(r.out, (dir / "index.html").string()));
  BOOST_TEST(!contains(r.out, "serving"));  // --out alone: written, not served
  for (const char* file : {"index.html", "viewer.js", "viewer.css", "data.js"}) BOOST_TEST(fs::is_regular_file(dir / file), file);

  abdyn::UrdfOptions options;
  options.floating_base = true;
  const abdyn::Model model = abdyn::loadUrdf(source("models/humanoid.urdf"), options);
  const nlohmann::json data = pageData(dir);
  const nlohmann::json& m = data["model"];
  BOOST_TEST(m["name"] == model.name());
  BOOST_TEST(m["floating"] == true);
  BOOST_TEST(m["nq"] == model.nq());
  BOOST_TEST(m["urdf"] == readFile(source("models/humanoid.urdf")));
  BOOST_TEST(data["trajectory"].is_null());
  BOOST_TEST_REQUIRE(m["joints"].size() == static_cast<std::size_t>(model.nbodies() - 1));
  for (int i = 1; i < model.nbodies(); ++i) {
    const nlohmann::json& j = m["joints"][i - 1];
    BOOST_TEST(j["name"] == model.joint(i).name);
    BOOST_TEST(j["idx_q"] == model.joint(i).idx_q);
    BOOST_TEST(j["nq"] == model.joint(i).nq);
    BOOST_TEST(j["type"] == abdyn::jointTypeName(model.joint(i).type));
    if (model.joint(i).nv == 1) {
      // the page turns a revolute joint about `axis`: it must be S's angular column
      const Eigen::Matrix<double, 6, Eigen::Dynamic> S = model.joint(i).motionSubspace();
      for (int k = 0; k < 3; ++k) BOOST_TEST(j["axis"][k].get<double>() == S(k, 0), model.joint(i).name);
    }
  }
  BOOST_TEST(m["joints"][0]["name"] == "root_joint");
}

BOOST_AUTO_TEST_CASE(view_carries_loop_joints_and_the_trajectory) {
  const fs::path csv = scratch() / "four_bar.csv";
  ProgramRun r = runProgram({"simulate", source("models/four_bar.urdf"), "--q0", "0.7,-0.3,1.1", "--duration", "0.05", "--csv", csv.string()});
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const fs::path dir = scratch() / "four_bar";
  r = runProgram({"view", source("models/four_bar.urdf"), "--csv", csv.string(), "--out", dir.string()});
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const nlohmann::json data = pageData(dir);
  BOOST_TEST(data["trajectory"]["name"] == "four_bar.csv");
  // A bundled model by its name writes the same model.
  const fs::path by_name = scratch() / "four_bar_by_name";
  r = runProgram({"view", "four_bar", "--out", by_name.string()});
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(pageData(by_name)["model"]["urdf"] == data["model"]["urdf"]);
  BOOST_TEST(data["trajectory"]["text"] == readFile(csv));

  const abdyn::Model model = abdyn::loadUrdf(source("models/four_bar.urdf"));
  const abdyn::ConstraintSet loops = abdyn::loadUrdfLoops(source("models/four_bar.urdf"), model);
  const nlohmann::json& drawn = data["model"]["loops"];
  BOOST_TEST_REQUIRE(drawn.size() == loops.loops.size());
  for (std::size_t k = 0; k < loops.loops.size(); ++k) {
    const abdyn::LoopClosure& loop = loops.loops[k];
    BOOST_TEST(drawn[k]["name"] == loop.name);
    BOOST_TEST(drawn[k]["link_a"] == (loop.body_a ? model.bodyName(loop.body_a) : "world"));
    BOOST_TEST(drawn[k]["link_b"] == (loop.body_b ? model.bodyName(loop.body_b) : "world"));
    for (int c = 0; c < 3; ++c) {
      BOOST_TEST(drawn[k]["p_a"][c].get<double>() == loop.p_a[c]);
      BOOST_TEST(drawn[k]["p_b"][c].get<double>() == loop.p_b[c]);
    }
  }
}

BOOST_AUTO_TEST_CASE(view_embeds_the_meshes_it_finds_and_lists_the_others) {
  const fs::path dir = scratch() / "mesh";
  const ProgramRun r = runProgram({"view", source("tests/viewer/mesh_robot.urdf"), "--out", dir.string()});
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(contains(r.out, "meshes not found"));
  const nlohmann::json data = pageData(dir);
  const std::string stl = readFile(source("tests/viewer/meshes/wedge.stl"));
  // a relative path and package://viewer/... (the URDF's own folder is named viewer) find the same file
  for (const char* name : {"meshes/wedge.stl", "package://viewer/meshes/wedge.stl"}) {
    BOOST_TEST_REQUIRE(data["model"]["meshes"].contains(name), name);
    BOOST_TEST(decodeBase64(data["model"]["meshes"][name]["base64"]) == stl, name);
  }
  BOOST_TEST(data["model"]["missing_meshes"] ==
             nlohmann::json({"meshes/absent.stl", "package://no_such_package/meshes/hand.dae"}));
  // each missing mesh is a warning naming the places searched
  BOOST_TEST(contains(r.err, "resource 'package://no_such_package/meshes/hand.dae' not found (searched: "));
  // --package NAME=DIR finds a package anywhere
  const fs::path package = scratch() / "package";
  fs::create_directories(package / "meshes");
  fs::copy_file(source("tests/viewer/meshes/wedge.stl"), package / "meshes/hand.dae", fs::copy_options::overwrite_existing);
  const ProgramRun r2 = runProgram({"view", source("tests/viewer/mesh_robot.urdf"), "--out", (scratch() / "mesh2").string(), "--package",
                                    "no_such_package=" + package.string()});
  BOOST_TEST_REQUIRE(r2.status == 0, r2.err);
  BOOST_TEST(pageData(scratch() / "mesh2")["model"]["missing_meshes"] == nlohmann::json({"meshes/absent.stl"}));
  const ProgramRun bad = runProgram({"view", source("tests/viewer/mesh_robot.urdf"), "--out", (scratch() / "mesh3").string(), "--package", "x"});
  BOOST_TEST(bad.status != 0);
  BOOST_TEST(contains(bad.err, "NAME=DIR"));
}

BOOST_AUTO_TEST_CASE(simulate_html_writes_the_page_and_its_trajectory) {
  const fs::path dir = scratch() / "sim";
  const ProgramRun r = runProgram({"simulate", source("models/double_pendulum.urdf"), "--duration", "0.01", "--html", dir.string()});
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(fs::is_regular_file(dir / "index.html"));
  BOOST_TEST(pageData(dir)["trajectory"]["text"] == readFile(dir / "trajectory.csv"));
  // with --csv the trajectory goes where --csv says, and the page carries it too
  const fs::path csv = scratch() / "sim.csv";
  const ProgramRun r2 = runProgram({"simulate", source("models/double_pendulum.urdf"), "--duration", "0.01", "--csv", csv.string(),
                                    "--html", (scratch() / "sim2").string()});
  BOOST_TEST_REQUIRE(r2.status == 0, r2.err);
  BOOST_TEST(pageData(scratch() / "sim2")["trajectory"]["text"] == readFile(csv));
}

BOOST_AUTO_TEST_CASE(bad_arguments_are_refused_with_a_message) {
  const std::string pendulum = source("models/double_pendulum.urdf");
  const std::string out = (scratch() / "bad").string();
  // Trajectory files that do not fit the double pendulum (its CSV: t, q:joint1, q:joint2, v:joint1,
  // v:joint2, kinetic, potential).
  const auto csv = [](const std::string& name, const std::string& text) {
    std::ofstream(scratch() / name) << text;
    return (scratch() / name).string();
  };
  const std::string header = "t,q:joint1,q:joint2,v:joint1,v:joint2,kinetic,potential\n";
  const std::string empty = csv("empty.csv", "");
  const std::string other = csv("other.csv", "t,q:a,v:a,kinetic,potential\n0,1,2,3,4\n");
  const std::string short_row = csv("short.csv", header + "0,0,0,0,0,0,0\n0.1,0,0,0\n");
  const std::string nan = csv("nan.csv", header + "0,0,nan,0,0,0,0\n");
  const std::string text = csv("text.csv", header + "0,0,0,0,0,0,x\n");
  const std::string no_rows = csv("header.csv", header);
  const std::vector<Refusal> cases = {
      {{"view"}, 2, "missing MODEL.urdf"},
      {{"view", pendulum, "--bogus"}, 2, "unknown option '--bogus'"},
      {{"view", pendulum, "--port", "70000"}, 2, "--port expects 0 to 65535, got '70000'"},
      {{"view", pendulum, "--port", "8.5"}, 2, "--port expects 0 to 65535"},
      {{"view", pendulum, "--port"}, 2, "--port needs a value"},
      {{"view", pendulum, "--ground", "nan"}, 2, "--ground expects a finite number"},
      {{"view", pendulum, "--out", ""}, 2, "--out needs a folder"},
      {{"view", pendulum, pendulum}, 2, "unexpected argument"},
      {{"view", "/nonexistent/robot.urdf", "--out", out}, 1, "/nonexistent/robot.urdf"},
      {{"view", pendulum, "--csv", "/nonexistent/run.csv", "--out", out}, 1, "cannot read trajectory '/nonexistent/run.csv'"},
      {{"view", pendulum, "--csv", empty, "--out", out}, 1, "line 1: the file is empty"},
      {{"view", pendulum, "--csv", other, "--out", out}, 1, "line 1: no column 'q:joint1'"},
      {{"view", pendulum, "--csv", short_row, "--out", out}, 1, "line 3: 4 values, but the header has 7 columns"},
      {{"view", pendulum, "--csv", nan, "--out", out}, 1, "line 2: column 'q:joint2' holds 'nan'"},
      {{"view", pendulum, "--csv", text, "--out", out}, 1, "line 2: column 'potential' holds 'x'"},
      {{"view", pendulum, "--csv", no_rows, "--out", out}, 1, "the header is not followed by any rows"},
      // Served (no --out) from a temporary folder: an error removes the folder again (see below).
      {{"view", pendulum, "--csv", nan, "--port", "0"}, 1, "line 2: column 'q:joint2' holds 'nan'"},
      {{"view", source("models/humanoid.urdf"), "--floating", "--out", "/proc/no/such/dir"}, 1, "/proc/no/such/dir"},
  };
  for (const Refusal& c : cases) checkRefusal(c);
}

// `view` without --out serves from a folder under the temporary directory: the folder is gone after
// Ctrl-C (the program then ends as SIGINT ends it), SIGTERM, and an error before serving.
BOOST_AUTO_TEST_CASE(view_removes_its_temporary_folder) {
  const fs::path tmp = scratch() / "tmpdir";
  fs::create_directories(tmp);
  const fs::path out = scratch() / "serving";
  const std::string pendulum = source("models/double_pendulum.urdf");
  for (const int stop : {SIGINT, SIGTERM}) {
    std::cout.flush();  // what the test has buffered must not be written again by the child
    std::fflush(stdout);
    const pid_t pid = ::fork();
    BOOST_REQUIRE(pid >= 0);
    if (pid == 0) {
      ::setenv("TMPDIR", tmp.c_str(), 1);
      if (!std::freopen(out.c_str(), "w", stdout)) std::_Exit(127);
      ::execl(ABDYN_APP_PATH, ABDYN_APP_PATH, "view", pendulum.c_str(), "--port", "0", static_cast<char*>(nullptr));
      std::_Exit(127);
    }
    // Up to 60 s for the page to be written and served (the machine may be busy).
    bool serving = false;
    for (int k = 0; k < 600 && !serving; ++k) {
      ::usleep(100000);
      serving = contains(readFile(out), "serving http://127.0.0.1:");
    }
    BOOST_TEST(serving, readFile(out));
    BOOST_TEST(std::distance(fs::directory_iterator(tmp), fs::directory_iterator()) == 1);  // the page's folder
    ::kill(pid, stop);
    int status = 0;
    BOOST_REQUIRE(::waitpid(pid, &status, 0) == pid);
    BOOST_TEST((WIFSIGNALED(status) && WTERMSIG(status) == stop), "status " << status);
    BOOST_TEST(fs::is_empty(tmp), "left behind in " << tmp);
  }
  ::setenv("TMPDIR", tmp.c_str(), 1);  // for the program std::system starts
  const ProgramRun r = runProgram({"view", pendulum, "--csv", "/nonexistent/run.csv", "--port", "0"});
  ::unsetenv("TMPDIR");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(fs::is_empty(tmp));
}

// An MJCF file: the page draws it from URDF text written for it (app/display_urdf.hpp), one link per
// body and one joint per joint of the model, every geom a visual; the mesh files embedded, the shapes
// URDF has no element for drawn from ones it has (a capsule as a cylinder and two spheres, an ellipsoid
// as the unit sphere mesh scaled, a mesh given as data as its triangles).
BOOST_AUTO_TEST_CASE(view_draws_mjcf_files) {
  const fs::path xml = scratch() / "shapes.xml";
  std::ofstream(xml) << "<mujoco><asset><mesh name='w' file='" << source("tests/models/mjcf/meshes/wedge.obj")
                     << "'/><mesh name='t' vertex='0 0 0 1 0 0 0 1 0 0 0 1'/></asset><worldbody>"
                     << "<body name='a' pos='0 0 1'><joint name='ball' type='ball'/><geom type='capsule' size='0.1 0.2'/>"
                     << "<body name='b' pos='0 0 -0.5'><joint name='hinge' axis='0 1 0'/><geom type='ellipsoid' size='0.1 0.2 0.3'/>"
                     << "<geom type='mesh' mesh='w'/><geom type='mesh' mesh='t' contype='0' conaffinity='0'/></body></body>"
                     << "</worldbody></mujoco>";
  const fs::path dir = scratch() / "mjcf";
  const ProgramRun r = runProgram({"view", xml.string(), "--out", dir.string()});
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const nlohmann::json data = pageData(dir);
  const std::string urdf = data["model"]["urdf"];
  const abdyn::Model model = abdyn::loadMjcf(xml.string());
  BOOST_TEST(data["model"]["joints"].size() == static_cast<std::size_t>(model.nbodies() - 1));
  for (int i = 1; i < model.nbodies(); ++i) {
    BOOST_TEST(contains(urdf, "<joint name=\"" + model.joint(i).name + "\""), model.joint(i).name);
    BOOST_TEST(contains(urdf, "<link name=\"" + model.bodyName(i) + "\">"), model.bodyName(i));
  }
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = urdf.find(what); at != std::string::npos; at = urdf.find(what, at + 1)) ++n;
    return n;
  };
  BOOST_TEST(count("<cylinder radius=\"0.10000000000000001\" length=\"0.40000000000000002\"/>") == 1u);
  BOOST_TEST(count("<sphere radius=\"0.10000000000000001\"/>") == 2u);
  BOOST_TEST(contains(urdf, "<mesh filename=\"abdyn-shapes/unit_sphere.stl\" scale=\"0.10000000000000001 0.20000000000000001 0.29999999999999999\"/>"));
  const nlohmann::json& meshes = data["model"]["meshes"];
  const std::string obj = source("tests/models/mjcf/meshes/wedge.obj");
  BOOST_TEST_REQUIRE(meshes.contains(obj));
  BOOST_TEST(decodeBase64(meshes[obj]["base64"]) == readFile(obj));
  // The generated meshes are binary STL the library reads back: the sphere, and the tetrahedron's hull.
  for (const std::string name : {"abdyn-shapes/unit_sphere.stl", "abdyn-shapes/b/geom2.stl"}) {
    BOOST_TEST_REQUIRE(meshes.contains(name), name);
    const abdyn::TriangleMesh m = abdyn::parseStl(decodeBase64(meshes[name]["base64"]), name);
    BOOST_TEST(m.triangles.size() == (name.find("sphere") != std::string::npos ? 1024u : 4u), name);
  }
  BOOST_TEST(data["model"]["missing_meshes"].empty());
}

// The world's own collision shapes (here a table on a fixed base's root link, which has no visual) are drawn
// with the bodies' stand-ins, as the contacts of `abdyn simulate --ground` collide them.
BOOST_AUTO_TEST_CASE(view_draws_the_worlds_collision_shapes) {
  const fs::path dir = scratch() / "world_table";
  const ProgramRun r = runProgram({"view", source("tests/models/world_table.urdf"), "--out", dir.string()});
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const nlohmann::json data = pageData(dir);
  BOOST_TEST(data["model"]["world_visual"] == false);
  std::size_t world = 0;
  for (const nlohmann::json& shape : data["model"]["collision"]) {
    if (shape["body"] != "world") continue;
    ++world;
    BOOST_TEST(shape["shape"] == "box");
    BOOST_TEST(shape["size"] == nlohmann::json::parse("[0.3, 0.3, 0.1]"));
    BOOST_TEST(shape["p"] == nlohmann::json::parse("[0.3, 0, 0.25]"));
  }
  BOOST_TEST(world == 1u);
}
