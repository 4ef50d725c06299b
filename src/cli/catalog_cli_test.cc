// `vigilo catalog …` with the real binary: bind, query by catalog name
// (the same bytes as by manifest), rebind with a stale --expect-version
// (fenced, exit 11), history, rollback, unbind, a manifest changed behind
// the catalog (exit 6), and a registered source table serving --columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cli_test_support.h"

namespace {

using vigilo::cli_test::CliRun;

// 600 rows of dimension 8 as fvecs; `seed` varies the values.
std::string Fvecs(int seed) {
  std::string out;
  for (int i = 0; i < 600; ++i) {
    int32_t d = 8;
    out.append(reinterpret_cast<const char*>(&d), 4);
    for (int j = 0; j < 8; ++j) {
      float v = static_cast<float>((i * 7 + j * 13 + seed * 3) % 29) + 0.25f * static_cast<float>(j);
      out.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  return out;
}

std::string Field(const std::string& json, const std::string& name) {
  const std::string key = "\"" + name + "\":";
  size_t at = json.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  if (json[at] == '"') return json.substr(at + 1, json.find('"', at + 1) - at - 1);
  return json.substr(at, json.find_first_of(",}", at) - at);
}

class CatalogCliTest : public vigilo::cli_test::CliDirTest {
 protected:
  void BuildTwo() {
    Write("a.fvecs", Fvecs(1));
    Write("b.fvecs", Fvecs(2));
    ASSERT_EQ(Vigilo("index build a.fvecs --nlist 12 -q -o pub-a").exit_code, 0);
    ASSERT_EQ(Vigilo("index build b.fvecs --nlist 12 -q -o pub-b").exit_code, 0);
    Write("q.jsonl", "[1,2,3,4,5,6,7,8]\n[20,3,9,0,14,2,8,27]\n");
  }
  CliRun Query(const std::string& where) { return Vigilo("index query " + where + " --queries q.jsonl -k 5 --json"); }
};

TEST_F(CatalogCliTest, BindQueryRebindRollbackAndUnbind) {
  ASSERT_NO_FATAL_FAILURE(BuildTwo());
  CliRun empty = Vigilo("catalog list");
  ASSERT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_EQ(empty.out, "nothing is bound in the catalog\n");

  CliRun bound = Vigilo("catalog bind fmnist small pub-a --json");
  ASSERT_EQ(bound.exit_code, 0) << bound.err;
  EXPECT_EQ(Field(bound.out, "outcome"), "bound");
  EXPECT_EQ(Field(bound.out, "version"), "1");
  EXPECT_EQ(Field(bound.out, "location"), Path("pub-a"));  // stored absolute
  const std::string artifact_a = Field(bound.out, "artifact_uuid");
  ASSERT_EQ(artifact_a.size(), 36u);

  CliRun by_manifest = Query("pub-a");
  ASSERT_EQ(by_manifest.exit_code, 0) << by_manifest.err;
  CliRun by_name = Query("catalog:fmnist/small");
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  EXPECT_EQ(by_name.out, by_manifest.out);

  CliRun stale = Vigilo("catalog bind fmnist small pub-b --expect-version 0");
  EXPECT_EQ(stale.exit_code, 11) << stale.err;
  EXPECT_NE(stale.err.find("fenced"), std::string::npos) << stale.err;
  CliRun rebound = Vigilo("catalog bind fmnist small pub-b --expect-version 1 --json");
  ASSERT_EQ(rebound.exit_code, 0) << rebound.err;
  EXPECT_EQ(Field(rebound.out, "outcome"), "rebound");
  EXPECT_EQ(Field(rebound.out, "previous_artifact_uuid"), artifact_a);
  EXPECT_EQ(Query("catalog:fmnist/small").out, Query("pub-b").out);

  CliRun back = Vigilo("catalog rollback fmnist small --to " + artifact_a + " --json");
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(Field(back.out, "version"), "3");
  EXPECT_EQ(Query("catalog:fmnist/small").out, by_manifest.out);

  CliRun history = Vigilo("catalog history fmnist small --json");
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_EQ(std::count(history.out.begin(), history.out.end(), '\n'), 3) << history.out;

  CliRun unbound = Vigilo("catalog unbind fmnist small --json");
  ASSERT_EQ(unbound.exit_code, 0) << unbound.err;
  EXPECT_EQ(Field(unbound.out, "outcome"), "unbound");
  CliRun gone = Query("catalog:fmnist/small");
  EXPECT_EQ(gone.exit_code, 8) << gone.err;
  EXPECT_NE(gone.err.find("nothing is bound to fmnist/small in the catalog (it was unbound at"), std::string::npos)
      << gone.err;
  // The history keeps every entry; the last now says when it was unbound.
  CliRun kept = Vigilo("catalog history fmnist small --json");
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_EQ(std::count(kept.out.begin(), kept.out.end(), '\n'), 3) << kept.out;
  EXPECT_NE(kept.out.rfind("\"unbound_at\":\"20"), std::string::npos) << kept.out;
}

TEST_F(CatalogCliTest, AManifestChangedBehindTheCatalogAndBadArgumentsAreRefused) {
  ASSERT_NO_FATAL_FAILURE(BuildTwo());
  ASSERT_EQ(Vigilo("catalog bind fmnist small pub-a --json").exit_code, 0);
  Write("pub-a/manifest.json", Read("pub-b/manifest.json"));
  CliRun changed = Query("catalog:fmnist/small");
  EXPECT_EQ(changed.exit_code, 6) << changed.err;
  EXPECT_NE(changed.err.find("the publication changed behind the catalog"), std::string::npos) << changed.err;
  EXPECT_EQ(changed.out, "");
  // Refused before anything is read or recorded.
  CliRun bad_name = Vigilo("catalog bind fm.nist small pub-b");
  EXPECT_EQ(bad_name.exit_code, 2) << bad_name.err;
  EXPECT_NE(bad_name.err.find("SOURCE"), std::string::npos) << bad_name.err;
  CliRun nested = Vigilo("catalog bind fmnist other catalog:fmnist/small");
  EXPECT_NE(nested.exit_code, 0);
  EXPECT_NE(nested.err.find("not to another catalog name"), std::string::npos) << nested.err;
  CliRun bad_uuid = Vigilo("catalog rollback fmnist small --to yesterday");
  EXPECT_NE(bad_uuid.exit_code, 0);
  EXPECT_NE(bad_uuid.err.find("--to is not a UUID"), std::string::npos) << bad_uuid.err;
  EXPECT_EQ(Vigilo("catalog show fmnist other").exit_code, 8);
}

}  // namespace
