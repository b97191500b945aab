// The browser test's reference: world poses of every URDF link, by abdyn's forward kinematics, at rows of
// a trajectory CSV written by `abdyn simulate --csv`. The page computes the same poses with three.js and
// urdf-loader from the same rows; tests/viewer/viewer.test.mjs compares the two.
//
//   viewer_fk_reference MODEL.urdf TRAJECTORY.csv [--floating] ROW...
// prints one JSON object: {"ROW": {"LINK": {"p": [x, y, z], "R": [9 numbers, row-major]}, ...}, ...}
// (ROW counts data rows from 0; a link is every frame that is a body or a link merged by a fixed joint).

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "abdyn/abdyn.hpp"

int main(int argc, char** argv) {
  try {
    std::string model_path, csv_path;
    bool floating = false;
    std::vector<int> wanted;
    for (int k = 1; k < argc; ++k) {
      const std::string a = argv[k];
      if (a == "--floating") {
        floating = true;
      } else if (model_path.empty()) {
        model_path = a;
      } else if (csv_path.empty()) {
        csv_path = a;
      } else {
        wanted.push_back(std::stoi(a));
      }
    }
    if (csv_path.empty()) throw std::runtime_error("usage: viewer_fk_reference MODEL.urdf TRAJECTORY.csv [--floating] ROW...");
    abdyn::UrdfOptions options;
    options.floating_base = floating;
    const abdyn::Model model = abdyn::loadUrdf(model_path, options);
    abdyn::Data data(model);

    std::ifstream csv(csv_path);
    if (!csv) throw std::runtime_error("cannot read " + csv_path);
    std::string line;
    std::getline(csv, line);
    std::vector<int> q_columns;  // the header's q:<joint> columns, which simulate writes in q order
    {
      std::stringstream header(line);
      int c = 0;
      for (std::string name; std::getline(header, name, ','); ++c) {
        if (name.compare(0, 2, "q:") == 0) q_columns.push_back(c);
      }
    }
    if (static_cast<int>(q_columns.size()) != model.nq()) throw std::runtime_error("the CSV's q columns do not match nq");
    std::map<int, Eigen::VectorXd> rows;
    for (int r = 0; std::getline(csv, line); ++r) {
      std::vector<double> fields;
      std::stringstream s(line);
      for (std::string f; std::getline(s, f, ',');) fields.push_back(std::stod(f));
      Eigen::VectorXd q(model.nq());
      for (int k = 0; k < model.nq(); ++k) q[k] = fields.at(q_columns[k]);
      rows[r] = q;
    }

    std::cout.precision(17);
    std::cout << "{";
    for (std::size_t w = 0; w < wanted.size(); ++w) {
      Eigen::VectorXd q = rows.at(wanted[w]);
      abdyn::normalize(model, q);  // the CSV's 12 digits leave quaternions a little off unit length
      abdyn::forwardKinematics(model, data, q);
      std::cout << (w ? ",\n" : "\n") << '"' << wanted[w] << "\": {";
      bool first = true;
      for (int f = 0; f < model.nframes(); ++f) {
        if (model.frame(f).type == abdyn::FrameType::User || model.frame(f).name == "world") continue;
        const Eigen::Isometry3d T = abdyn::framePose(model, data, f);
        std::cout << (first ? "" : ",") << "\n  \"" << model.frame(f).name << "\": {\"p\": [" << T.translation()[0] << ", "
                  << T.translation()[1] << ", " << T.translation()[2] << "], \"R\": [";
        for (int k = 0; k < 9; ++k) std::cout << (k ? ", " : "") << T.linear()(k / 3, k % 3);
        std::cout << "]}";
        first = false;
      }
      std::cout << "}";
    }
    std::cout << "\n}\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "viewer_fk_reference: " << e.what() << "\n";
    return 1;
  }
}
