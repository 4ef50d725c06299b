#include "vigilo/cases/run_configuration.h"

#include <gtest/gtest.h>

#include "runs_test_support.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/common/checked.h"
#include "vigilo/json/canonical.h"

namespace vigilo::cases {
namespace {

using runs_test::Canon;
using runs_test::IsError;
using runs_test::J;
using runs_test::With;

constexpr std::string_view kVersionId = "0b6e4a2c-9d8f-8c1b-8e3a-5f6a7b8c9d0e";

RunConfiguration Sample() {
  RunConfiguration c;
  RunSnapshot& s = c.snapshot;
  s.profile = J(R"({"agent":{"name":"echo","version":"1"},"gates":["exact"],"name":"smoke"})");
  s.agent = J(R"({"name":"echo","version":"1"})");
  s.dataset_ref.dataset_id = "geo";
  s.dataset_ref.dataset_version = "v1";
  s.dataset_ref.dataset_version_id = *Uuid::Parse(kVersionId);
  s.dataset_ref.dataset_hash = std::string(64, 'd');
  s.dataset_ref.case_count = 250;
  s.dataset_version_id = s.dataset_ref.dataset_version_id;
  s.profile_version_id = *Uuid::Parse("3f2b8c1e-6a4d-4e0f-9b7a-1c2d3e4f5a6b");
  s.profile_hash = *CanonicalJsonHash(s.profile);
  s.dataset_hash = s.dataset_ref.dataset_hash;
  s.aggregation_policy_hash = std::string(64, 'a');
  s.execution_plan = J(R"({"evaluators":[{"ref":"exact"}],"repeats":1})");
  s.execution_plan_hash = *CanonicalJsonHash(s.execution_plan);
  s.chunk_size = 100;
  s.executability = Executability{250, 250, 1, 1};
  return c;
}

json::Value SampleJson() { return Sample().ToJson(); }
Status FromJsonStatus(const json::Value& v) { return RunConfiguration::FromJson(v).status(); }

TEST(RunConfigurationTest, EncodesCanonicallyAndRoundTrips) {
  RunConfiguration c = Sample();
  ASSERT_TRUE(c.Validate().ok()) << c.Validate().ToString();
  std::string bytes = *c.Encode();
  EXPECT_TRUE(json::CheckCanonical(bytes).ok());
  EXPECT_EQ(bytes.rfind("{\"schema\":\"vigilo/run-configuration/v1\",\"snapshot\":{\"agent\":", 0), 0u);
  auto back = RunConfiguration::Decode(runs_test::Verified(bytes, StorageFormat::kRunConfiguration));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->snapshot == c.snapshot);
  EXPECT_EQ(*back->Encode(), bytes);
}

TEST(RunConfigurationTest, HashesArePlainBlake3OfCanonicalJson) {
  json::Value profile = J(R"({"b":1,"a":[1.50,"x"]})");
  EXPECT_EQ(*CanonicalJsonHash(profile), Blake3Hex(std::string_view(R"({"a":[1.5,"x"],"b":1})")));
}

TEST(RunConfigurationTest, RequiresExactlyTheFieldsAtEveryLevel) {
  for (std::string_view f : {"schema", "snapshot"}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), f, std::nullopt)), StatusCode::kInvalidFormat, "$." + std::string(f)));
  }
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "run_id", json::Value("x"))), StatusCode::kInvalidFormat, "$.run_id"));
  for (std::string_view f : {"profile", "agent", "dataset_ref", "dataset_version_id", "profile_version_id", "profile_hash",
                             "dataset_hash", "aggregation_policy_hash", "execution_plan_hash", "execution_plan",
                             "chunk_size", "executability"}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot." + std::string(f), std::nullopt)),
                        StatusCode::kInvalidFormat, "$.snapshot." + std::string(f)));
  }
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.cases", J("[]"))), StatusCode::kInvalidFormat,
                      "$.snapshot.cases"));
  for (std::string_view f : {"dataset_id", "dataset_version", "dataset_version_id", "dataset_hash", "case_count"}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.dataset_ref." + std::string(f), std::nullopt)),
                        StatusCode::kInvalidFormat, "$.snapshot.dataset_ref." + std::string(f)));
  }
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.dataset_ref.batch_limits", J("{}"))),
                      StatusCode::kInvalidFormat, "$.snapshot.dataset_ref.batch_limits"));
  for (std::string_view f : {"expected_execution_count", "expected_evaluator_execution_count", "unique_evaluator_ref_count",
                             "runnable_evaluator_ref_count"}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.executability." + std::string(f), std::nullopt)),
                        StatusCode::kInvalidFormat, "$.snapshot.executability." + std::string(f)));
  }
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.executability.cost", json::Value::Int(1))),
                      StatusCode::kInvalidFormat, "$.snapshot.executability.cost"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot", J("[]"))), StatusCode::kInvalidFormat, "$.snapshot"));
}

TEST(RunConfigurationTest, RejectsUnknownAndForeignSchemas) {
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "schema", json::Value("vigilo/run-configuration/v0"))),
                      StatusCode::kInvalidFormat, "$.schema"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "schema", json::Value("vigilo/run-plan-manifest/v1"))),
                      StatusCode::kInvalidFormat, "$.schema"));
}

TEST(RunConfigurationTest, DatasetRefRules) {
  const std::string p = "snapshot.dataset_ref.";
  EXPECT_TRUE(FromJsonStatus(With(SampleJson(), p + "dataset_version", json::Value())).ok());  // explicit null
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), p + "dataset_version", json::Value::Int(1))),
                      StatusCode::kInvalidFormat, "$." + p + "dataset_version"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), p + "case_count", json::Value::Int(0))), StatusCode::kOutOfRange,
                      "$." + p + "case_count"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), p + "case_count", json::Value::Int(2147483648))),
                      StatusCode::kOutOfRange, "$." + p + "case_count"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), p + "dataset_id", json::Value("bad id"))),
                      StatusCode::kInvalidFormat, "$." + p + "dataset_id"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), p + "dataset_version_id", json::Value("nope"))),
                      StatusCode::kInvalidFormat, "$." + p + "dataset_version_id"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), p + "dataset_hash", json::Value(std::string(64, 'D')))),
                      StatusCode::kInvalidFormat, "$." + p + "dataset_hash"));
  RunConfiguration c = Sample();
  c.snapshot.dataset_ref.case_count = 0;
  EXPECT_TRUE(IsError(c.Validate(), StatusCode::kOutOfRange, "$.snapshot.dataset_ref.case_count"));
}

TEST(RunConfigurationTest, RepeatedDatasetIdentitiesMustAgree) {
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.dataset_version_id",
                                          json::Value("0b6e4a2c-9d8f-8c1b-8e3a-5f6a7b8c9d0f"))),
                      StatusCode::kInvalidFormat, "$.snapshot.dataset_ref.dataset_version_id"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.dataset_hash", json::Value(std::string(64, 'e')))),
                      StatusCode::kInvalidFormat, "$.snapshot.dataset_ref.dataset_hash"));
}

TEST(RunConfigurationTest, AgentAgreesWithTheProfile) {
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.agent", J(R"({"name":"echo","version":"2"})"))),
                      StatusCode::kInvalidFormat, "$.snapshot.agent"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.agent", json::Value())), StatusCode::kInvalidFormat,
                      "$.snapshot.agent"));
  RunConfiguration c = Sample();
  c.snapshot.profile.as_object().Erase("agent");
  c.snapshot.profile_hash = *CanonicalJsonHash(c.snapshot.profile);
  EXPECT_TRUE(IsError(c.Validate(), StatusCode::kInvalidFormat, "$.snapshot.profile.agent"));
  c = Sample();
  c.snapshot.profile = J("[1]");
  EXPECT_TRUE(IsError(c.Validate(), StatusCode::kInvalidFormat, "$.snapshot.profile"));
  // A string agent agreeing with a string profile.agent is fine.
  c = Sample();
  c.snapshot.profile = J(R"({"agent":"echo@1"})");
  c.snapshot.agent = J(R"("echo@1")");
  c.snapshot.profile_hash = *CanonicalJsonHash(c.snapshot.profile);
  EXPECT_TRUE(c.Validate().ok()) << c.Validate().ToString();
}

TEST(RunConfigurationTest, ProfileAndExecutionPlanHashesAreRecomputed) {
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.profile_hash", json::Value(std::string(64, '0')))),
                      StatusCode::kIntegrityError, "$.snapshot.profile_hash"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.profile.name", json::Value("other"))),
                      StatusCode::kIntegrityError, "$.snapshot.profile_hash"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.execution_plan_hash", json::Value(std::string(64, '0')))),
                      StatusCode::kIntegrityError, "$.snapshot.execution_plan_hash"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.execution_plan.repeats", json::Value::Int(2))),
                      StatusCode::kIntegrityError, "$.snapshot.execution_plan_hash"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.profile_hash", json::Value("abc"))),
                      StatusCode::kInvalidFormat, "$.snapshot.profile_hash"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.execution_plan_hash", json::Value::Int(1))),
                      StatusCode::kInvalidFormat, "$.snapshot.execution_plan_hash"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.aggregation_policy_hash", json::Value(std::string(64, 'G')))),
                      StatusCode::kInvalidFormat, "$.snapshot.aggregation_policy_hash"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.execution_plan", J("[]"))), StatusCode::kInvalidFormat,
                      "$.snapshot.execution_plan"));
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.profile_version_id", json::Value("x"))),
                      StatusCode::kInvalidFormat, "$.snapshot.profile_version_id"));
}

TEST(RunConfigurationTest, ChunkSizeIs1To100) {
  for (int64_t bad : {0, -1, 101}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.chunk_size", json::Value::Int(bad))),
                        StatusCode::kOutOfRange, "$.snapshot.chunk_size"));
  }
  EXPECT_TRUE(FromJsonStatus(With(SampleJson(), "snapshot.chunk_size", json::Value::Int(1))).ok());
  EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), "snapshot.chunk_size", json::Value::Double(50.0))),
                      StatusCode::kInvalidFormat, "$.snapshot.chunk_size"));
  RunConfiguration c = Sample();
  c.snapshot.chunk_size = 101;
  EXPECT_TRUE(IsError(c.Validate(), StatusCode::kOutOfRange, "$.snapshot.chunk_size"));
}

TEST(RunConfigurationTest, ExecutabilityCountsAreNonNegativeIntegers) {
  const std::string p = "snapshot.executability.";
  for (std::string f : {"expected_execution_count", "expected_evaluator_execution_count", "unique_evaluator_ref_count",
                        "runnable_evaluator_ref_count"}) {
    EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), p + f, json::Value::Int(-1))), StatusCode::kOutOfRange, "$." + p + f));
    EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), p + f, json::Value::Int(kMaxSafeInteger + 1))),
                        StatusCode::kOutOfRange, "$." + p + f));
    EXPECT_TRUE(IsError(FromJsonStatus(With(SampleJson(), p + f, json::Value::Double(1.5))), StatusCode::kInvalidFormat,
                        "$." + p + f));
    EXPECT_TRUE(FromJsonStatus(With(SampleJson(), p + f, json::Value::Int(0))).ok());
  }
  RunConfiguration c = Sample();
  c.snapshot.executability.unique_evaluator_ref_count = -3;
  EXPECT_TRUE(IsError(c.Validate(), StatusCode::kOutOfRange, "$.snapshot.executability.unique_evaluator_ref_count"));
}

TEST(RunConfigurationTest, DecodeEnforcesTheConfigurationBudget) {
  std::string bytes = *Sample().Encode();
  RunPlanLimits limits;
  limits.max_configuration_bytes = bytes.size() - 1;
  EXPECT_TRUE(IsError(RunConfiguration::Decode(runs_test::Verified(bytes, StorageFormat::kRunConfiguration, "c.json"), limits)
                          .status(),
                      StatusCode::kLimitExceeded, "c.json"));
  limits.max_configuration_bytes = bytes.size();
  EXPECT_TRUE(RunConfiguration::Decode(runs_test::Verified(bytes, StorageFormat::kRunConfiguration), limits).ok());
  // Errors inside the object name its key.
  std::string wrong = Canon(With(SampleJson(), "snapshot.chunk_size", json::Value::Int(0)));
  EXPECT_TRUE(IsError(RunConfiguration::Decode(runs_test::Verified(wrong, StorageFormat::kRunConfiguration, "c.json")).status(),
                      StatusCode::kOutOfRange, "c.json: $.snapshot.chunk_size"));
  EXPECT_EQ(RunConfiguration::Decode(runs_test::Verified(bytes + " ", StorageFormat::kRunConfiguration)).status().code(),
            StatusCode::kNotCanonical);
}

}  // namespace
}  // namespace vigilo::cases
