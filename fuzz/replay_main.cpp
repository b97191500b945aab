// Replays inputs through the fuzz target without libFuzzer: every file named on the command line, or every
// file in a directory named there. Exits non-zero if an input throws what the target does not expect (the
// sanitizers of the build report memory errors themselves). CTest runs it over fuzz/regressions/ (inputs
// that once crashed abdyn) and the models, in every build.

#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size);

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> inputs;
  for (int k = 1; k < argc; ++k) {
    const std::filesystem::path path(argv[k]);
    if (std::filesystem::is_directory(path)) {
      for (const auto& entry : std::filesystem::directory_iterator(path)) {
        if (entry.is_regular_file() && entry.path().filename() != "README.md") inputs.push_back(entry.path());
      }
    } else {
      inputs.push_back(path);
    }
  }
  if (inputs.empty()) {
    std::cerr << argv[0] << ": no inputs\n";
    return 2;
  }
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& e) {
      std::cerr << path.string() << ": unexpected exception: " << e.what() << "\n";
      return 1;
    }
  }
  std::cout << argv[0] << ": " << inputs.size() << " inputs, no failure\n";
  return 0;
}
