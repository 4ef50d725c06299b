#include "vigilo/json/tokenizer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::json {
namespace {

// Hands out at most `chunk` bytes per Read, to exercise every window boundary.
class ChunkedSource final : public ByteSource {
 public:
  ChunkedSource(std::string data, size_t chunk) : data_(std::move(data)), chunk_(chunk) {}
  Result<size_t> Read(std::span<char> buf) override {
    size_t n = std::min({buf.size(), chunk_, data_.size() - pos_});
    std::memcpy(buf.data(), data_.data() + pos_, n);
    pos_ += n;
    return n;
  }

 private:
  std::string data_;
  size_t chunk_;
  size_t pos_ = 0;
};

// Rebuilds the document from tokens, to compare with the DOM parser.
Result<std::string> Retokenize(const std::string& text, size_t chunk, size_t window) {
  ChunkedSource source(text, chunk);
  TokenizerOptions options;
  options.window_bytes = window;
  Tokenizer tok(source, options);
  std::string out;
  std::vector<bool> need_comma{false};
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(Token t, tok.Next());
    bool closing = t.type == TokenType::kEndObject || t.type == TokenType::kEndArray;
    if (t.type == TokenType::kEnd) return out;
    if (!closing && need_comma.back()) out.push_back(',');
    switch (t.type) {
      case TokenType::kBeginObject: out.push_back('{'); need_comma.back() = true; need_comma.push_back(false); break;
      case TokenType::kBeginArray: out.push_back('['); need_comma.back() = true; need_comma.push_back(false); break;
      case TokenType::kEndObject: out.push_back('}'); need_comma.pop_back(); break;
      case TokenType::kEndArray: out.push_back(']'); need_comma.pop_back(); break;
      case TokenType::kKey: WriteString(t.text, &out); out.push_back(':'); need_comma.back() = false; break;
      case TokenType::kString: WriteString(t.text, &out); need_comma.back() = true; break;
      case TokenType::kNumber: {
        VIGILO_ASSIGN_OR_RETURN(std::string n, ToCanonical(Value(t.number)));
        out += n;
        need_comma.back() = true;
        break;
      }
      case TokenType::kBool: out += t.boolean ? "true" : "false"; need_comma.back() = true; break;
      case TokenType::kNull: out += "null"; need_comma.back() = true; break;
      case TokenType::kEnd: break;
    }
  }
}

const char* kDoc =
    R"({"cases":[{"id":"a","input":{"prompt":"h\u00e9llo \ud83d\ude00"},"n":-12.5e3},)"
    R"({"id":"b","input":[true,false,null,18446744073709551615,-0]}],"dataset_id":"d","x":{}, "y":[]})";

TEST(TokenizerTest, TokensMatchTheDomParserAtEveryChunkSize) {
  // Key order differs (the token stream keeps input order), so compare values.
  auto expected = Parse(kDoc);
  ASSERT_TRUE(expected.ok());
  for (size_t chunk : {1, 2, 3, 7, 64, 4096}) {
    for (size_t window : {32, 64, 1024}) {
      auto rebuilt = Retokenize(kDoc, chunk, window);
      ASSERT_TRUE(rebuilt.ok()) << chunk << "/" << window << ": " << rebuilt.status().ToString();
      auto reparsed = Parse(*rebuilt);
      ASSERT_TRUE(reparsed.ok());
      EXPECT_EQ(*reparsed, *expected) << chunk << "/" << window;
    }
  }
}

TEST(TokenizerTest, ReadValueTakesOneCaseAtATime) {
  ChunkedSource source(kDoc, 5);
  TokenizerOptions options;
  options.window_bytes = 64;
  Tokenizer tok(source, options);
  ASSERT_EQ(tok.Next()->type, TokenType::kBeginObject);
  auto key = tok.Next();
  ASSERT_EQ(key->type, TokenType::kKey);
  ASSERT_EQ(key->text, "cases");
  ASSERT_EQ(tok.Next()->type, TokenType::kBeginArray);
  ASSERT_TRUE(*tok.HasNextElement());
  auto first = tok.ReadValue(1 << 20);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->as_object().Find("id")->as_string(), "a");
  EXPECT_EQ(*ToCanonical(*first),
            "{\"id\":\"a\",\"input\":{\"prompt\":\"h\xc3\xa9llo \xf0\x9f\x98\x80\"},\"n\":-12500.0}");
  ASSERT_TRUE(*tok.HasNextElement());
  auto second = tok.ReadValue(1 << 20);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(*ToCanonical(*second), R"({"id":"b","input":[true,false,null,18446744073709551615,-0.0]})");
  EXPECT_FALSE(*tok.HasNextElement());
  EXPECT_EQ(tok.Next()->type, TokenType::kEndArray);
  EXPECT_EQ(tok.Next()->type, TokenType::kKey);
}

TEST(TokenizerTest, HasNextElementRejectsBadSeparators) {
  for (const char* doc : {"[1,]", "[1 2]", "[1"}) {
    StringByteSource source(doc);
    Tokenizer tok(source);
    ASSERT_EQ(tok.Next()->type, TokenType::kBeginArray);
    ASSERT_TRUE(*tok.HasNextElement());
    ASSERT_TRUE(tok.ReadValue(100).ok());
    EXPECT_EQ(tok.HasNextElement().status().code(), StatusCode::kParseError) << doc;
  }
  StringByteSource empty("[]");
  Tokenizer tok(empty);
  ASSERT_EQ(tok.Next()->type, TokenType::kBeginArray);
  EXPECT_FALSE(*tok.HasNextElement());
  EXPECT_EQ(tok.Next()->type, TokenType::kEndArray);
  EXPECT_EQ(tok.Next()->type, TokenType::kEnd);
}

TEST(TokenizerTest, SkipValueSkipsWholeSubtrees) {
  ChunkedSource source(kDoc, 3);
  TokenizerOptions options;
  options.window_bytes = 64;
  Tokenizer tok(source, options);
  ASSERT_EQ(tok.Next()->type, TokenType::kBeginObject);
  ASSERT_EQ(tok.Next()->text, "cases");
  ASSERT_TRUE(tok.SkipValue().ok());
  auto key = tok.Next();
  ASSERT_EQ(key->type, TokenType::kKey);
  EXPECT_EQ(key->text, "dataset_id");
  EXPECT_EQ(tok.ReadValue(100)->as_string(), "d");
  EXPECT_EQ(tok.Next()->text, "x");
  EXPECT_TRUE(tok.SkipValue().ok());
  EXPECT_EQ(tok.Next()->text, "y");
  EXPECT_TRUE(tok.SkipValue().ok());
  EXPECT_EQ(tok.Next()->type, TokenType::kEndObject);
  EXPECT_EQ(tok.Next()->type, TokenType::kEnd);
  // Skipping still applies every rule.
  StringByteSource bad("[{\"a\":1,\"a\":2}]");
  Tokenizer bad_tok(bad);
  EXPECT_EQ(bad_tok.SkipValue().code(), StatusCode::kParseError);
}

TEST(TokenizerTest, ReadValueEnforcesItsLimit) {
  std::string doc = "[" + std::string("\"") + std::string(100, 'x') + "\"]";
  StringByteSource source(doc);
  Tokenizer tok(source);
  ASSERT_EQ(tok.Next()->type, TokenType::kBeginArray);
  auto v = tok.ReadValue(50);
  EXPECT_EQ(v.status().code(), StatusCode::kLimitExceeded);
  // The tokenizer stays failed afterwards.
  EXPECT_FALSE(tok.Next().ok());
}

Status FirstError(const std::string& text, size_t chunk = 3, size_t window = 64) {
  ChunkedSource source(text, chunk);
  TokenizerOptions options;
  options.window_bytes = window;
  Tokenizer tok(source, options);
  while (true) {
    auto t = tok.Next();
    if (!t.ok()) return t.status();
    if (t->type == TokenType::kEnd) return Status::Ok();
  }
}

TEST(TokenizerTest, SameStrictnessAsTheParser) {
  const char* bad[] = {
      "",          "{} x",        "[1,2,]",           "{\"a\":1,}",       "{\"a\":1,\"a\":2}", "\"\\ud800\"",
      "01",        "1e400",       "\"a\x01\"",        "\"\xff\"",         "[1 2]",            "{\"a\" 1}",
      "{a:1}",     "[",           "{\"a\":1",         "tru",              "\"abc",            "-",
      "\"\\x\"",   "\xef\xbb\xbf{}", "{\"k\":[1,2}",
  };
  for (const char* text : bad) {
    Status tokenized = FirstError(text);
    Status parsed = Parse(text).status();
    EXPECT_FALSE(tokenized.ok()) << "tokenizer accepted: " << text;
    EXPECT_FALSE(parsed.ok()) << "parser accepted: " << text;
  }
  EXPECT_TRUE(FirstError("[1e-400, -0, \"\\u00e9\"]").ok());
}

TEST(TokenizerTest, ErrorOffsetsAreAbsolute) {
  std::string doc = "[" + std::string(200, ' ') + "1,]";
  Status s = FirstError(doc, 7, 32);
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_NE(s.message().find("trailing comma"), std::string_view::npos) << s.ToString();
  EXPECT_EQ(s.offset(), 203u);
  std::string dup = "{\"" + std::string(40, 'k') + "\":1,\"" + std::string(40, 'k') + "\":2}";
  Status d = FirstError(dup, 5, 64);
  EXPECT_NE(d.message().find("duplicate"), std::string_view::npos);
  EXPECT_EQ(d.offset(), 46u);
}

// The window bounds reads, not token sizes: a token longer than it is read
// whole, up to max_token_bytes (quotes included), and refused beyond.
TEST(TokenizerTest, TokenLongerThanWindowIsReadUpToTheTokenLimit) {
  std::string doc = "[\"" + std::string(100, 'x') + "\",12345678901234567890]";
  for (size_t chunk : {1, 7, 1000}) {
    ChunkedSource source(doc, chunk);
    TokenizerOptions options;
    options.window_bytes = 16;
    options.max_token_bytes = 102;  // the string with its quotes
    Tokenizer tok(source, options);
    ASSERT_EQ(tok.Next()->type, TokenType::kBeginArray);
    auto s = tok.Next();
    ASSERT_TRUE(s.ok()) << chunk << ": " << s.status().ToString();
    EXPECT_EQ(s->text, std::string(100, 'x'));
    auto n = tok.Next();
    ASSERT_TRUE(n.ok()) << chunk << ": " << n.status().ToString();
    EXPECT_EQ(n->type, TokenType::kNumber);
  }
  ChunkedSource source(doc, 16);
  TokenizerOptions options;
  options.window_bytes = 16;
  options.max_token_bytes = 101;
  Tokenizer tok(source, options);
  ASSERT_TRUE(tok.Next().ok());
  auto s = tok.Next();
  EXPECT_EQ(s.status().code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(s.status().message(), "a JSON token is longer than the 101-byte token limit");
  EXPECT_EQ(s.status().offset(), 1u);
}

// Issue 20: a 300 KiB string used to be refused by the 256 KiB window.
TEST(TokenizerTest, DefaultOptionsReadAStringLongerThanTheWindow) {
  std::string big(300 << 10, 'p');
  std::string doc = "{\"prompt\":\"" + big + "\"}";
  ChunkedSource source(doc, 64 << 10);
  Tokenizer tok(source);
  auto v = tok.ReadValue(1 << 20);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->as_object().Find("prompt")->as_string(), big);
}

TEST(TokenizerTest, ByteOrderMarkGetsTheParsersMessage) {
  for (size_t chunk : {1, 2, 64}) {
    Status s = FirstError("\xef\xbb\xbf{}", chunk);
    EXPECT_EQ(s.code(), Parse("\xef\xbb\xbf{}").status().code());
    EXPECT_EQ(s.message(), "a byte order mark is not allowed") << chunk;
    EXPECT_EQ(s.offset(), 0u);
  }
  EXPECT_TRUE(FirstError("{}", 1).ok());
  EXPECT_TRUE(FirstError("1", 1).ok());
}

TEST(TokenizerTest, DepthLimit) {
  std::string ok = std::string(127, '[') + std::string(127, ']');
  EXPECT_TRUE(FirstError(ok).ok());
  std::string deep = std::string(128, '[') + std::string(128, ']');
  EXPECT_EQ(FirstError(deep).code(), StatusCode::kLimitExceeded);
}

TEST(TokenizerTest, UtfSequenceSplitAcrossReads) {
  std::string doc = "\"\xf0\x9f\x98\x80\xc3\xa9\"";
  for (size_t chunk = 1; chunk < doc.size(); ++chunk) {
    ChunkedSource source(doc, chunk);
    TokenizerOptions options;
    options.window_bytes = 16;
    Tokenizer tok(source, options);
    auto t = tok.Next();
    ASSERT_TRUE(t.ok()) << chunk << ": " << t.status().ToString();
    EXPECT_EQ(t->text, "\xf0\x9f\x98\x80\xc3\xa9");
  }
}

}  // namespace
}  // namespace vigilo::json
