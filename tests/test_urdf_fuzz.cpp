#define BOOST_TEST_MODULE urdf_fuzz
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Eigenvalues>

#include "abdyn/error.hpp"
#include "abdyn/io/urdf.hpp"
#include "abdyn/logging.hpp"

using namespace abdyn;

// Mutates the bundled models at random (fixed seed) and loads each mutant: every one must load into a
// valid Model or throw abdyn::Error, never anything else, never crash or hang.
//
// Size: 500 mutants per model (3000 for the six bundled models). Measured on the 2-core build machine
// while other builds ran: 3.4 s in Release, 28 s (13 s of CPU) under AddressSanitizer + UBSan, so the
// count leaves room for more bundled models within a minute.

namespace {

constexpr int kMutantsPerModel = 500;

struct Span {
  std::size_t begin, end;  // [begin, end)
};

struct Attribute {
  std::string name;
  Span whole;  // from the whitespace before the name to the closing quote
  Span value;
};

// A small scanner for the mutations, not a URDF reader: attributes name="value" and element spans.
std::vector<Attribute> attributes(const std::string& text) {
  std::vector<Attribute> out;
  for (std::size_t eq = text.find("=\""); eq != std::string::npos; eq = text.find("=\"", eq + 1)) {
    std::size_t name_begin = eq;
    while (name_begin > 0 && (std::isalnum(static_cast<unsigned char>(text[name_begin - 1])) || text[name_begin - 1] == '_')) {
      --name_begin;
    }
    const std::size_t value_end = text.find('"', eq + 2);
    if (name_begin == eq || value_end == std::string::npos) continue;
    std::size_t whole_begin = name_begin;
    while (whole_begin > 0 && std::isspace(static_cast<unsigned char>(text[whole_begin - 1]))) --whole_begin;
    out.push_back({text.substr(name_begin, eq - name_begin), {whole_begin, value_end + 1}, {eq + 2, value_end}});
  }
  return out;
}

// Numbers inside attribute values (each whitespace-separated token that strtod reads whole).
std::vector<Span> numbers(const std::string& text) {
  std::vector<Span> out;
  for (const Attribute& a : attributes(text)) {
    std::size_t i = a.value.begin;
    while (i < a.value.end) {
      while (i < a.value.end && text[i] == ' ') ++i;
      std::size_t j = i;
      while (j < a.value.end && text[j] != ' ') ++j;
      if (j > i) {
        const std::string token = text.substr(i, j - i);
        char* end = nullptr;
        std::strtod(token.c_str(), &end);
        if (end == token.c_str() + token.size()) out.push_back({i, j});
      }
      i = j;
    }
  }
  return out;
}

std::vector<Span> elementSpans(const std::string& text) {
  std::vector<Span> out;
  std::vector<std::pair<std::string, std::size_t>> open;
  for (std::size_t lt = text.find('<'); lt != std::string::npos; lt = text.find('<', lt + 1)) {
    if (text.compare(lt, 4, "<!--") == 0) {
      const std::size_t end = text.find("-->", lt);
      if (end == std::string::npos) break;
      lt = end;
      continue;
    }
    const std::size_t gt = text.find('>', lt);
    if (gt == std::string::npos) break;
    if (text[lt + 1] == '?' || text[lt + 1] == '!') continue;
    if (text[lt + 1] == '/') {
      const std::string name = text.substr(lt + 2, gt - lt - 2);
      if (!open.empty() && open.back().first == name) {
        out.push_back({open.back().second, gt + 1});
        open.pop_back();
      }
    } else if (text[gt - 1] == '/') {
      out.push_back({lt, gt + 1});
    } else {
      std::size_t name_end = lt + 1;
      while (name_end < gt && !std::isspace(static_cast<unsigned char>(text[name_end]))) ++name_end;
      open.emplace_back(text.substr(lt + 1, name_end - lt - 1), lt);
    }
  }
  return out;
}

template <class T>
const T& pick(const std::vector<T>& v, std::mt19937& rng) {
  return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
}

std::string randomNumber(std::mt19937& rng) {
  char buf[64];
  const double magnitude = std::pow(10.0, std::uniform_real_distribution<double>(-8.0, 8.0)(rng));
  std::snprintf(buf, sizeof buf, "%.17g", std::uniform_real_distribution<double>(-1.0, 1.0)(rng) * magnitude);
  return buf;
}

// Applies one random mutation to `text` and returns its description.
std::string mutate(std::string& text, std::mt19937& rng) {
  const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
  switch (kind) {
    case 0: {
      const auto attrs = attributes(text);
      if (attrs.empty()) break;
      const Attribute& a = pick(attrs, rng);
      text.erase(a.whole.begin, a.whole.end - a.whole.begin);
      return "delete attribute " + a.name;
    }
    case 1: {
      const auto spans = elementSpans(text);
      if (spans.empty()) break;
      const Span s = pick(spans, rng);
      const std::string head = text.substr(s.begin, std::min<std::size_t>(30, s.end - s.begin));
      text.erase(s.begin, s.end - s.begin);
      return "delete element " + head;
    }
    case 2:
    case 3:
    case 4: {
      const auto nums = numbers(text);
      if (nums.empty()) break;
      const Span s = pick(nums, rng);
      const std::string old = text.substr(s.begin, s.end - s.begin);
      static const std::vector<std::string> specials{"nan", "inf", "-inf", "1e400", "-1e400", "abc", "0",
                                                     "-0", "1e-320", "1e308", "-1e308", "", "1 2", "0x10"};
      std::string replacement;
      if (kind == 2) replacement = randomNumber(rng);
      if (kind == 3) replacement = old[0] == '-' ? old.substr(1) : "-" + old;
      if (kind == 4) replacement = pick(specials, rng);
      text.replace(s.begin, s.end - s.begin, replacement);
      return "number " + old + " -> '" + replacement + "'";
    }
    case 5: {
      const auto nums = numbers(text);
      if (nums.size() < 2) break;
      Span a = pick(nums, rng), b = pick(nums, rng);
      if (a.begin == b.begin) break;
      if (a.begin > b.begin) std::swap(a, b);
      const std::string first = text.substr(a.begin, a.end - a.begin), second = text.substr(b.begin, b.end - b.begin);
      text.replace(b.begin, b.end - b.begin, first);
      text.replace(a.begin, a.end - a.begin, second);
      return "swap " + first + " and " + second;
    }
    case 6: {
      const std::size_t at = std::uniform_int_distribution<std::size_t>(0, text.size())(rng);
      text.resize(at);
      return "truncate at byte " + std::to_string(at);
    }
    case 7: {
      const auto spans = elementSpans(text);
      if (spans.empty()) break;
      const Span s = pick(spans, rng);
      const std::string copy = text.substr(s.begin, s.end - s.begin);
      text.insert(s.end, copy);
      return "duplicate element " + copy.substr(0, 30);
    }
    case 8: {
      std::vector<Attribute> refs, names;
      for (const Attribute& a : attributes(text)) {
        if (a.name == "link" || a.name == "joint") refs.push_back(a);
        if (a.name == "name") names.push_back(a);
      }
      if (refs.empty() || names.empty()) break;
      const Attribute& r = pick(refs, rng);
      const Attribute& n = pick(names, rng);
      const std::string target = rng() % 4 == 0 ? std::string("ghost") : text.substr(n.value.begin, n.value.end - n.value.begin);
      text.replace(r.value.begin, r.value.end - r.value.begin, target);
      return "rename reference to '" + target + "'";
    }
    case 9: {
      std::vector<Attribute> types;
      for (const Attribute& a : attributes(text)) {
        if (a.name == "type") types.push_back(a);
      }
      if (types.empty()) break;
      static const std::vector<std::string> joint_types{"revolute", "continuous", "prismatic", "fixed",
                                                        "floating", "planar", "spherical", "REVOLUTE"};
      const Attribute& t = pick(types, rng);
      const std::string type = pick(joint_types, rng);
      text.replace(t.value.begin, t.value.end - t.value.begin, type);
      return "joint type -> " + type;
    }
    default:
      break;
  }
  return "no-op";
}

// What a loaded model must satisfy; returns a description of the first violation, or "".
std::string violation(const Model& m, bool accept_invalid_inertia) {
  if (m.nbodies() < 1 || m.parent(0) != -1) return "body 0 is not the root";
  int nq = 0, nv = 0;
  for (int i = 1; i < m.nbodies(); ++i) {
    if (m.parent(i) < 0 || m.parent(i) >= i) return "parent of body " + std::to_string(i) + " is not before it";
    const Joint& j = m.joint(i);
    int jq = 0, jv = 0;
    jointSizes(j.type, jq, jv);
    if (j.nq != jq || j.nv != jv || j.idx_q != nq || j.idx_v != nv) return "joint " + j.name + " has inconsistent sizes";
    nq += j.nq;
    nv += j.nv;
    if (!m.Xtree(i).E().allFinite() || !m.Xtree(i).r().allFinite()) return "X_tree of body " + m.bodyName(i) + " is not finite";
  }
  if (m.nq() != nq || m.nv() != nv) return "nq/nv do not match the joints";
  // The loader's rule (urdf.hpp): each body's inertia about its centre of mass is positive semi-definite
  // within 1e-9 of its trace plus 1e-15 of the file's largest link trace, bounded here by the largest
  // body trace (bodies hold their links); the triangle inequality is only warned about.
  double largest = 0.0;
  for (int i = 0; i < m.nbodies(); ++i) largest = std::max(largest, std::abs(m.inertia(i).inertiaAboutCom().trace()));
  for (int i = 0; i < m.nbodies(); ++i) {
    const RigidBodyInertia& I = m.inertia(i);
    const bool finite = std::isfinite(I.mass()) && I.com().allFinite() && I.inertiaAboutCom().allFinite();
    if (!finite || I.mass() < 0.0) return "inertia of body " + m.bodyName(i) + " is not finite or has a negative mass";
    const Matrix3 Ic = I.inertiaAboutCom();
    const double lowest = Eigen::SelfAdjointEigenSolver<Matrix3>(0.5 * (Ic + Ic.transpose())).eigenvalues()(0);
    if (!accept_invalid_inertia && lowest < -(1e-9 * std::abs(Ic.trace()) + 1e-15 * largest)) {
      return "inertia of body " + m.bodyName(i) + " is not positive semi-definite (lowest moment " + std::to_string(lowest) + ")";
    }
  }
  for (const Frame& f : m.frames()) {
    if (f.body < 0 || f.body >= m.nbodies()) return "frame " + f.name + " is on a missing body";
  }
  for (const Geometry& g : m.geometries()) {
    if (g.body < 0 || g.body >= m.nbodies()) return "geometry " + g.name + " is on a missing body";
  }
  return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(mutated_bundled_models) {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ABDYN_SOURCE_DIR) + "/models")) {
    if (entry.path().extension() == ".urdf") paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  BOOST_TEST_REQUIRE(!paths.empty());

  // Mutants produce warnings by the thousand (non-unit axes, accepted inertias): keep them quiet.
  const spdlog::level::level_enum level = logger()->level();
  logger()->set_level(spdlog::level::off);
  const auto start = std::chrono::steady_clock::now();
  std::mt19937 rng(20240601);
  int total = 0;
  for (const std::string& path : paths) {
    std::ifstream in(path);
    const std::string original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    int loaded = 0, rejected = 0;
    for (int k = 0; k < kMutantsPerModel; ++k) {
      std::string text = original;
      std::string what = mutate(text, rng);
      if (rng() % 3 == 0) what += ", then " + mutate(text, rng);
      UrdfOptions options;
      options.floating_base = rng() % 2 == 0;
      options.accept_invalid_inertia = rng() % 4 == 0;
      try {
        const Model m = loadUrdfString(text, options);
        const std::string bad = violation(m, options.accept_invalid_inertia);
        BOOST_TEST(bad.empty(), path << " mutant " << k << " (" << what << "): invalid model: " << bad);
        ++loaded;
      } catch (const Error& e) {
        const std::string message = e.what();
        BOOST_TEST(message.rfind("<string>: ", 0) == 0, path << " mutant " << k << " (" << what << "): " << message);
        ++rejected;
      } catch (const std::exception& e) {
        BOOST_ERROR(path << " mutant " << k << " (" << what << "): not an abdyn::Error: " << e.what());
      }
      ++total;
    }
    BOOST_TEST_MESSAGE(path << ": " << loaded << " mutants loaded, " << rejected << " rejected");
  }
  logger()->set_level(level);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  BOOST_TEST_MESSAGE(total << " mutants in " << seconds << " s");
}
