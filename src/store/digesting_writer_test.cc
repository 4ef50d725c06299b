#include "vigilo/store/digesting_writer.h"

#include <gtest/gtest.h>

#include "vigilo/store/memory_store.h"

namespace vigilo::store {
namespace {

std::span<const uint8_t> AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

constexpr std::string_view kSha256Abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr std::string_view kSha256Empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr std::string_view kBlake3Abc = "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85";
constexpr std::string_view kBlake3Empty = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262";

TEST(DigestingWriterTest, HashesEveryAppendedByteBeforeCommit) {
  MemoryStore store;
  DigestingWriter sha(std::move(store.BeginCreate("s")).value(), DigestKind::kSha256);
  DigestingWriter b3(std::move(store.BeginCreate("b")).value(), DigestKind::kBlake3);
  EXPECT_EQ(sha.HexDigest(), kSha256Empty);
  EXPECT_EQ(b3.HexDigest(), kBlake3Empty);
  for (std::string_view part : {"a", "", "bc"}) {
    ASSERT_TRUE(sha.Append(AsBytes(part)).ok());
    ASSERT_TRUE(b3.Append(AsBytes(part)).ok());
  }
  EXPECT_EQ(sha.size(), 3u);
  EXPECT_EQ(sha.HexDigest(), kSha256Abc);
  EXPECT_EQ(b3.HexDigest(), kBlake3Abc);
  EXPECT_EQ(store.object_count(), 0u);  // known before anything is visible
  EXPECT_EQ(sha.Commit()->outcome, CreateOutcome::kCreated);
  EXPECT_EQ(b3.Commit()->size, 3u);
  EXPECT_EQ(store.Peek("s"), "abc");
  EXPECT_EQ(store.Peek("b"), "abc");
  EXPECT_EQ(sha.HexDigest(), kSha256Abc);
}

// Fails its second Append, as a full disk would.
class FailingWriter final : public ObjectWriter {
 public:
  Status Append(std::span<const uint8_t> bytes) override {
    if (++appends_ == 2) {
      failed_ = true;
      return LimitExceeded("disk full");
    }
    size_ += bytes.size();
    return Status::Ok();
  }
  uint64_t size() const override { return size_; }
  Result<CreateResult> Commit(const AttemptContext* = nullptr) override {
    if (failed_) return LimitExceeded("disk full");
    return CreateResult{CreateOutcome::kCreated, size_, std::nullopt};
  }

 private:
  int appends_ = 0;
  bool failed_ = false;
  uint64_t size_ = 0;
};

TEST(DigestingWriterTest, AFailedAppendIsNotHashedAndCommitFails) {
  DigestingWriter writer(std::make_unique<FailingWriter>(), DigestKind::kSha256);
  ASSERT_TRUE(writer.Append(AsBytes("abc")).ok());
  EXPECT_EQ(writer.Append(AsBytes("more")).code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(writer.HexDigest(), kSha256Abc);
  EXPECT_EQ(writer.size(), 3u);
  EXPECT_EQ(writer.Commit().status().code(), StatusCode::kLimitExceeded);
}

TEST(DigestingWriterTest, CommitReportsTheBackendsOutcome) {
  MemoryStore store;
  ASSERT_TRUE(store.CreateIfAbsent("k", AsBytes("abc")).ok());
  DigestingWriter same(std::move(store.BeginCreate("k")).value(), DigestKind::kBlake3);
  ASSERT_TRUE(same.Append(AsBytes("abc")).ok());
  EXPECT_EQ(same.Commit()->outcome, CreateOutcome::kAlreadyIdentical);
  DigestingWriter other(std::move(store.BeginCreate("k")).value(), DigestKind::kBlake3);
  ASSERT_TRUE(other.Append(AsBytes("abd")).ok());
  EXPECT_EQ(other.Commit().status().code(), StatusCode::kAlreadyExists);
}

}  // namespace
}  // namespace vigilo::store
