#include "vigilo/common/status.h"

#include <gtest/gtest.h>

#include "vigilo/common/result.h"

namespace vigilo {
namespace {

TEST(StatusTest, OkHasNoMessage) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.ToString(), "ok");
}

TEST(StatusTest, CarriesCodeMessagePathAndOffset) {
  Status s = InvalidFormat("unknown metric \"dot\"").WithPath("$.index.metric").WithOffset(42);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(s.path(), "$.index.metric");
  EXPECT_EQ(s.offset(), 42u);
  EXPECT_EQ(s.ToString(), "invalid_format: $.index.metric: unknown metric \"dot\" (at byte 42)");
}

TEST(StatusTest, PrependPathNestsLocations) {
  Status s = InvalidFormat("must be positive").WithPath(".size");
  s = std::move(s).PrependPath("$.postings.files[3]");
  EXPECT_EQ(s.path(), "$.postings.files[3].size");
}

TEST(StatusTest, CopyIsDeep) {
  Status a = NotFound("x");
  Status b = a;
  b = std::move(b).WithPath("p");
  EXPECT_EQ(a.path(), "");
  EXPECT_EQ(b.path(), "p");
  EXPECT_EQ(b.code(), StatusCode::kNotFound);
}

TEST(StatusTest, CodeNamesAreStable) {
  EXPECT_EQ(StatusCodeName(StatusCode::kParseError), "parse_error");
  EXPECT_EQ(StatusCodeName(StatusCode::kNotCanonical), "not_canonical");
  EXPECT_EQ(StatusCodeName(StatusCode::kAlreadyExists), "already_exists");
  EXPECT_EQ(static_cast<int>(StatusCode::kInternal), 16);
}

Result<int> Half(int v) {
  if (v % 2 != 0) return InvalidArgument("odd");
  return v / 2;
}

Result<int> Quarter(int v) {
  VIGILO_ASSIGN_OR_RETURN(int h, Half(v));
  return Half(h);
}

TEST(ResultTest, PropagatesErrors) {
  EXPECT_EQ(*Quarter(8), 2);
  auto r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

TEST(ResultTest, OkStatusWithoutValueIsInternalError) {
  Result<int> r{Status::Ok()};
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace vigilo
