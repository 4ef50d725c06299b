// `vigilo index build … --embed-model DIR --text-field NAME` on a tiny model
// (4 words × 2 dimensions, packed with the system tar like embed_cli_test):
// the record, verify and inspect of the result, and the CLI's refusals with
// their exact messages and nothing left in the output directory.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_test_support.h"

namespace vigilo::cli_test {
namespace {

namespace fs = std::filesystem;

// The imported model directory (once per process).
std::string Model() {
  static const std::string model = [] {
    std::string out = (ProcessDir() / "text-model").string();
    fs::remove_all(out);
    CliRun r = Vigilo("embed import " + TinyModelTarball() + " --out " + out);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return out;
  }();
  return model;
}

std::string Input(const std::string& name, const std::string& rows) {
  std::string p = (ProcessDir() / name).string();
  WriteFile(p, rows);
  return p;
}

std::string Fresh(const std::string& name) {
  fs::path p = ProcessDir() / name;
  fs::remove_all(p);
  return p.string();
}

const std::string kRows =
    "{\"id\":0,\"text\":\"the cat\",\"kind\":\"pet\"}\n{\"id\":1,\"text\":\"a don\",\"kind\":\"title\"}\n"
    "{\"id\":2,\"text\":\"The CAT, a cat\",\"kind\":null}\n";

TEST(TextBuildCli, BuildsVerifiesAndInspects) {
  std::string in = Input("texts.jsonl", kRows), out = Fresh("text-pub");
  CliRun b = Vigilo("index build " + in + " --embed-model " + Model() + " --text-field text --key id --source " +
                    "--nlist 1 -q --json -o " + out);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(b.err, "");
  EXPECT_NE(b.out.find("\"embedding_assets\":3"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("\"skipped_rows\":0"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("\"metric\":\"cosine\""), std::string::npos) << b.out;
  CliRun v = Vigilo("index verify " + out);
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  CliRun i = Vigilo("index inspect --json " + out);
  ASSERT_EQ(i.exit_code, 0) << i.err;
  EXPECT_NE(i.out.find("\"model\":\"npm:wink-tiny@1.0.0\""), std::string::npos) << i.out;
  EXPECT_NE(i.out.find("{\"logical_type\":\"STRING\",\"name\":\"kind\",\"physical_type\":\"BYTE_ARRAY\","
                       "\"type\":\"string\"}"),
            std::string::npos)
      << i.out;
}

TEST(TextBuildCli, Refusals) {
  std::string in = Input("texts2.jsonl", kRows), out = Fresh("text-refused");
  struct Case {
    std::string flags, err;
  };
  const Case cases[] = {
      {"--embed-model " + Model() + " --text-field text --vector-field v",
       "vigilo: invalid_argument: --vector-field cannot be used with --embed-model: the vectors are the embeddings "
       "of --text-field\n"},
      {"--embed-model " + Model(),
       "vigilo: invalid_argument: --embed-model needs --text-field (the column to embed)\n"},
      {"--text-field text", "vigilo: invalid_argument: --text-field needs --embed-model (the model that embeds it)\n"},
      {"--embed-model " + Model() + " --text-field text --metric l2_squared",
       "vigilo: invalid_argument: --metric must be cosine with --embed-model (the model's vectors have unit "
       "length), got l2_squared\n"},
      {"--embed-model " + Model() + " --text-field text --skip-unembeddable",
       "vigilo: invalid_argument: --skip-unembeddable needs --key or --id-column: rows left out would shift the "
       "row positions that key a publication without a key column, and only your own ids would still name the rows "
       "kept\n"},
  };
  for (const Case& c : cases) {
    CliRun r = Vigilo("index build " + in + " " + c.flags + " --nlist 1 -q -o " + out);
    EXPECT_EQ(r.exit_code, 2) << c.flags;
    EXPECT_EQ(r.err, c.err) << c.flags;
    EXPECT_FALSE(fs::exists(out)) << c.flags;
  }
}

TEST(TextBuildCli, UnembeddableRowsThenSkipped) {
  std::string in = Input("texts3.jsonl", kRows + "{\"id\":3,\"text\":\"zebra\",\"kind\":\"x\"}\n");
  std::string out = Fresh("text-skip");
  std::string args =
      "index build " + in + " --embed-model " + Model() + " --text-field text --key id --nlist 1 -q -o " + out;
  CliRun failed = Vigilo(args);
  EXPECT_EQ(failed.exit_code, 2);
  EXPECT_EQ(failed.err, "vigilo: invalid_argument: " + in +
                            ": row 3: its text has no word in the model's vocabulary (1 row of --text-field \"text\" "
                            "cannot be embedded; --skip-unembeddable leaves them out)\n");
  EXPECT_FALSE(fs::exists(out));
  CliRun skipped = Vigilo(args + " --skip-unembeddable --json");
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  EXPECT_EQ(skipped.err,
            "vigilo: note: --skip-unembeddable left out 1 row whose text has no word in the model's vocabulary (or "
            "is null)\n");
  EXPECT_NE(skipped.out.find("\"skipped_rows\":1"), std::string::npos) << skipped.out;
  EXPECT_NE(skipped.out.find("\"ntotal\":3"), std::string::npos) << skipped.out;
}

}  // namespace
}  // namespace vigilo::cli_test
