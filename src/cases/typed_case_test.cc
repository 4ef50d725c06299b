#include "vigilo/cases/typed_case.h"

#include <gtest/gtest.h>

#include "vigilo/json/parse.h"

namespace vigilo::cases {
namespace {

json::Value J(std::string_view text) {
  auto v = json::Parse(text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status().ToString();
  return v.ok() ? *v : json::Value();
}

constexpr std::string_view kId = "3f2b8c1e-6a4d-4e0f-9b7a-1c2d3e4f5a6b";

std::string Case(std::string_view rest) {
  return "{\"id\":\"" + std::string(kId) + "\"" + (rest.empty() ? "" : ",") + std::string(rest) + "}";
}

TEST(TypedCaseTest, AppliesDefaults) {
  auto c = ValidateCase(J(Case(R"("input":{"prompt":"hi"})")));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->id.ToString(), kId);
  EXPECT_EQ(c->task_type, TaskType::kGeneration);
  EXPECT_TRUE(c->expected.is_null());
  EXPECT_TRUE(c->tags.empty());
  EXPECT_TRUE(c->metadata.is_object());
}

TEST(TypedCaseTest, AcceptsEveryTaskShape) {
  for (const char* rest : {
           R"("task_type":"generation","input":{"prompt":"p","system":"s"},"expected":{"answer":"a"})",
           R"("task_type":"classification","input":{"text":"t","labels":["pos","neg"]},"expected":"pos")",
           R"("task_type":"multiple_choice","input":{"question":"q","choices":["a","a"]},"expected":0)",
           R"("task_type":"conversation","input":{"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}]})",
           R"("input":{"prompt":"p"},"tags":["b","a"],"metadata":{"anything":[1,{"x":null}]})",
       }) {
    auto c = ValidateCase(J(Case(rest)));
    EXPECT_TRUE(c.ok()) << rest << ": " << c.status().ToString();
  }
}

void ExpectRejected(const std::string& text, std::string_view path, std::string_view fragment) {
  auto c = ValidateCase(J(text));
  ASSERT_FALSE(c.ok()) << text;
  EXPECT_EQ(c.status().path(), path) << c.status().ToString();
  EXPECT_NE(c.status().message().find(fragment), std::string_view::npos) << c.status().ToString();
}

TEST(TypedCaseTest, RejectsEachRule) {
  ExpectRejected(R"({"input":{"prompt":"p"}})", "$.id", "missing required field");
  ExpectRejected(R"({"id":"not-a-uuid","input":{"prompt":"p"}})", "$.id", "UUID");
  ExpectRejected(R"({"id":"3F2B8C1E-6A4D-4E0F-9B7A-1C2D3E4F5A6B","input":{"prompt":"p"}})", "$.id", "lowercase");
  ExpectRejected(R"({"id":"00000000-0000-0000-0000-000000000000","input":{"prompt":"p"}})", "$.id", "nil");
  ExpectRejected(R"({"id":7,"input":{"prompt":"p"}})", "$.id", "expected a string");
  ExpectRejected(Case(""), "$.input", "missing required field");
  ExpectRejected(Case(R"("input":{"prompt":"p"},"color":"red")"), "$.color", "unexpected field");
  ExpectRejected(Case(R"("input":{"prompt":"p"},"task_type":"chat")"), "$.task_type", "unknown task_type");
  ExpectRejected(Case(R"("input":"p")"), "$.input", "expected an object");
  ExpectRejected(Case(R"("input":{})"), "$.input.prompt", "missing required field");
  ExpectRejected(Case(R"("input":{"prompt":""})"), "$.input.prompt", "nonempty");
  ExpectRejected(Case(R"("input":{"prompt":"p","temperature":0.5})"), "$.input.temperature", "unexpected field");
  ExpectRejected(Case(R"("input":{"prompt":"p","system":1})"), "$.input.system", "expected a string");
  ExpectRejected(Case(R"("task_type":"classification","input":{"text":"t","labels":["a"]})"), "$.input.labels",
                 "at least 2");
  ExpectRejected(Case(R"("task_type":"classification","input":{"text":"t","labels":["a","a"]})"),
                 "$.input.labels[1]", "duplicate");
  ExpectRejected(Case(R"("task_type":"multiple_choice","input":{"question":"q","choices":["a"]})"),
                 "$.input.choices", "at least 2");
  ExpectRejected(Case(R"("task_type":"multiple_choice","input":{"question":"q","choices":["a",""]})"),
                 "$.input.choices[1]", "nonempty");
  ExpectRejected(Case(R"("task_type":"conversation","input":{"messages":[]})"), "$.input.messages", "at least one");
  ExpectRejected(Case(R"("task_type":"conversation","input":{"messages":[{"role":"bot","content":"x"}]})"),
                 "$.input.messages[0].role", "system, user or assistant");
  ExpectRejected(Case(R"("task_type":"conversation","input":{"messages":[{"role":"assistant","content":"x"}]})"),
                 "$.input.messages", "last message");
  ExpectRejected(Case(R"("task_type":"conversation","input":{"messages":[{"role":"user"}]})"),
                 "$.input.messages[0].content", "missing");
  ExpectRejected(Case(R"("input":{"prompt":"p"},"tags":"a")"), "$.tags", "expected an array");
  ExpectRejected(Case(R"("input":{"prompt":"p"},"tags":["a","a"])"), "$.tags[1]", "duplicate");
  ExpectRejected(Case(R"("input":{"prompt":"p"},"tags":[""])"), "$.tags[0]", "nonempty");
  ExpectRejected(Case(R"("input":{"prompt":"p"},"tags":[1])"), "$.tags[0]", "expected a string");
  ExpectRejected(Case(R"("input":{"prompt":"p"},"tags":["a\tb"])"), "$.tags[0]", "control");
  ExpectRejected(Case("\"input\":{\"prompt\":\"p\"},\"tags\":[\"" + std::string(129, 't') + "\"]"), "$.tags[0]",
                 "128 bytes");
  std::string many = "\"input\":{\"prompt\":\"p\"},\"tags\":[";
  for (int i = 0; i < 65; ++i) many += (i ? ",\"t" : "\"t") + std::to_string(i) + "\"";
  ExpectRejected(Case(many + "]"), "$.tags", "more than 64");
  ExpectRejected(Case(R"("input":{"prompt":"p"},"metadata":[1])"), "$.metadata", "expected an object");
  ExpectRejected("[1]", "$", "expected an object");
}

CaseHash HashOf(const std::string& text) { return NormalizedCaseHash(*ValidateCase(J(text))); }

TEST(TypedCaseTest, HashCoversContentNotIdOrMetadata) {
  CaseHash base = HashOf(Case(R"("input":{"prompt":"hi"},"tags":["x","y"])"));
  // Defaults are applied before hashing.
  EXPECT_EQ(base, HashOf(Case(R"("input":{"prompt":"hi"},"tags":["x","y"],"task_type":"generation","expected":null)")));
  // Tag order, id and metadata do not change it.
  EXPECT_EQ(base, HashOf(Case(R"("input":{"prompt":"hi"},"tags":["y","x"])")));
  EXPECT_EQ(base, HashOf(R"({"id":"0b6e4a2c-9d8f-4c1b-8e3a-5f6a7b8c9d0e","input":{"prompt":"hi"},"tags":["x","y"]})"));
  EXPECT_EQ(base, HashOf(Case(R"("input":{"prompt":"hi"},"tags":["x","y"],"metadata":{"source":"atlas"})")));
  // Content does.
  EXPECT_NE(base, HashOf(Case(R"("input":{"prompt":"hi!"},"tags":["x","y"])")));
  EXPECT_NE(base, HashOf(Case(R"("input":{"prompt":"hi"},"tags":["x"])")));
  EXPECT_NE(base, HashOf(Case(R"("input":{"prompt":"hi"},"tags":["x","y"],"expected":"a")")));
  EXPECT_NE(HashOf(Case(R"("input":{"prompt":"hi"},"expected":null)")),
            HashOf(Case(R"("input":{"prompt":"hi"},"expected":{})")));
}

}  // namespace
}  // namespace vigilo::cases
