#include "vigilo/cases/budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace vigilo::cases {
namespace {

namespace bb = budget_bounds;
using std::chrono::milliseconds;
using ::testing::HasSubstr;

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

void ExpectInvalidSetting(const Status& s, const std::string& field, uint64_t bound) {
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_EQ(s.path(), field) << s.ToString();
  EXPECT_THAT(std::string(s.message()), HasSubstr(field));
  EXPECT_THAT(std::string(s.message()), HasSubstr(std::to_string(bound)));
}

milliseconds Ms(uint64_t v) { return milliseconds(static_cast<int64_t>(v)); }

TEST(BudgetConfigTest, DefaultsMatchSeedTable) {
  const BudgetConfig c = BudgetConfig::Defaults();
  EXPECT_EQ(bb::kMiB, 1'048'576u);
  EXPECT_EQ(c.case_batch_max_cases, 100u);
  EXPECT_EQ(c.case_batch_max_bytes, 8u * 1'048'576u);
  EXPECT_EQ(c.page_max_entries, 256u);
  EXPECT_EQ(c.page_max_bytes, 1'048'576u);
  EXPECT_EQ(c.root_manifest_max_bytes, 256u * 1024u);
  EXPECT_EQ(c.source_fields_max_bytes, 8u * 1'048'576u);
  EXPECT_EQ(c.run_configuration_max_bytes, 8u * 1'048'576u);
  EXPECT_EQ(c.logical_key_max_bytes, 1'024u);
  EXPECT_EQ(c.index_max_height, 8u);
  EXPECT_EQ(c.stream_buffer_bytes, 256u * 1024u);
  EXPECT_EQ(c.concurrent_remote_requests, 4u);
  EXPECT_EQ(c.resident_case_batches, 4u);
  EXPECT_EQ(c.control_working_set_bytes, 4u * 1'048'576u);
  EXPECT_EQ(c.staging_spool_bytes, 256u * 1'048'576u);
  EXPECT_EQ(c.ingestion_validation_spool_bytes, uint64_t{8} * 1024u * 1'048'576u);
  EXPECT_EQ(c.external_sort_buffer_bytes, 64u * 1'048'576u);
  EXPECT_EQ(c.connection_timeout_ms, std::chrono::seconds(5));
  EXPECT_EQ(c.no_progress_timeout_ms, std::chrono::seconds(15));
  EXPECT_EQ(c.object_operation_deadline_ms, std::chrono::seconds(120));
  EXPECT_EQ(c.remote_request_attempts, 3u);
  EXPECT_EQ(c.retry_backoff_base_ms, milliseconds(250));
  EXPECT_EQ(c.retry_backoff_cap_ms, std::chrono::seconds(2));
  EXPECT_EQ(c.cleanup_deadline_ms, std::chrono::seconds(30));
}

TEST(BudgetConfigTest, DefaultsValidate) {
  Status s = BudgetConfig::Defaults().Validate();
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(BudgetConfigTest, DefaultResidentReservationIs32MiB) {
  Result<uint64_t> r = BudgetConfig::Defaults().ResidentReservationBytes();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, 32 * bb::kMiB);
}

// One row per bounded setting: its accepted range [lo, hi] and how to set it.
// Setters that touch a neighbour do so only to keep an unrelated
// cross-setting rule out of the way of the bound under test.
struct Ceiling {
  const char* field;
  uint64_t lo;
  uint64_t hi;
  void (*set)(BudgetConfig&, uint64_t);
};

const std::vector<Ceiling>& Ceilings() {
  static const std::vector<Ceiling> rows = {
      {"case_batch_max_cases", 1, 65'536, [](BudgetConfig& c, uint64_t v) { c.case_batch_max_cases = v; }},
      {"case_batch_max_bytes", 256, 64 * bb::kMiB, [](BudgetConfig& c, uint64_t v) { c.case_batch_max_bytes = v; }},
      {"page_max_entries", 1, 4'096, [](BudgetConfig& c, uint64_t v) { c.page_max_entries = v; }},
      {"page_max_bytes", 256, 8 * bb::kMiB,
       [](BudgetConfig& c, uint64_t v) {
         c.page_max_bytes = v;
         c.control_working_set_bytes = std::max(c.control_working_set_bytes, v);
       }},
      {"root_manifest_max_bytes", 256, bb::kMiB,
       [](BudgetConfig& c, uint64_t v) { c.root_manifest_max_bytes = v; }},
      {"source_fields_max_bytes", 256, 64 * bb::kMiB,
       [](BudgetConfig& c, uint64_t v) { c.source_fields_max_bytes = v; }},
      {"run_configuration_max_bytes", 256, 64 * bb::kMiB,
       [](BudgetConfig& c, uint64_t v) { c.run_configuration_max_bytes = v; }},
      {"logical_key_max_bytes", 1, 1'024, [](BudgetConfig& c, uint64_t v) { c.logical_key_max_bytes = v; }},
      {"index_max_height", 1, 8, [](BudgetConfig& c, uint64_t v) { c.index_max_height = v; }},
      {"stream_buffer_bytes", 4 * bb::kKiB, 8 * bb::kMiB,
       [](BudgetConfig& c, uint64_t v) { c.stream_buffer_bytes = v; }},
      {"concurrent_remote_requests", 1, 64, [](BudgetConfig& c, uint64_t v) { c.concurrent_remote_requests = v; }},
      {"resident_case_batches", 1, 16, [](BudgetConfig& c, uint64_t v) { c.resident_case_batches = v; }},
      {"control_working_set_bytes", 256, 64 * bb::kMiB,
       [](BudgetConfig& c, uint64_t v) {
         const uint64_t largest_object = std::max<uint64_t>(256, std::min(c.page_max_bytes, v));
         c.page_max_bytes = largest_object;
         c.root_manifest_max_bytes = std::min(c.root_manifest_max_bytes, largest_object);
         c.control_working_set_bytes = v;
       }},
      {"staging_spool_bytes", 256, 4 * bb::kGiB,
       [](BudgetConfig& c, uint64_t v) {
         c.case_batch_max_bytes = 256;
         c.staging_spool_bytes = v;
       }},
      {"ingestion_validation_spool_bytes", bb::kMiB + 256, bb::kTiB,
       [](BudgetConfig& c, uint64_t v) {
         c.external_sort_buffer_bytes = bb::kMiB;
         c.case_batch_max_bytes = 256;
         c.ingestion_validation_spool_bytes = v;
       }},
      {"external_sort_buffer_bytes", bb::kMiB, bb::kGiB,
       [](BudgetConfig& c, uint64_t v) { c.external_sort_buffer_bytes = v; }},
      {"connection_timeout_ms", 1, 120'000, [](BudgetConfig& c, uint64_t v) { c.connection_timeout_ms = Ms(v); }},
      {"no_progress_timeout_ms", 1, 120'000, [](BudgetConfig& c, uint64_t v) { c.no_progress_timeout_ms = Ms(v); }},
      {"object_operation_deadline_ms", 1'000, 3'600'000,
       [](BudgetConfig& c, uint64_t v) {
         c.connection_timeout_ms = std::min(c.connection_timeout_ms, Ms(v));
         c.no_progress_timeout_ms = std::min(c.no_progress_timeout_ms, Ms(v));
         c.retry_backoff_cap_ms = std::min(c.retry_backoff_cap_ms, Ms(v));
         c.object_operation_deadline_ms = Ms(v);
       }},
      {"remote_request_attempts", 1, 32, [](BudgetConfig& c, uint64_t v) { c.remote_request_attempts = v; }},
      {"retry_backoff_base_ms", 1, 60'000,
       [](BudgetConfig& c, uint64_t v) {
         c.retry_backoff_cap_ms = std::max(c.retry_backoff_cap_ms, Ms(v));
         c.retry_backoff_base_ms = Ms(v);
       }},
      // The cap's lower bound is the base (250 ms at defaults).
      {"retry_backoff_cap_ms", 250, 60'000, [](BudgetConfig& c, uint64_t v) { c.retry_backoff_cap_ms = Ms(v); }},
      {"cleanup_deadline_ms", 1'000, 3'600'000, [](BudgetConfig& c, uint64_t v) { c.cleanup_deadline_ms = Ms(v); }},
  };
  return rows;
}

class BudgetCeilingTest : public ::testing::TestWithParam<Ceiling> {
 protected:
  Status ValidateWith(uint64_t value) const {
    BudgetConfig c = BudgetConfig::Defaults();
    GetParam().set(c, value);
    return c.Validate();
  }
};

TEST_P(BudgetCeilingTest, LowerBoundPasses) {
  Status s = ValidateWith(GetParam().lo);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_P(BudgetCeilingTest, BelowLowerBoundFails) {
  ExpectInvalidSetting(ValidateWith(GetParam().lo - 1), GetParam().field, GetParam().lo);
}

TEST_P(BudgetCeilingTest, UpperBoundPasses) {
  Status s = ValidateWith(GetParam().hi);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_P(BudgetCeilingTest, AboveUpperBoundFails) {
  ExpectInvalidSetting(ValidateWith(GetParam().hi + 1), GetParam().field, GetParam().hi);
}

INSTANTIATE_TEST_SUITE_P(EverySetting, BudgetCeilingTest, ::testing::ValuesIn(Ceilings()),
                         [](const ::testing::TestParamInfo<Ceiling>& row) { return std::string(row.param.field); });

TEST(BudgetConfigTest, ResidentProductAtExactly1GiBPasses) {
  BudgetConfig c = BudgetConfig::Defaults();
  c.resident_case_batches = 16;
  c.case_batch_max_bytes = 64 * bb::kMiB;
  Status s = c.Validate();
  EXPECT_TRUE(s.ok()) << s.ToString();
  Result<uint64_t> r = c.ResidentReservationBytes();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, bb::kGiB);
}

TEST(BudgetConfigTest, ResidentProductOneByteOver1GiBFails) {
  EXPECT_TRUE(BudgetConfig::CheckResidentReservation(1, bb::kGiB).ok());
  ExpectInvalidSetting(BudgetConfig::CheckResidentReservation(1, bb::kGiB + 1), "resident_case_batches", bb::kGiB);
  EXPECT_TRUE(BudgetConfig::CheckResidentReservation(2, 512 * bb::kMiB).ok());
  ExpectInvalidSetting(BudgetConfig::CheckResidentReservation(2, 512 * bb::kMiB + 1), "resident_case_batches",
                       bb::kGiB);
  ExpectInvalidSetting(BudgetConfig::CheckResidentReservation(16, 64 * bb::kMiB + 1), "resident_case_batches",
                       bb::kGiB);
}

// 2^63 × 2 wraps to 0, which a wrapping multiply would accept.
TEST(BudgetConfigTest, ResidentProductOverflowIsCaughtNotWrapped) {
  const uint64_t huge = uint64_t{1} << 63;
  Status s = BudgetConfig::CheckResidentReservation(huge, 2);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_THAT(std::string(s.message()), HasSubstr("overflows"));

  BudgetConfig c = BudgetConfig::Defaults();
  c.resident_case_batches = huge;
  c.case_batch_max_bytes = 2;
  Result<uint64_t> r = c.ResidentReservationBytes();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(r.status().path(), "resident_case_batches");
  EXPECT_EQ(c.Validate().code(), StatusCode::kInvalidArgument);

  c.resident_case_batches = kU64Max;
  c.case_batch_max_bytes = kU64Max;
  EXPECT_EQ(c.ResidentReservationBytes().status().code(), StatusCode::kOutOfRange);
}

TEST(BudgetConfigTest, StagingSpoolSmallerThanOneBatchFails) {
  BudgetConfig c = BudgetConfig::Defaults();
  c.staging_spool_bytes = c.case_batch_max_bytes;
  EXPECT_TRUE(c.Validate().ok());
  c.staging_spool_bytes = c.case_batch_max_bytes - 1;
  ExpectInvalidSetting(c.Validate(), "staging_spool_bytes", c.case_batch_max_bytes);
}

TEST(BudgetConfigTest, ControlWorkingSetMustHoldOnePageAndOneRoot) {
  BudgetConfig c = BudgetConfig::Defaults();
  c.page_max_bytes = 8 * bb::kMiB;
  c.control_working_set_bytes = 8 * bb::kMiB;
  EXPECT_TRUE(c.Validate().ok());
  c.control_working_set_bytes = 8 * bb::kMiB - 1;
  ExpectInvalidSetting(c.Validate(), "control_working_set_bytes", 8 * bb::kMiB);

  c = BudgetConfig::Defaults();
  c.page_max_bytes = 256;
  c.root_manifest_max_bytes = bb::kMiB;
  c.control_working_set_bytes = bb::kMiB;
  EXPECT_TRUE(c.Validate().ok());
  c.control_working_set_bytes = bb::kMiB - 1;
  ExpectInvalidSetting(c.Validate(), "control_working_set_bytes", bb::kMiB);
}

TEST(BudgetConfigTest, StreamBufferingProductIsBounded) {
  BudgetConfig c = BudgetConfig::Defaults();
  c.concurrent_remote_requests = 8;
  c.stream_buffer_bytes = 8 * bb::kMiB;
  EXPECT_TRUE(c.Validate().ok());
  c.concurrent_remote_requests = 9;
  ExpectInvalidSetting(c.Validate(), "stream_buffer_bytes", bb::kMaxStreamBufferingBytes);

  c.concurrent_remote_requests = 64;
  c.stream_buffer_bytes = bb::kMiB;
  EXPECT_TRUE(c.Validate().ok());
  c.stream_buffer_bytes = bb::kMiB + 1;
  ExpectInvalidSetting(c.Validate(), "stream_buffer_bytes", bb::kMaxStreamBufferingBytes);
}

TEST(BudgetConfigTest, ValidationSpoolMustHoldSortRunPlusBatch) {
  BudgetConfig c = BudgetConfig::Defaults();
  c.external_sort_buffer_bytes = bb::kGiB;
  c.case_batch_max_bytes = 64 * bb::kMiB;
  c.ingestion_validation_spool_bytes = bb::kGiB + 64 * bb::kMiB;
  EXPECT_TRUE(c.Validate().ok());
  c.ingestion_validation_spool_bytes -= 1;
  ExpectInvalidSetting(c.Validate(), "ingestion_validation_spool_bytes", bb::kGiB + 64 * bb::kMiB);
}

TEST(BudgetConfigTest, TimeoutsAndBackoffFitTheOperationDeadline) {
  BudgetConfig c = BudgetConfig::Defaults();
  c.object_operation_deadline_ms = std::chrono::seconds(20);
  c.connection_timeout_ms = std::chrono::seconds(20);
  c.no_progress_timeout_ms = std::chrono::seconds(20);
  EXPECT_TRUE(c.Validate().ok());
  c.connection_timeout_ms = milliseconds(20'001);
  ExpectInvalidSetting(c.Validate(), "connection_timeout_ms", 20'000);
  c.connection_timeout_ms = std::chrono::seconds(5);
  c.no_progress_timeout_ms = milliseconds(20'001);
  ExpectInvalidSetting(c.Validate(), "no_progress_timeout_ms", 20'000);

  c = BudgetConfig::Defaults();
  c.object_operation_deadline_ms = std::chrono::seconds(1);
  c.connection_timeout_ms = std::chrono::seconds(1);
  c.no_progress_timeout_ms = std::chrono::seconds(1);
  c.retry_backoff_cap_ms = std::chrono::seconds(1);
  EXPECT_TRUE(c.Validate().ok());
  c.retry_backoff_cap_ms = milliseconds(1'001);
  ExpectInvalidSetting(c.Validate(), "retry_backoff_cap_ms", 1'000);
}

TEST(BudgetConfigTest, NegativeDurationsFail) {
  BudgetConfig c = BudgetConfig::Defaults();
  c.connection_timeout_ms = milliseconds(-1);
  ExpectInvalidSetting(c.Validate(), "connection_timeout_ms", 1);
  c = BudgetConfig::Defaults();
  c.cleanup_deadline_ms = milliseconds(std::numeric_limits<int64_t>::min());
  ExpectInvalidSetting(c.Validate(), "cleanup_deadline_ms", 1'000);
}

TEST(BudgetConfigTest, HugeValuesAreRejectedNotWrapped) {
  BudgetConfig c = BudgetConfig::Defaults();
  c.concurrent_remote_requests = kU64Max;
  c.stream_buffer_bytes = kU64Max;
  EXPECT_EQ(c.Validate().code(), StatusCode::kInvalidArgument);
  c = BudgetConfig::Defaults();
  c.external_sort_buffer_bytes = kU64Max;
  c.case_batch_max_bytes = 1;
  EXPECT_EQ(c.Validate().code(), StatusCode::kInvalidArgument);
}

TEST(BudgetConfigTest, BackoffCeilingDoublesUpToTwoSeconds) {
  const BudgetConfig c = BudgetConfig::Defaults();
  EXPECT_EQ(c.BackoffCeiling(0), milliseconds(250));
  EXPECT_EQ(c.BackoffCeiling(1), milliseconds(500));
  EXPECT_EQ(c.BackoffCeiling(2), milliseconds(1'000));
  EXPECT_EQ(c.BackoffCeiling(3), milliseconds(2'000));
  EXPECT_EQ(c.BackoffCeiling(4), milliseconds(2'000));
}

TEST(BudgetConfigTest, BackoffCeilingLargeIndexesDoNotOverflow) {
  const BudgetConfig c = BudgetConfig::Defaults();
  for (uint32_t index : {31u, 32u, 61u, 62u, 63u, 64u, 1'000u, std::numeric_limits<uint32_t>::max()}) {
    EXPECT_EQ(c.BackoffCeiling(index), milliseconds(2'000)) << "retry_index " << index;
  }
}

TEST(BudgetConfigTest, BackoffCeilingUsesConfiguredBaseAndCap) {
  BudgetConfig c = BudgetConfig::Defaults();
  c.retry_backoff_base_ms = milliseconds(1);
  c.retry_backoff_cap_ms = milliseconds(60'000);
  EXPECT_EQ(c.BackoffCeiling(15), milliseconds(32'768));
  EXPECT_EQ(c.BackoffCeiling(16), milliseconds(60'000));
  EXPECT_EQ(c.BackoffCeiling(62), milliseconds(60'000));
  c.retry_backoff_base_ms = milliseconds(60'000);
  EXPECT_EQ(c.BackoffCeiling(0), milliseconds(60'000));
  EXPECT_EQ(c.BackoffCeiling(1), milliseconds(60'000));
}

TEST(AdmitBatchPolicyTest, AcceptsTheDefaultPolicy) {
  const BudgetConfig c = BudgetConfig::Defaults();
  Status s = c.AdmitBatchPolicy(c.case_batch_max_cases, c.case_batch_max_bytes);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(AdmitBatchPolicyTest, AcceptsADifferentPolicyThatFits) {
  const BudgetConfig c = BudgetConfig::Defaults();
  EXPECT_TRUE(c.AdmitBatchPolicy(1'000, 4 * bb::kMiB).ok());
  EXPECT_TRUE(c.AdmitBatchPolicy(1, 256).ok());
  EXPECT_TRUE(c.AdmitBatchPolicy(65'536, 8 * bb::kMiB).ok());
}

TEST(AdmitBatchPolicyTest, RejectsAPolicyOutsideTheFormat) {
  const BudgetConfig c = BudgetConfig::Defaults();
  for (uint64_t cases : {uint64_t{0}, uint64_t{65'537}, kU64Max}) {
    Status s = c.AdmitBatchPolicy(cases, bb::kMiB);
    EXPECT_EQ(s.code(), StatusCode::kInvalidFormat) << s.ToString();
    EXPECT_EQ(s.path(), "batch_limits.max_cases");
  }
  for (uint64_t bytes : {uint64_t{255}, 64 * bb::kMiB + 1, kU64Max}) {
    Status s = c.AdmitBatchPolicy(100, bytes);
    EXPECT_EQ(s.code(), StatusCode::kInvalidFormat) << s.ToString();
    EXPECT_EQ(s.path(), "batch_limits.max_bytes");
  }
}

// Issue 20: a dataset packed with 16 MiB (or up to 64 MiB) batches is read
// with default settings: the reservation is resident_case_batches × the
// published max_bytes, not × this process's own case_batch_max_bytes.
TEST(AdmitBatchPolicyTest, ReservesFromThePublishedPolicy) {
  BudgetConfig c = BudgetConfig::Defaults();  // case_batch_max_bytes 8 MiB
  EXPECT_TRUE(c.AdmitBatchPolicy(100, 16 * bb::kMiB).ok());
  EXPECT_TRUE(c.AdmitBatchPolicy(100, 64 * bb::kMiB).ok());
  c.resident_case_batches = 16;  // 16 × 64 MiB is exactly the 1 GiB ceiling
  EXPECT_TRUE(c.AdmitBatchPolicy(100, 64 * bb::kMiB).ok());
  c.resident_case_batches = 1;
  c.case_batch_max_bytes = 256;
  c.staging_spool_bytes = 64 * bb::kMiB;
  EXPECT_TRUE(c.AdmitBatchPolicy(100, 64 * bb::kMiB).ok());
}

TEST(AdmitBatchPolicyTest, RejectsABatchLargerThanTheSpool) {
  BudgetConfig c = BudgetConfig::Defaults();
  c.case_batch_max_bytes = bb::kMiB;
  c.staging_spool_bytes = bb::kMiB;
  EXPECT_TRUE(c.AdmitBatchPolicy(100, bb::kMiB).ok());
  Status s = c.AdmitBatchPolicy(100, 16 * bb::kMiB);
  EXPECT_EQ(s.code(), StatusCode::kLimitExceeded) << s.ToString();
  EXPECT_EQ(s.path(), "staging_spool_bytes");
  EXPECT_EQ(s.message(), "a published batch of up to 16777216 bytes (16 MiB) does not fit staging_spool_bytes "
                         "(1048576 bytes (1 MiB)); staging_spool_bytes of at least 16777216 bytes (16 MiB) would "
                         "admit it");
  // The override the message names admits it.
  c.staging_spool_bytes = 16 * bb::kMiB;
  EXPECT_TRUE(c.AdmitBatchPolicy(100, 16 * bb::kMiB).ok());
}

TEST(AdmitBatchPolicyTest, RejectsWhenTheConfigIsInvalid) {
  BudgetConfig c = BudgetConfig::Defaults();
  c.resident_case_batches = 0;
  Status s = c.AdmitBatchPolicy(100, bb::kMiB);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.path(), "resident_case_batches");
}

TEST(CheckRecordFitsTest, HeaderRecordAndBothLineFeedsCount) {
  BudgetConfig c = BudgetConfig::Defaults();
  c.case_batch_max_bytes = 1'000;
  EXPECT_TRUE(c.CheckRecordFits(100, 898).ok());
  Status s = c.CheckRecordFits(100, 899);
  EXPECT_EQ(s.code(), StatusCode::kLimitExceeded) << s.ToString();
  EXPECT_EQ(s.path(), "case_batch_max_bytes");
  EXPECT_THAT(std::string(s.message()), HasSubstr("1001 bytes"));
}

TEST(CheckRecordFitsTest, OverflowingSizesAreRejectedNotWrapped) {
  const BudgetConfig c = BudgetConfig::Defaults();
  EXPECT_EQ(c.CheckRecordFits(kU64Max, 1).code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(c.CheckRecordFits(1, kU64Max - 1).code(), StatusCode::kLimitExceeded);  // sum fits, LFs wrap
}

TEST(CheckRecordFitsTest, EmptyLinesAreInvalidArguments) {
  const BudgetConfig c = BudgetConfig::Defaults();
  EXPECT_EQ(c.CheckRecordFits(0, 10).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(c.CheckRecordFits(10, 0).code(), StatusCode::kInvalidArgument);
}

TEST(CheckDescriptorFitsTest, EnvelopePlusDescriptorMustFitThePage) {
  BudgetConfig c = BudgetConfig::Defaults();
  c.page_max_bytes = 4'096;
  EXPECT_TRUE(c.CheckDescriptorFits(120, 3'976).ok());
  Status s = c.CheckDescriptorFits(120, 3'977);
  EXPECT_EQ(s.code(), StatusCode::kLimitExceeded) << s.ToString();
  EXPECT_EQ(s.path(), "page_max_bytes");
  EXPECT_EQ(c.CheckDescriptorFits(kU64Max, 1).code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(c.CheckDescriptorFits(0, 1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(c.CheckDescriptorFits(1, 0).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace vigilo::cases
