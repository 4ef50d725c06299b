#include "vigilo/engine/run_profile.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "vigilo/hash/blake3.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::engine {
namespace {

constexpr std::string_view kMinimal = R"({"profile_id":"geo","agent":{"name":"echo"},"evaluators":[{"ref":"exact"}],)"
                                      R"("gates":[{"gate_id":"correct","evaluators":["exact"]}]})";

json::Value J(std::string_view text) {
  auto v = json::Parse(text);
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  return v.ok() ? *v : json::Value();
}

std::string Text(const json::Value& v) { return *json::ToCanonical(v); }

// The minimal profile with `key` set to the JSON `value`.
std::string With(std::string_view key, std::string_view value) {
  json::Value doc = J(kMinimal);
  doc.as_object().Set(std::string(key), J(value));
  return Text(doc);
}

::testing::AssertionResult Fails(std::string_view text, StatusCode code, std::string_view path,
                                 std::string_view message) {
  auto result = ParseProfile(text);
  if (result.ok()) return ::testing::AssertionFailure() << "parsed: " << text;
  const Status& s = result.status();
  if (s.code() != code || s.path() != path || s.message() != message) {
    return ::testing::AssertionFailure() << "got " << s.ToString() << "; expected " << StatusCodeName(code) << ": "
                                         << path << ": " << message;
  }
  return ::testing::AssertionSuccess();
}

EvaluationProfile Parsed(std::string_view text) {
  auto result = ParseProfile(text);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? *result : EvaluationProfile();
}

cases::TypedCase Case(cases::TaskType type, std::vector<std::string> tags = {}, std::string_view metadata = "{}") {
  cases::TypedCase c;
  c.id = *Uuid::Parse("3f2b8c1e-6a4d-4e0f-9b7a-1c2d3e4f5a6b");
  c.task_type = type;
  c.input = json::Value("q");
  c.tags = std::move(tags);
  c.metadata = J(metadata);
  return c;
}

std::string ReadExample(const std::string& name) {
  std::ifstream in(std::string(VIGILO_SOURCE_DIR) + "/examples/profiles/" + name, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  EXPECT_FALSE(buffer.str().empty()) << name;
  return buffer.str();
}

constexpr StatusCode kFormat = StatusCode::kInvalidFormat;

TEST(RunProfileTest, ParsesAMinimalProfileWithDefaults) {
  EvaluationProfile p = Parsed(kMinimal);
  EXPECT_EQ(p.profile_id, "geo");
  EXPECT_FALSE(p.profile_version.has_value());
  EXPECT_EQ(p.agent, J(R"({"name":"echo"})"));
  EXPECT_EQ(p.document, J(kMinimal));
  ASSERT_EQ(p.evaluators.size(), 1u);
  EXPECT_EQ(p.evaluators[0].ref, "exact");
  EXPECT_TRUE(p.evaluators[0].runnable);
  ASSERT_EQ(p.gates.size(), 1u);
  EXPECT_EQ(p.gates[0].gate_id, "correct");
  EXPECT_EQ(p.gates[0].evaluators, std::vector<std::string>{"exact"});
  EXPECT_TRUE(p.gates[0].select.task_types.empty());
  EXPECT_TRUE(p.gates[0].select.any_tags.empty());
  EXPECT_EQ(p.groups.by, GroupRule::By::kNone);
  EXPECT_EQ(Text(p.execution_plan), R"({"repetitions":1})");
  EXPECT_EQ(p.repetitions, 1);
  EXPECT_EQ(Text(p.aggregation_policy), "{}");
  EXPECT_EQ(p.chunk_size, 100);
  EXPECT_EQ(p.shard_count, 1);
}

TEST(RunProfileTest, ReadsEveryOptionalField) {
  json::Value doc = J(kMinimal);
  doc.as_object().Set("profile_version", "v2");
  doc.as_object().Set("execution_plan", J(R"({"repetitions":1000,"seed":7,"nested":{"a":[1]}})"));
  doc.as_object().Set("aggregation_policy", J(R"({"threshold":0.5})"));
  doc.as_object().Set("chunk_size", J("1"));
  doc.as_object().Set("shards", J("128"));
  doc.as_object().Set("profile_groups", J(R"({"by":"metadata","field":"source"})"));
  doc.as_object().Set("evaluators", J(R"([{"ref":"exact","runnable":false},{"ref":"judge","runnable":true}])"));
  doc.as_object().Set("gates",
                      J(R"([{"gate_id":"g","evaluators":["judge","exact"],)"
                        R"("select":{"task_types":["classification","multiple_choice"],"any_tags":["x","y"]}}])"));
  EvaluationProfile p = Parsed(Text(doc));
  EXPECT_EQ(p.profile_version, "v2");
  EXPECT_EQ(p.repetitions, 1000);
  EXPECT_EQ(Text(p.execution_plan), R"({"nested":{"a":[1]},"repetitions":1000,"seed":7})");  // other members kept
  EXPECT_EQ(Text(p.aggregation_policy), R"({"threshold":0.5})");
  EXPECT_EQ(p.chunk_size, 1);
  EXPECT_EQ(p.shard_count, 128);
  EXPECT_EQ(p.groups.by, GroupRule::By::kMetadataField);
  EXPECT_EQ(p.groups.field, "source");
  ASSERT_EQ(p.evaluators.size(), 2u);
  EXPECT_FALSE(p.evaluators[0].runnable);
  EXPECT_TRUE(p.evaluators[1].runnable);
  EXPECT_EQ(p.gates[0].evaluators, (std::vector<std::string>{"judge", "exact"}));
  EXPECT_EQ(p.gates[0].select.task_types,
            (std::vector<cases::TaskType>{cases::TaskType::kClassification, cases::TaskType::kMultipleChoice}));
  EXPECT_EQ(p.gates[0].select.any_tags, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(Parsed(With("profile_groups", R"({"by":"task_type"})")).groups.by, GroupRule::By::kTaskType);
  EXPECT_EQ(Parsed(With("profile_groups", R"({"by":"none"})")).groups.by, GroupRule::By::kNone);
}

TEST(RunProfileTest, RefusesUnknownFieldsAtEveryLevelNamingThePath) {
  EXPECT_TRUE(Fails(With("profile_name", R"("x")"), kFormat, "$.profile_name", "unexpected field"));
  EXPECT_TRUE(Fails(With("evaluators", R"([{"ref":"exact","kind":"x"}])"), kFormat, "$.evaluators[0].kind",
                    "unexpected field"));
  EXPECT_TRUE(Fails(With("gates", R"([{"gate_id":"g","evaluators":["exact"],"weight":1}])"), kFormat,
                    "$.gates[0].weight", "unexpected field"));
  EXPECT_TRUE(Fails(With("gates", R"([{"gate_id":"g","evaluators":["exact"],"select":{"tags":["a"]}}])"), kFormat,
                    "$.gates[0].select.tags", "unexpected field"));
  EXPECT_TRUE(
      Fails(With("profile_groups", R"({"by":"none","key":"x"})"), kFormat, "$.profile_groups.key", "unexpected field"));
}

TEST(RunProfileTest, RequiresTheRequiredFields) {
  for (std::string_view key : {"profile_id", "agent", "evaluators", "gates"}) {
    json::Value doc = J(kMinimal);
    doc.as_object().Erase(key);
    EXPECT_TRUE(Fails(Text(doc), kFormat, "$." + std::string(key), "missing required field")) << key;
  }
  EXPECT_TRUE(
      Fails(With("evaluators", R"([{"runnable":true}])"), kFormat, "$.evaluators[0].ref", "missing required field"));
  EXPECT_TRUE(
      Fails(With("gates", R"([{"evaluators":["exact"]}])"), kFormat, "$.gates[0].gate_id", "missing required field"));
  EXPECT_TRUE(Fails(With("gates", R"([{"gate_id":"g"}])"), kFormat, "$.gates[0].evaluators", "missing required field"));
  EXPECT_TRUE(Fails(With("profile_groups", "{}"), kFormat, "$.profile_groups.by", "missing required field"));
  EXPECT_TRUE(Fails(With("execution_plan", R"({"seed":1})"), kFormat, "$.execution_plan.repetitions",
                    "missing required field"));
}

TEST(RunProfileTest, DocumentAndFieldKinds) {
  EXPECT_TRUE(Fails("[]", kFormat, "$", "expected an object, got array"));
  EXPECT_TRUE(Fails(With("profile_id", "7"), kFormat, "$.profile_id", "expected a string, got number"));
  EXPECT_TRUE(Fails(With("evaluators", "{}"), kFormat, "$.evaluators", "expected an array, got object"));
  EXPECT_TRUE(Fails(With("evaluators", R"(["exact"])"), kFormat, "$.evaluators[0]", "expected an object, got string"));
  EXPECT_TRUE(Fails(With("evaluators", R"([{"ref":"exact","runnable":"yes"}])"), kFormat, "$.evaluators[0].runnable",
                    "expected a boolean, got string"));
  EXPECT_TRUE(Fails(With("gates", R"([{"gate_id":"g","evaluators":[1]}])"), kFormat, "$.gates[0].evaluators[0]",
                    "expected a string, got number"));
  EXPECT_TRUE(Fails(With("gates", R"([{"gate_id":"g","evaluators":["exact"],"select":[]}])"), kFormat,
                    "$.gates[0].select", "expected an object, got array"));
  EXPECT_TRUE(
      Fails(With("profile_groups", R"("task_type")"), kFormat, "$.profile_groups", "expected an object, got string"));
  EXPECT_TRUE(Fails(With("execution_plan", "[]"), kFormat, "$.execution_plan", "expected an object, got array"));
  EXPECT_TRUE(
      Fails(With("aggregation_policy", "null"), kFormat, "$.aggregation_policy", "expected an object, got null"));
}

TEST(RunProfileTest, StrictJsonAndTheSizeLimit) {
  auto dup = ParseProfile(R"({"profile_id":"a","profile_id":"b"})");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), StatusCode::kParseError);
  auto bad_utf8 = ParseProfile("{\"profile_id\":\"\xff\"}");
  ASSERT_FALSE(bad_utf8.ok());
  EXPECT_EQ(bad_utf8.status().code(), StatusCode::kParseError);

  // Exactly the limit is read (and then fails on content); one byte more is refused unread.
  std::string at_limit = With("aggregation_policy", R"({"pad":""})");
  at_limit.insert(at_limit.find(R"("pad":"")") + 7, kMaxProfileBytes - at_limit.size(), 'x');
  ASSERT_EQ(at_limit.size(), kMaxProfileBytes);
  EXPECT_TRUE(ParseProfile(at_limit).ok());
  std::string over = at_limit + " ";
  EXPECT_TRUE(Fails(over, StatusCode::kLimitExceeded, "", "profile is 4194305 bytes; the limit is 4194304"));
}

TEST(RunProfileTest, ProfileIdUsesTheDatasetIdRule) {
  EXPECT_TRUE(
      Fails(With("profile_id", R"("")"), kFormat, "$.profile_id", "profile_id must be 1-128 characters, got 0"));
  EXPECT_TRUE(Fails(With("profile_id", "\"" + std::string(129, 'a') + "\""), kFormat, "$.profile_id",
                    "profile_id must be 1-128 characters, got 129"));
  EXPECT_TRUE(Parsed(With("profile_id", "\"" + std::string(128, 'a') + "\"")).profile_id.size() == 128);
  EXPECT_TRUE(Fails(With("profile_id", R"(".geo")"), kFormat, "$.profile_id", "profile_id must not start with '.'"));
  EXPECT_TRUE(Fails(With("profile_id", R"("geo qa")"), kFormat, "$.profile_id",
                    "profile_id may contain only ASCII letters, digits, '.', '_' and '-'"));
  EXPECT_EQ(Parsed(With("profile_id", R"("Geo_QA-v1.2")")).profile_id, "Geo_QA-v1.2");
}

TEST(RunProfileTest, ProfileVersionAndAgent) {
  EXPECT_TRUE(Fails(With("profile_version", "null"), kFormat, "$.profile_version",
                    "profile_version must be a string (omit it for none)"));
  EXPECT_TRUE(Fails(With("profile_version", "3"), kFormat, "$.profile_version",
                    "profile_version must be a string (omit it for none)"));
  EXPECT_TRUE(Fails(With("agent", "null"), kFormat, "$.agent", "agent must not be null"));
  EXPECT_EQ(Parsed(With("agent", R"("echo")")).agent, json::Value("echo"));  // any non-null JSON
  EXPECT_EQ(Parsed(With("agent", "false")).agent, json::Value(false));
}

TEST(RunProfileTest, EvaluatorRules) {
  EXPECT_TRUE(Fails(With("evaluators", "[]"), kFormat, "$.evaluators", "a profile lists at least one evaluator"));
  EXPECT_TRUE(
      Fails(With("evaluators", R"([{"ref":""}])"), kFormat, "$.evaluators[0].ref", "evaluator ref must be nonempty"));
  EXPECT_TRUE(Fails(With("evaluators", R"([{"ref":"exact"},{"ref":")" + std::string(1025, 'e') + R"("}])"), kFormat,
                    "$.evaluators[1].ref", "evaluator ref is 1025 bytes; the limit is 1024 UTF-8 bytes"));
  EXPECT_TRUE(Fails(With("evaluators", R"([{"ref":"exact"},{"ref":"judge"},{"ref":"exact","runnable":false}])"),
                    kFormat, "$.evaluators[2].ref", "duplicate evaluator ref \"exact\""));
  // Listed but used by no gate is allowed: it still counts as a listed ref.
  EXPECT_EQ(Parsed(With("evaluators", R"([{"ref":"exact"},{"ref":"spare"}])")).evaluators.size(), 2u);
}

TEST(RunProfileTest, GateRules) {
  EXPECT_TRUE(Fails(With("gates", "[]"), kFormat, "$.gates", "a profile has at least one gate"));
  EXPECT_TRUE(Fails(With("gates", R"([{"gate_id":"","evaluators":["exact"]}])"), kFormat, "$.gates[0].gate_id",
                    "gate_id must be nonempty"));
  std::string long_id(1025, 'g');
  EXPECT_TRUE(Fails(With("gates", R"([{"gate_id":")" + long_id + R"(","evaluators":["exact"]}])"), kFormat,
                    "$.gates[0].gate_id", "gate_id is 1025 bytes; the limit is 1024 UTF-8 bytes"));
  // 1,024 bytes of multibyte UTF-8 (256 × U+1F600) is exactly the limit.
  std::string emoji;
  for (int i = 0; i < 256; ++i) emoji += "\xF0\x9F\x98\x80";
  EXPECT_EQ(Parsed(With("gates", R"([{"gate_id":")" + emoji + R"(","evaluators":["exact"]}])")).gates[0].gate_id,
            emoji);
  EXPECT_TRUE(Fails(With("gates", R"([{"gate_id":")" + emoji + "a" + R"(","evaluators":["exact"]}])"), kFormat,
                    "$.gates[0].gate_id", "gate_id is 1025 bytes; the limit is 1024 UTF-8 bytes"));
  EXPECT_TRUE(Fails(With("gates", R"([{"gate_id":"a","evaluators":["exact"]},{"gate_id":"a","evaluators":["exact"]}])"),
                    kFormat, "$.gates[1].gate_id", "duplicate gate_id \"a\""));
  EXPECT_TRUE(Fails(With("gates", R"([{"gate_id":"a","evaluators":[]}])"), kFormat, "$.gates[0].evaluators",
                    "must be nonempty"));
  EXPECT_TRUE(Fails(With("gates", R"([{"gate_id":"a","evaluators":["exact","judge"]}])"), kFormat,
                    "$.gates[0].evaluators[1]", "evaluator \"judge\" is not listed in $.evaluators"));
  EXPECT_TRUE(Fails(With("gates", R"([{"gate_id":"a","evaluators":["exact","exact"]}])"), kFormat,
                    "$.gates[0].evaluators[1]", "duplicate evaluator ref \"exact\""));
}

TEST(RunProfileTest, GatesAreSortedByUtf8Bytes) {
  EvaluationProfile p = Parsed(
      With("gates", R"([{"gate_id":"b","evaluators":["exact"]},{"gate_id":"\ud83d\ude00","evaluators":["exact"]},)"
                    R"({"gate_id":"\uffff","evaluators":["exact"]},{"gate_id":"B","evaluators":["exact"]},)"
                    R"({"gate_id":"a","evaluators":["exact"]}])"));
  std::vector<std::string> ids;
  for (const ProfileGate& g : p.gates) ids.push_back(g.gate_id);
  // U+FFFF (EF BF BF) sorts before U+1F600 (F0 9F 98 80) by bytes, unlike UTF-16 order.
  EXPECT_EQ(ids, (std::vector<std::string>{"B", "a", "b", "\xEF\xBF\xBF", "\xF0\x9F\x98\x80"}));
}

TEST(RunProfileTest, SelectorRules) {
  auto gate_with = [](std::string_view select) {
    return With("gates", R"([{"gate_id":"g","evaluators":["exact"],"select":)" + std::string(select) + "}]");
  };
  EXPECT_TRUE(Parsed(gate_with("{}")).gates[0].select.task_types.empty());  // {} selects every case
  EXPECT_TRUE(Fails(gate_with(R"({"task_types":["essay"]})"), kFormat, "$.gates[0].select.task_types[0]",
                    "unknown task type \"essay\" (expected generation, classification, multiple_choice or "
                    "conversation)"));
  EXPECT_TRUE(Fails(gate_with(R"({"task_types":["Generation"]})"), kFormat, "$.gates[0].select.task_types[0]",
                    "unknown task type \"Generation\" (expected generation, classification, multiple_choice or "
                    "conversation)"));
  EXPECT_TRUE(Fails(gate_with(R"({"task_types":[]})"), kFormat, "$.gates[0].select.task_types", "must be nonempty"));
  EXPECT_TRUE(Fails(gate_with(R"({"task_types":["generation","generation"]})"), kFormat,
                    "$.gates[0].select.task_types[1]", "duplicate task type \"generation\""));
  EXPECT_TRUE(Fails(gate_with(R"({"any_tags":[]})"), kFormat, "$.gates[0].select.any_tags", "must be nonempty"));
  EXPECT_TRUE(
      Fails(gate_with(R"({"any_tags":["a","a"]})"), kFormat, "$.gates[0].select.any_tags[1]", "duplicate tag \"a\""));
  EXPECT_TRUE(Fails(gate_with(R"({"any_tags":["a",""]})"), kFormat, "$.gates[0].select.any_tags[1]",
                    "a tag is 1-128 bytes; no case can carry this one"));
  EXPECT_TRUE(Fails(gate_with(R"({"any_tags":[")" + std::string(129, 't') + R"("]})"), kFormat,
                    "$.gates[0].select.any_tags[0]", "a tag is 1-128 bytes; no case can carry this one"));
  EXPECT_EQ(
      Parsed(gate_with(R"({"any_tags":[")" + std::string(128, 't') + R"("]})")).gates[0].select.any_tags[0].size(),
      128u);
}

TEST(RunProfileTest, GroupRules) {
  EXPECT_TRUE(Fails(With("profile_groups", R"({"by":"tag"})"), kFormat, "$.profile_groups.by",
                    "by must be \"none\", \"task_type\" or \"metadata\", got \"tag\""));
  EXPECT_TRUE(Fails(With("profile_groups", R"({"by":"metadata"})"), kFormat, "$.profile_groups.field",
                    "missing required field"));
  EXPECT_TRUE(Fails(With("profile_groups", R"({"by":"metadata","field":""})"), kFormat, "$.profile_groups.field",
                    "must be a nonempty metadata key"));
  EXPECT_TRUE(Fails(With("profile_groups", R"({"by":"metadata","field":3})"), kFormat, "$.profile_groups.field",
                    "expected a string, got number"));
  EXPECT_TRUE(Fails(With("profile_groups", R"({"by":"task_type","field":"x"})"), kFormat, "$.profile_groups.field",
                    "field applies only when by is \"metadata\""));
}

TEST(RunProfileTest, IntegerRanges) {
  auto out_of_range = StatusCode::kOutOfRange;
  EXPECT_TRUE(Fails(With("execution_plan", R"({"repetitions":0})"), out_of_range, "$.execution_plan.repetitions",
                    "integer out of range [1, 1000]"));
  EXPECT_TRUE(Fails(With("execution_plan", R"({"repetitions":1001})"), out_of_range, "$.execution_plan.repetitions",
                    "integer out of range [1, 1000]"));
  EXPECT_TRUE(Fails(With("execution_plan", R"({"repetitions":2.0})"), kFormat, "$.execution_plan.repetitions",
                    "expected an integer, got a float"));
  EXPECT_TRUE(Fails(With("chunk_size", "0"), out_of_range, "$.chunk_size", "integer out of range [1, 100]"));
  EXPECT_TRUE(Fails(With("chunk_size", "101"), out_of_range, "$.chunk_size", "integer out of range [1, 100]"));
  EXPECT_TRUE(Fails(With("chunk_size", "-1"), out_of_range, "$.chunk_size", "integer out of range [1, 100]"));
  EXPECT_TRUE(Fails(With("chunk_size", R"("10")"), kFormat, "$.chunk_size", "expected an integer, got string"));
  EXPECT_TRUE(Fails(With("shards", "0"), out_of_range, "$.shards", "integer out of range [1, 128]"));
  EXPECT_TRUE(Fails(With("shards", "129"), out_of_range, "$.shards", "integer out of range [1, 128]"));
  EXPECT_EQ(Parsed(With("shards", "128")).shard_count, 128);
  EXPECT_EQ(Parsed(With("chunk_size", "100")).chunk_size, 100);
}

TEST(RunProfileTest, IdentitiesAreHashesOfCanonicalJson) {
  // The same profile with other whitespace, key order and number spelling.
  std::string spaced = R"({ "gates" : [ {"evaluators":["exact"], "gate_id":"correct"} ],
      "agent": {"name": "echo"}, "evaluators": [{"ref": "exact"}], "profile_id": "geo" })";
  EvaluationProfile a = Parsed(kMinimal);
  EvaluationProfile b = Parsed(spaced);
  std::string canonical = *json::ToCanonical(*json::Parse(spaced));
  EXPECT_EQ(canonical, R"({"agent":{"name":"echo"},"evaluators":[{"ref":"exact"}],"gates":[{"evaluators":["exact"],)"
                       R"("gate_id":"correct"}],"profile_id":"geo"})");
  EXPECT_EQ(a.profile_hash, Blake3Hex(canonical));
  EXPECT_EQ(b.profile_hash, a.profile_hash);
  // Defaults are not filled into the hashed document; the effective plan and policy are hashed.
  EXPECT_EQ(a.execution_plan_hash, Blake3Hex(std::string_view(R"({"repetitions":1})")));
  EXPECT_EQ(a.aggregation_policy_hash, Blake3Hex(std::string_view("{}")));
  EXPECT_EQ(a.execution_plan_hash, *cases::CanonicalJsonHash(a.execution_plan));

  Blake3Hasher hasher = Blake3Hasher::DeriveKey("vigilo 2026-12-04 profile version id v1");
  hasher.Update(canonical);
  EXPECT_EQ(a.profile_version_id, Uuid::V8FromHash(hasher.Finalize()));
  EXPECT_EQ(a.profile_version_id.version(), 8);
  EXPECT_TRUE(a.profile_version_id.is_rfc_variant());
  EXPECT_EQ(b.profile_version_id, a.profile_version_id);

  // Writing a default explicitly changes the profile (it is what was submitted) but not the plan hash.
  EvaluationProfile explicit_plan = Parsed(With("execution_plan", R"({"repetitions":1})"));
  EXPECT_NE(explicit_plan.profile_hash, a.profile_hash);
  EXPECT_NE(explicit_plan.profile_version_id, a.profile_version_id);
  EXPECT_EQ(explicit_plan.execution_plan_hash, a.execution_plan_hash);

  EvaluationProfile policy = Parsed(With("aggregation_policy", R"({"threshold":1.50})"));
  EXPECT_EQ(policy.aggregation_policy_hash, Blake3Hex(std::string_view(R"({"threshold":1.5})")));
  EvaluationProfile plan = Parsed(With("execution_plan", R"({"seed":2,"repetitions":3})"));
  EXPECT_EQ(plan.execution_plan_hash, Blake3Hex(std::string_view(R"({"repetitions":3,"seed":2})")));
}

TEST(RunProfileTest, DecideCaseSelectsGatesByTaskTypeAndTags) {
  EvaluationProfile p =
      Parsed(With("evaluators", R"([{"ref":"exact"},{"ref":"judge","runnable":false},{"ref":"choice"}])"));
  p = Parsed(Text([&] {
    json::Value doc = p.document;
    doc.as_object().Set(
        "gates",
        J(R"([{"gate_id":"all","evaluators":["exact"]},)"
          R"({"gate_id":"gen","evaluators":["judge","exact"],"select":{"task_types":["generation","conversation"]}},)"
          R"({"gate_id":"mc-rivers","evaluators":["choice"],"select":{"task_types":["multiple_choice"],"any_tags":["rivers","lakes"]}},)"
          R"({"gate_id":"tagged","evaluators":["judge"],"select":{"any_tags":["rivers"]}}])"));
    return doc;
  }()));
  // Sorted: all(0), gen(1), mc-rivers(2), tagged(3).
  auto decide = [&](const cases::TypedCase& c) { return *DecideCase(p, c); };

  CaseDecision gen = decide(Case(cases::TaskType::kGeneration));
  EXPECT_EQ(gen.gates, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(gen.evaluator_count, 2u);  // exact counted once
  EXPECT_EQ(gen.profile_group_id, "default");

  CaseDecision gen_rivers = decide(Case(cases::TaskType::kGeneration, {"geo", "rivers"}));
  EXPECT_EQ(gen_rivers.gates, (std::vector<uint32_t>{0, 1, 3}));
  EXPECT_EQ(gen_rivers.evaluator_count, 2u);

  CaseDecision mc_lakes = decide(Case(cases::TaskType::kMultipleChoice, {"lakes"}));
  EXPECT_EQ(mc_lakes.gates, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(mc_lakes.evaluator_count, 2u);

  CaseDecision mc_untagged = decide(Case(cases::TaskType::kMultipleChoice, {"Lakes"}));  // tags are exact
  EXPECT_EQ(mc_untagged.gates, (std::vector<uint32_t>{0}));
  EXPECT_EQ(mc_untagged.evaluator_count, 1u);

  CaseDecision mc_rivers = decide(Case(cases::TaskType::kMultipleChoice, {"rivers"}));
  EXPECT_EQ(mc_rivers.gates, (std::vector<uint32_t>{0, 2, 3}));
  EXPECT_EQ(mc_rivers.evaluator_count, 3u);

  CaseDecision conversation = decide(Case(cases::TaskType::kConversation));
  EXPECT_EQ(conversation.gates, (std::vector<uint32_t>{0, 1}));

  // A case no gate selects needs no evaluator.
  EvaluationProfile narrow =
      Parsed(With("gates", R"([{"gate_id":"g","evaluators":["exact"],"select":{"task_types":["classification"]}}])"));
  CaseDecision none = *DecideCase(narrow, Case(cases::TaskType::kGeneration));
  EXPECT_TRUE(none.gates.empty());
  EXPECT_EQ(none.evaluator_count, 0u);
}

TEST(RunProfileTest, DecideCaseGroupRules) {
  EvaluationProfile by_type = Parsed(With("profile_groups", R"({"by":"task_type"})"));
  EXPECT_EQ(DecideCase(by_type, Case(cases::TaskType::kMultipleChoice))->profile_group_id, "multiple_choice");
  EXPECT_EQ(DecideCase(by_type, Case(cases::TaskType::kGeneration))->profile_group_id, "generation");

  EvaluationProfile by_field = Parsed(With("profile_groups", R"({"by":"metadata","field":"source"})"));
  auto group = [&](std::string_view metadata) {
    return DecideCase(by_field, Case(cases::TaskType::kGeneration, {}, metadata));
  };
  EXPECT_EQ(group(R"({"source":"atlas \u00e9dition 3"})")->profile_group_id,
            "atlas \xC3\xA9"
            "dition 3");
  EXPECT_EQ(group(R"({"source":"7"})")->profile_group_id, "7");
  EXPECT_EQ(group(R"({"source":7})")->profile_group_id, "7");  // canonical JSON text
  EXPECT_EQ(group(R"({"source":1E0})")->profile_group_id, "1.0");
  EXPECT_EQ(group(R"({"source":{"b":1,"a":[true,null]}})")->profile_group_id, R"({"a":[true,null],"b":1})");
  EXPECT_EQ(group(R"({"source":null})")->profile_group_id, "null");
  EXPECT_EQ(group(R"j({"source":"(none)"})j")->profile_group_id, "(none)");
  EXPECT_EQ(group("{}")->profile_group_id, "(none)");                 // absent
  EXPECT_EQ(group(R"({"Source":"x"})")->profile_group_id, "(none)");  // keys are exact
  EXPECT_EQ(group(R"({"source":")" + std::string(1024, 's') + R"("})")->profile_group_id, std::string(1024, 's'));

  auto too_long = group(R"({"source":")" + std::string(1025, 's') + R"("})");
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(too_long.status().path(), "$.metadata.source");
  EXPECT_EQ(too_long.status().message(),
            "case 3f2b8c1e-6a4d-4e0f-9b7a-1c2d3e4f5a6b: metadata.source is not a valid profile group: "
            "profile_group_id is 1025 bytes; the limit is 1024 UTF-8 bytes");
  auto empty = group(R"({"source":""})");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(empty.status().path(), "$.metadata.source");
  EXPECT_EQ(empty.status().message(),
            "case 3f2b8c1e-6a4d-4e0f-9b7a-1c2d3e4f5a6b: metadata.source is not a valid profile group: "
            "profile_group_id must be nonempty");
  // A non-string value whose canonical text is too long fails the same way.
  auto long_array = group(R"({"source":[")" + std::string(1022, 'a') + R"("]})");  // 1,026 bytes of text
  ASSERT_FALSE(long_array.ok());
  EXPECT_EQ(long_array.status().path(), "$.metadata.source");
}

TEST(RunProfileTest, ExecutabilityFormulas) {
  EvaluationProfile p = Parsed(Text([] {
    json::Value doc = J(kMinimal);
    doc.as_object().Set("evaluators", J(R"([{"ref":"exact"},{"ref":"judge","runnable":false},{"ref":"spare"}])"));
    doc.as_object().Set("execution_plan", J(R"({"repetitions":3})"));
    return doc;
  }()));
  ExecutabilityCounter counter(p);
  EXPECT_EQ(counter.Finish(), (cases::Executability{0, 0, 3, 2}));  // refs are counted with no cases
  CaseDecision two;
  two.evaluator_count = 2;
  CaseDecision zero;
  ASSERT_TRUE(counter.Add(two).ok());
  ASSERT_TRUE(counter.Add(zero).ok());
  ASSERT_TRUE(counter.Add(two).ok());
  // 3 cases × 3 repetitions; (2 + 0 + 2) × 3 evaluator executions.
  EXPECT_EQ(counter.Finish(), (cases::Executability{9, 12, 3, 2}));
}

TEST(RunProfileTest, ExecutabilityCountsStopAt2To53Minus1) {
  EvaluationProfile p = Parsed(kMinimal);  // repetitions 1
  ExecutabilityCounter counter(p);
  CaseDecision wide;
  wide.evaluator_count = UINT32_MAX;
  // (2^32 − 1) × 2^21 + (2^21 − 1) = 2^53 − 1 exactly.
  for (int i = 0; i < (1 << 21); ++i) ASSERT_TRUE(counter.Add(wide).ok());
  CaseDecision rest;
  rest.evaluator_count = (1u << 21) - 1;
  ASSERT_TRUE(counter.Add(rest).ok());
  cases::Executability at_limit = counter.Finish();
  EXPECT_EQ(at_limit.expected_evaluator_execution_count, (int64_t{1} << 53) - 1);
  EXPECT_EQ(at_limit.expected_execution_count, (1 << 21) + 1);
  EXPECT_TRUE(at_limit.Validate().ok());

  CaseDecision one;
  one.evaluator_count = 1;
  Status s = counter.Add(one);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "expected_evaluator_execution_count exceeds 2^53 - 1");
  EXPECT_EQ(counter.Finish(), at_limit);          // a refused case changes nothing
  EXPECT_TRUE(counter.Add(CaseDecision{}).ok());  // zero evaluators still fit
  EXPECT_EQ(counter.Finish().expected_execution_count, (1 << 21) + 2);
}

TEST(RunProfileTest, ExampleProfilesParse) {
  std::string geo_text = ReadExample("geography-qa.json");
  EvaluationProfile geo = Parsed(geo_text);
  EXPECT_EQ(geo.profile_id, "geography-qa-smoke");
  EXPECT_EQ(geo.groups.by, GroupRule::By::kTaskType);
  EXPECT_EQ(geo.repetitions, 3);
  EXPECT_EQ(geo.shard_count, 4);
  EXPECT_EQ(geo.chunk_size, 1);
  EXPECT_EQ(geo.profile_hash, Blake3Hex(*json::ToCanonical(*json::Parse(geo_text))));
  ExecutabilityCounter geo_counter(geo);
  // The two cases of examples/demo/dataset.json: a generation case tagged rivers, and an untagged one.
  CaseDecision rivers = *DecideCase(geo, Case(cases::TaskType::kGeneration, {"geo", "rivers"}));
  CaseDecision capital = *DecideCase(geo, Case(cases::TaskType::kGeneration, {}, R"({"difficulty":2})"));
  EXPECT_EQ(rivers.profile_group_id, "generation");
  EXPECT_EQ(rivers.gates, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(capital.gates, (std::vector<uint32_t>{0, 1}));
  ASSERT_TRUE(geo_counter.Add(rivers).ok());
  ASSERT_TRUE(geo_counter.Add(capital).ok());
  EXPECT_EQ(geo_counter.Finish(), (cases::Executability{6, 12, 2, 1}));

  std::string wn_text = ReadExample("wordnet-glosses.json");
  EvaluationProfile wn = Parsed(wn_text);
  EXPECT_EQ(wn.profile_id, "wordnet-noun-glosses-definitions");
  EXPECT_EQ(wn.shard_count, 16);
  EXPECT_EQ(wn.chunk_size, 100);
  EXPECT_EQ(wn.groups.field, "lexicographer_file");
  EXPECT_EQ(wn.profile_hash, Blake3Hex(*json::ToCanonical(*json::Parse(wn_text))));
  CaseDecision noun = *DecideCase(
      wn, Case(cases::TaskType::kGeneration, {}, R"({"synset":"wn30-noun-00001740","lexicographer_file":3})"));
  EXPECT_EQ(noun.profile_group_id, "3");
  EXPECT_EQ(noun.gates, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(noun.evaluator_count, 2u);
}

}  // namespace
}  // namespace vigilo::engine
