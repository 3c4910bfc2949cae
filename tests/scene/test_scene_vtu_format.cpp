// The scene key outputs.vtu_format (scene.hpp, docs/scene-format.md): compressed by default,
// binary and ascii on request, anything else refused at its line and column; a run writes its
// .vtu files in the format asked for, and they read back to the same numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "tests/scene_test_support.hpp"
#include "softik/error.hpp"
#include "softik/mesh_io.hpp"
#include "softik/scene.hpp"

namespace softik {
namespace {

const std::string kScene =
    "mesh: {generator: {type: box, size: [0.04, 0.01, 0.01], cells: [4, 1, 1]}}\n"
    "materials: [{law: neo_hookean, young: 1.0e5, poisson: 0.45}]\n"
    "fixed: [{group: xmin}]\n"
    "loads: {gravity: {density: 1000, g: [0, 0, -9.81]}}\n"
    "solver: {load_steps: 2, linear_solver: eigen, threads: 1}\n";

TEST(SceneVtuFormat, DefaultIsCompressedAndEachNameIsRead) {
  EXPECT_EQ(parse_scene_string(kScene, "s.yaml").outputs.vtu_format, VtuEncoding::Compressed);
  const std::pair<const char*, VtuEncoding> formats[] = {
      {"compressed", VtuEncoding::Compressed}, {"binary", VtuEncoding::Binary}, {"ascii", VtuEncoding::Ascii}};
  for (const auto& [name, encoding] : formats)
    EXPECT_EQ(parse_scene_string(kScene + "outputs: {vtu_format: " + name + "}\n", "s.yaml").outputs.vtu_format,
              encoding)
        << name;
}

TEST(SceneVtuFormat, AnotherValueIsRefusedAtItsLineAndColumn) {
  const std::string text = kScene + "outputs:\n  vtu: true\n  vtu_format: zlib\n";
  try {
    parse_scene_string(text, "dir/s.yaml");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "dir/s.yaml:" + position_of(text, "zlib") +
                  ": outputs.vtu_format: expected one of: compressed, binary, ascii, got 'zlib'");
    EXPECT_EQ(e.kind(), ErrorKind::Input);
  }
}

TEST(SceneVtuFormat, ARunWritesTheFormatAskedFor) {
  const fs::path dir = fresh_dir("vtu_format");
  std::vector<MeshData> last;
  for (const char* format : {"compressed", "binary", "ascii"}) {
    Scene scene =
        parse_scene_string(kScene + "name: s\noutputs: {vtu_format: " + format + "}\n", (dir / "s.yaml").string());
    SceneRunOptions options;
    options.out_dir = (dir / format).string();
    const SceneRunResult r = run_scene(scene, options);
    EXPECT_EQ(r.vtu_files, 3) << format;
    const std::string text = read_file(dir / format / "s_0002.vtu");
    EXPECT_EQ(text.find("compressor=\"vtkZLibDataCompressor\"") != std::string::npos,
              std::string(format) == "compressed")
        << format;
    EXPECT_EQ(text.find("<AppendedData encoding=\"raw\">") != std::string::npos, std::string(format) != "ascii")
        << format;
    last.push_back(read_mesh_data((dir / format / "s_0002.vtu").string()));
  }
  for (size_t k = 1; k < last.size(); ++k) {
    EXPECT_EQ(last[k].mesh.X, last[0].mesh.X);
    EXPECT_EQ(last[k].mesh.cells, last[0].mesh.cells);
    ASSERT_EQ(last[k].point_fields.size(), 2u);
    EXPECT_EQ(last[k].point_fields[0].name, "displacement");
    EXPECT_EQ(last[k].point_fields[0].values, last[0].point_fields[0].values);
  }
  Real largest = 0;
  for (Real u : last[0].point_fields[0].values) largest = std::max(largest, std::abs(u));
  EXPECT_GT(largest, 0);  // the body sags under its weight: the files carry a real displacement
}

}  // namespace
}  // namespace softik
