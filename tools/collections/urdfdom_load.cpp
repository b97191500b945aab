// Loads each URDF file named on the command line with urdfdom (the parser Pinocchio's URDF reader is
// built on) and prints "loaded PATH" or "refused PATH: reason", one line per file. Pinocchio builds its
// model from what urdfdom returns without judging inertias, so urdfdom's verdict stands in for
// Pinocchio's where Pinocchio is not installed (tools/collections/check_collections.py).
//
//   g++ -O1 -std=c++17 urdfdom_load.cpp -lurdfdom_model -o urdfdom_load

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <urdf_parser/urdf_parser.h>

int main(int argc, char** argv) {
  for (int k = 1; k < argc; ++k) {
    std::ifstream in(argv[k], std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    try {
      const urdf::ModelInterfaceSharedPtr model = urdf::parseURDF(text.str());
      std::cout << (model ? "loaded " : "refused ") << argv[k] << (model ? "" : ": urdfdom could not parse it") << "\n";
    } catch (const std::exception& e) {
      std::cout << "refused " << argv[k] << ": " << e.what() << "\n";
    }
  }
  return 0;
}
