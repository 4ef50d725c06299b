// The s3 backend's settings, credential sources, URLs and error
// classification, without a server (the RGW cases: s3_store_test.cc).
#include "s3_settings.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "vigilo/json/parse.h"
#include "vigilo/store/config.h"

namespace vigilo::store::s3 {
namespace {

StoreEntry EntryOf(std::string url, std::string backend_json) {
  StoreEntry entry;
  entry.alias = "lake";
  entry.scheme = "s3";
  entry.url = std::move(url);
  if (!backend_json.empty()) entry.backend = std::move(json::Parse(backend_json)).value();
  return entry;
}

constexpr const char* kBackend =
    R"({"endpoint":"http://127.0.0.1:7480","region":"us-east-1","credentials":{"source":"environment"}})";

TEST(S3SettingsTest, ParsesUrlEndpointRegionAddressingAndCredentials) {
  auto s = ParseSettings(EntryOf("s3://my-bucket/pre/fix/", kBackend), "$.stores.lake");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->bucket, "my-bucket");
  EXPECT_EQ(s->prefix, "pre/fix");
  EXPECT_EQ(s->endpoint_scheme, "http");
  EXPECT_EQ(s->endpoint_authority, "127.0.0.1:7480");
  EXPECT_EQ(s->region, "us-east-1");
  EXPECT_FALSE(s->virtual_addressing);
  EXPECT_EQ(s->source, CredentialSource::kEnvironment);
  EXPECT_EQ(s->access_key_id_variable, "AWS_ACCESS_KEY_ID");
  EXPECT_EQ(ObjectKey(*s, "a/b c"), "pre/fix/a/b c");
  EXPECT_EQ(ObjectUrl(*s, "ivf_postings/cid_bucket=000001/p 0.parquet"),
            "http://127.0.0.1:7480/my-bucket/pre/fix/ivf_postings/cid_bucket%3D000001/p%200.parquet");

  auto v = ParseSettings(
      EntryOf("s3://my-bucket",
              R"({"endpoint":"https://s3.example.net/","region":"eu-west-1","addressing":"virtual",)"
              R"("credentials":{"source":"file","path":"/etc/creds","profile":"ci"},"spool_directory":"/var/tmp"})"),
      "$.stores.lake");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_TRUE(v->virtual_addressing);
  EXPECT_EQ(v->prefix, "");
  EXPECT_EQ(v->source, CredentialSource::kFile);
  EXPECT_EQ(v->credentials_path, "/etc/creds");
  EXPECT_EQ(v->profile, "ci");
  EXPECT_EQ(v->spool_directory, "/var/tmp");
  EXPECT_EQ(ObjectUrl(*v, "k"), "https://my-bucket.s3.example.net/k");

  auto named = ParseSettings(
      EntryOf("s3://bkt", R"({"endpoint":"http://h","region":"r","credentials":{"source":"environment",)"
                          R"("variables":{"access_key_id":"CI_KEY","secret_access_key":"CI_SECRET"}}})"),
      "$.stores.lake");
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->access_key_id_variable, "CI_KEY");
  EXPECT_EQ(named->secret_access_key_variable, "CI_SECRET");
  EXPECT_EQ(named->session_token_variable, "AWS_SESSION_TOKEN");
}

TEST(S3SettingsTest, BadSettingsNameTheirFieldAndNeverQuoteTheUrl) {
  struct Case {
    std::string url, backend, path;
  };
  const std::string creds = R"("credentials":{"source":"environment"})";
  std::vector<Case> cases = {
      {"s3://secret-bucket/p", "", "$.stores.lake.backend"},
      {"s3://Secret_Bucket/p", kBackend, "$.stores.lake.url"},
      {"s3://secret-bucket/p//q", kBackend, "$.stores.lake.url"},
      {"s3://secret-bucket/p", R"({"region":"r",)" + creds + "}", "$.stores.lake.backend.endpoint"},
      {"s3://secret-bucket/p", R"({"endpoint":"ftp://secret.example","region":"r",)" + creds + "}",
       "$.stores.lake.backend.endpoint"},
      {"s3://secret-bucket/p", R"({"endpoint":"http://user:secret@secret.example","region":"r",)" + creds + "}",
       "$.stores.lake.backend.endpoint"},
      {"s3://secret-bucket/p", R"({"endpoint":"http://secret.example/path","region":"r",)" + creds + "}",
       "$.stores.lake.backend.endpoint"},
      {"s3://secret-bucket/p", R"({"endpoint":"http://h","region":"US East",)" + creds + "}",
       "$.stores.lake.backend.region"},
      {"s3://secret-bucket/p", R"({"endpoint":"http://h","region":"r","addressing":"dns",)" + creds + "}",
       "$.stores.lake.backend.addressing"},
      {"s3://secret-bucket/p", R"({"endpoint":"http://h","region":"r"})", "$.stores.lake.backend.credentials"},
      {"s3://secret-bucket/p",
       R"({"endpoint":"http://h","region":"r","credentials":{"source":"inline","secret":"hunter2"}})",
       "$.stores.lake.backend.credentials.source"},
      {"s3://secret-bucket/p",
       R"({"endpoint":"http://h","region":"r","credentials":{"source":"environment","secret":"hunter2"}})",
       "$.stores.lake.backend.credentials.secret"},
      {"s3://secret-bucket/p",
       R"({"endpoint":"http://h","region":"r","credentials":{"source":"file","path":"relative/creds"}})",
       "$.stores.lake.backend.credentials.path"},
      {"s3://secret-bucket/p",
       R"({"endpoint":"http://h","region":"r","credentials":{"source":"environment","variables":{"access_key_id":"A B"}}})",
       "$.stores.lake.backend.credentials.variables.access_key_id"},
      {"s3://secret-bucket/p", R"({"endpoint":"http://h","region":"r","sekrit":1,)" + creds + "}",
       "$.stores.lake.backend.sekrit"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.url + " " + c.backend);
    Status s = ParseSettings(EntryOf(c.url, c.backend), "$.stores.lake").status();
    EXPECT_EQ(s.code(), StatusCode::kInvalidFormat) << s.ToString();
    EXPECT_EQ(s.path(), c.path) << s.ToString();
    for (std::string_view secret : {"secret", "Secret", "hunter2", "user:"}) {
      EXPECT_EQ(s.message().find(secret), std::string_view::npos) << s.ToString();
    }
  }
}

TEST(S3SettingsTest, CredentialsFileProfiles) {
  const std::string text =
      "# comment\n[default]\naws_access_key_id = AKDEFAULT\naws_secret_access_key=sdefault\n\n"
      "[profile ci]\r\naws_access_key_id = AKCI\r\naws_secret_access_key = sci\r\naws_session_token = tok\r\n"
      "[broken]\naws_access_key_id = AKB\n";
  auto d = ParseCredentialsFile(text, "default");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->access_key_id, "AKDEFAULT");
  EXPECT_EQ(d->secret_access_key, "sdefault");
  EXPECT_EQ(d->session_token, "");
  auto ci = ParseCredentialsFile(text, "ci");
  ASSERT_TRUE(ci.ok()) << ci.status().ToString();
  EXPECT_EQ(ci->access_key_id, "AKCI");
  EXPECT_EQ(ci->session_token, "tok");
  EXPECT_EQ(ParseCredentialsFile(text, "none").status().code(), StatusCode::kNotFound);
  Status broken = ParseCredentialsFile(text, "broken").status();
  EXPECT_EQ(broken.code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(broken.message(), "profile broken has no aws_secret_access_key");
}

TEST(S3SettingsTest, MissingCredentialsNameTheSettingAndTheVariableNeverAValue) {
  auto s = ParseSettings(EntryOf("s3://bkt", kBackend), "$.stores.lake");
  ASSERT_TRUE(s.ok());
  // No environment handed over (the builtin registry's backend).
  Status none = ResolveCredentials(*s, nullptr).status();
  EXPECT_EQ(none.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(none.message().find("AWS_ACCESS_KEY_ID"), std::string_view::npos) << none.ToString();
  EXPECT_NE(none.message().find("backend.credentials"), std::string_view::npos) << none.ToString();

  std::map<std::string, std::string, std::less<>> env = {{"AWS_ACCESS_KEY_ID", "AKIAVALUE"}};
  S3EnvironmentLookup lookup = [&](std::string_view name) -> std::optional<std::string> {
    auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  Status missing = ResolveCredentials(*s, lookup).status();
  EXPECT_EQ(missing.message(),
            "the environment variable AWS_SECRET_ACCESS_KEY is unset or empty (backend.credentials.source)");
  EXPECT_EQ(missing.message().find("AKIAVALUE"), std::string_view::npos);
  env["AWS_SECRET_ACCESS_KEY"] = "";
  EXPECT_EQ(ResolveCredentials(*s, lookup).status().code(), StatusCode::kInvalidArgument);
  env["AWS_SECRET_ACCESS_KEY"] = "shh";
  env["AWS_SESSION_TOKEN"] = "tok";
  auto resolved = ResolveCredentials(*s, lookup);
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_EQ(resolved->access_key_id, "AKIAVALUE");
  EXPECT_EQ(resolved->secret_access_key, "shh");
  EXPECT_EQ(resolved->session_token, "tok");

  const auto dir = std::filesystem::temp_directory_path() / ("vigilo-s3creds-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto f = ParseSettings(
      EntryOf("s3://bkt", R"({"endpoint":"http://h","region":"r","credentials":{"source":"file","path":")" +
                              (dir / "missing").string() + R"(","profile":"p"}})"),
      "$.stores.lake");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  Status no_file = ResolveCredentials(*f, nullptr).status();
  EXPECT_EQ(no_file.code(), StatusCode::kNotFound);
  EXPECT_NE(no_file.message().find("(backend.credentials.path)"), std::string_view::npos) << no_file.ToString();
  std::ofstream(dir / "missing") << "[q]\naws_access_key_id=A\naws_secret_access_key=B\n";
  Status no_profile = ResolveCredentials(*f, nullptr).status();
  EXPECT_EQ(no_profile.message(), "the credentials file has no profile p (backend.credentials)");
  std::filesystem::remove_all(dir);
}

TEST(S3SettingsTest, ErrorAnswersAreClassifiedForTheGovernor) {
  EXPECT_EQ(ErrorCode("<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><BucketName>b</BucketName></Error>"),
            "NoSuchKey");
  EXPECT_EQ(ErrorCode("<Error><Code>a b</Code></Error>"), "");
  EXPECT_EQ(ErrorCode("not xml"), "");
  struct Case {
    int status;
    std::string code;
    StatusCode expected;
  };
  for (const Case& c : std::vector<Case>{{503, "SlowDown", StatusCode::kUnavailable},
                                         {500, "InternalError", StatusCode::kUnavailable},
                                         {502, "", StatusCode::kUnavailable},
                                         {429, "", StatusCode::kUnavailable},
                                         {409, "ConditionalRequestConflict", StatusCode::kUnavailable},
                                         {400, "XAmzContentSHA256Mismatch", StatusCode::kUnavailable},
                                         {400, "RequestTimeout", StatusCode::kUnavailable},
                                         {404, "NoSuchKey", StatusCode::kNotFound},
                                         {404, "NoSuchBucket", StatusCode::kIoError},
                                         {403, "SignatureDoesNotMatch", StatusCode::kIoError},
                                         {403, "InvalidAccessKeyId", StatusCode::kIoError},
                                         {403, "RequestTimeTooSkewed", StatusCode::kIoError},
                                         {400, "EntityTooLarge", StatusCode::kLimitExceeded},
                                         {416, "InvalidRange", StatusCode::kOutOfRange},
                                         {301, "PermanentRedirect", StatusCode::kIoError},
                                         {400, "InvalidArgument", StatusCode::kIoError}}) {
    Status s = ClassifyError(c.status, c.code);
    EXPECT_EQ(s.code(), c.expected) << c.status << " " << c.code << ": " << s.ToString();
    EXPECT_NE(s.message().find("HTTP " + std::to_string(c.status)), std::string_view::npos);
  }
  EXPECT_NE(ClassifyError(403, "SignatureDoesNotMatch").message().find("backend.credentials"), std::string_view::npos);
  EXPECT_NE(ClassifyError(403, "RequestTimeTooSkewed").message().find("clock"), std::string_view::npos);
}

}  // namespace
}  // namespace vigilo::store::s3
