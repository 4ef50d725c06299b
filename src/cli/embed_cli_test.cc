// `vigilo embed import`, `vigilo embed text` and `vigilo embed check` on a tiny model: a wink-format
// package (4 words × 2 dimensions) packed here with the system tar.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_test_support.h"

namespace vigilo::cli_test {
namespace {

namespace fs = std::filesystem;

std::string Fresh(const std::string& name) {
  fs::path p = ProcessDir() / name;
  fs::remove_all(p);
  return p.string();
}

TEST(EmbedCli, ImportThenEmbedText) {
  std::string out = Fresh("model");
  CliRun imported = Vigilo("embed import " + TinyModelTarball() + " --out " + out + " --pooling mean --json");
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("\"model\":\"npm:wink-tiny@1.0.0\""), std::string::npos) << imported.out;
  EXPECT_NE(imported.out.find("\"words\":4"), std::string::npos) << imported.out;
  EXPECT_TRUE(fs::exists(fs::path(out) / "embedding.json"));
  EXPECT_TRUE(fs::exists(fs::path(out) / "embedding" / "words-buckets.bin"));

  CliRun text = Vigilo("embed text --model " + out + " \"The CAT, the cat!\"");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  // mean of the, cat, the, cat = (0.5, -0.15) in float64 of the float32s; L2.
  double x = (2.0 * static_cast<double>(0.3f) + 2.0 * static_cast<double>(0.7f)) / 4.0;
  double y = (2.0 * static_cast<double>(-0.4f) + 2.0 * static_cast<double>(0.1f)) / 4.0;
  double n = std::sqrt(x * x + y * y);
  char want[100];
  std::snprintf(want, sizeof want, "[%.17g,%.17g]\n", static_cast<double>(static_cast<float>(x / n)),
                static_cast<double>(static_cast<float>(y / n)));
  // The canonical writer prints the shortest double; compare as numbers too.
  float a = 0, b = 0;
  ASSERT_EQ(std::sscanf(text.out.c_str(), "[%f,%f]", &a, &b), 2) << text.out;
  EXPECT_EQ(a, static_cast<float>(x / n)) << text.out << " vs " << want;
  EXPECT_EQ(b, static_cast<float>(y / n)) << text.out << " vs " << want;
  EXPECT_EQ(text.out.back(), '\n');
  EXPECT_EQ(text.out.find('\n'), text.out.size() - 1);  // one line

  // Its embedding.json names the model directly too.
  CliRun by_file = Vigilo("embed text --model " + out + "/embedding.json \"the cat\"");
  ASSERT_EQ(by_file.exit_code, 0) << by_file.err;
  EXPECT_EQ(by_file.out, text.out);

  CliRun unknown = Vigilo("embed text --model " + out + " \"zebra unicorn\"");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no word of the text is in the model's vocabulary"), std::string::npos) << unknown.err;
}

// The default pooling is sif-f64-l2, recorded with its weight constant and
// direction; an unknown pooling is refused before anything is written.
TEST(EmbedCli, ImportPoolsWithSifByDefault) {
  std::string out = Fresh("sif-model");
  ASSERT_EQ(Vigilo("embed import " + TinyModelTarball() + " --out " + out + " -q").exit_code, 0);
  std::ifstream f(fs::path(out) / "embedding.json");
  std::string section((std::istreambuf_iterator<char>(f)), {});
  EXPECT_NE(section.find("\"pooling\":\"sif-f64-l2\""), std::string::npos) << section;
  EXPECT_NE(section.find("\"word-weight-c\":750"), std::string::npos) << section;
  EXPECT_NE(section.find("\"direction\":["), std::string::npos) << section;
  std::string mean = Fresh("mean-model");
  ASSERT_EQ(Vigilo("embed import " + TinyModelTarball() + " --out " + mean + " --pooling mean -q").exit_code, 0);
  CliRun a = Vigilo("embed text --model " + out + " \"the cat\"");
  CliRun b = Vigilo("embed text --model " + mean + " \"the cat\"");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(a.out, b.out);

  std::string refused = Fresh("max-model");
  CliRun bad = Vigilo("embed import " + TinyModelTarball() + " --out " + refused + " --pooling max");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--pooling"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(refused));
}

// The rows a build would refuse, listed by row (text and JSON lines), with
// the count on stderr; the input and the model are untouched.
TEST(EmbedCli, CheckListsTheRowsABuildWouldRefuse) {
  std::string model = Fresh("check-model");
  ASSERT_EQ(Vigilo("embed import " + TinyModelTarball() + " --out " + model + " -q").exit_code, 0);
  std::string input = Fresh("check.jsonl");
  std::ofstream(input) << "{\"id\":0,\"t\":\"the cat\"}\n{\"id\":1,\"t\":\"zebra\"}\n{\"id\":2,\"t\":null}\n"
                          "{\"id\":3,\"t\":\"cat\"}\n";
  CliRun text = Vigilo("embed check " + input + " --model " + model + " --text-field t");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out, "1\tits text has no word in the model's vocabulary\n2\tits text is null\n");
  EXPECT_NE(text.err.find("embed check: 2 of 4 rows cannot be embedded"), std::string::npos) << text.err;
  CliRun json = Vigilo("embed check " + input + " --model " + model + " --text-field t --json -q");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out,
            "{\"row\":1,\"why\":\"its text has no word in the model's vocabulary\"}\n"
            "{\"row\":2,\"why\":\"its text is null\"}\n");
  EXPECT_EQ(json.err, "");
  CliRun missing = Vigilo("embed check " + input + " --model " + model + " --text-field title");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--text-field \"title\": the first line has no such member"), std::string::npos)
      << missing.err;
}

// The import writes its own cheap probes unless given texts; a given text
// without a word is refused before anything is read or created.
TEST(EmbedCli, ImportTakesParityProbeTexts) {
  std::string out = Fresh("probes");
  CliRun chosen = Vigilo("embed import " + TinyModelTarball() + " --out " + out + " --json");
  ASSERT_EQ(chosen.exit_code, 0) << chosen.err;
  EXPECT_NE(chosen.out.find("\"parity_probes\":3"), std::string::npos) << chosen.out;

  std::string mine = Fresh("my-probes");
  CliRun given = Vigilo("embed import " + TinyModelTarball() + " --out " + mine +
                        " --probe \"The cat\" --probe \"the CAT, the cat\" --json");
  ASSERT_EQ(given.exit_code, 0) << given.err;
  EXPECT_NE(given.out.find("\"parity_probes\":2"), std::string::npos) << given.out;
  std::string section = ReadFile(mine + "/embedding.json");
  EXPECT_NE(section.find("{\"input\":\"The cat\",\"vector\":["), std::string::npos) << section;

  std::string refused = Fresh("no-word-probe");
  CliRun bad = Vigilo("embed import " + TinyModelTarball() + " --out " + refused + " --probe \"?!\"");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_EQ(bad.err, "vigilo: invalid_argument: parity probe 0: holds no word (ASCII letters, digits or non-ASCII "
                     "characters)\n");
  EXPECT_FALSE(fs::exists(refused));
}

TEST(EmbedCli, ImportRefusesANonEmptyDirectoryBeforeReading) {
  std::string out = Fresh("busy");
  fs::create_directories(out);
  WriteFile(fs::path(out) / "keep.txt", "mine");
  CliRun r = Vigilo("embed import " + TinyModelTarball() + " --out " + out);
  EXPECT_EQ(r.exit_code, 9) << r.err;
  EXPECT_NE(r.err.find("is not empty"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(fs::path(out) / "keep.txt"), "mine");
  EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1);
}

TEST(EmbedCli, AFailedImportLeavesNothingBehind) {
  std::string bad = (ProcessDir() / "bad.tgz").string();
  WriteFile(bad, "not a tarball at all");
  std::string out = Fresh("failed");
  CliRun r = Vigilo("embed import " + bad + " --out " + out);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("not a gzip file"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // An empty directory given by the user stays, empty.
  fs::create_directories(out);
  EXPECT_EQ(Vigilo("embed import " + bad + " --out " + out).exit_code, 4);
  EXPECT_TRUE(fs::exists(out));
  EXPECT_TRUE(fs::is_empty(out));
  // And a retry with a good tarball then succeeds.
  CliRun retry = Vigilo("embed import " + TinyModelTarball() + " --out " + out);
  EXPECT_EQ(retry.exit_code, 0) << retry.err;
}

// A publication whose manifest carries the section (made here by hand until
// the builder writes it): --model takes its directory or its manifest.json.
TEST(EmbedCli, TextFromAPublicationManifest) {
  std::string model = Fresh("pub-model");
  ASSERT_EQ(Vigilo("embed import " + TinyModelTarball() + " --out " + model + " -q").exit_code, 0);
  std::string jsonl;
  for (int i = 0; i < 20; ++i) {
    jsonl += "{\"id\":" + std::to_string(i) + ",\"vector\":[" + std::to_string(i % 5) + ".5," +
             std::to_string(i % 3) + ".25]}\n";
  }
  WriteFile(ProcessDir() / "pub.jsonl", jsonl);
  std::string pub = Fresh("pub");
  CliRun built = Vigilo("index build " + (ProcessDir() / "pub.jsonl").string() + " --key id -q --out " + pub);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  fs::copy(fs::path(model) / "embedding", fs::path(pub) / "embedding", fs::copy_options::recursive);
  std::string manifest = ReadFile(fs::path(pub) / "manifest.json");
  std::string section = ReadFile(fs::path(model) / "embedding.json");
  section.pop_back();  // its newline
  manifest.replace(0, 1, "{\"embedding\":" + section + ",");
  WriteFile(fs::path(pub) / "manifest.json", manifest);

  CliRun by_dir = Vigilo("embed text --model " + pub + " \"the cat\"");
  ASSERT_EQ(by_dir.exit_code, 0) << by_dir.err;
  CliRun by_manifest = Vigilo("embed text --model " + pub + "/manifest.json \"the cat\"");
  ASSERT_EQ(by_manifest.exit_code, 0) << by_manifest.err;
  CliRun by_model = Vigilo("embed text --model " + model + " \"the cat\"");
  ASSERT_EQ(by_model.exit_code, 0) << by_model.err;
  EXPECT_EQ(by_dir.out, by_model.out);
  EXPECT_EQ(by_manifest.out, by_model.out);

  // A modified asset byte refuses the text (the parity probe reads it first).
  std::string top = ReadFile(fs::path(pub) / "embedding" / "words-top.bin");
  top[50] = static_cast<char>(top[50] ^ 1);
  WriteFile(fs::path(pub) / "embedding" / "words-top.bin", top);
  CliRun tampered = Vigilo("embed text --model " + pub + " \"the cat\"");
  EXPECT_EQ(tampered.exit_code, 6) << tampered.err;
  EXPECT_NE(tampered.err.find("embedding/words-top.bin"), std::string::npos) << tampered.err;
}

}  // namespace
}  // namespace vigilo::cli_test
