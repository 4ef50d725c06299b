// Generates random, non-canonical but valid JSON documents, one per line
// (JSON whitespace other than LF only), for the differential test against the
// serde_json oracle. Covers nesting, unicode keys and values, every escape
// form, extreme and oddly written numbers. Keys are unique after unescaping
// (vigilo rejects duplicates; serde_json would keep the last).
//
// usage: json_gen COUNT SEED [adversarial|dataset]
// The `dataset` profile writes evaluation-case-like objects (UUID ids, English
// prompts, tags, scores) with unsorted keys: the realistic benchmark corpus.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

namespace {

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed ? seed : 1) {}
  uint64_t Next() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 7;
    s_ ^= s_ << 17;
    return s_;
  }
  uint64_t Below(uint64_t n) { return Next() % n; }
  bool Chance(int percent) { return Below(100) < static_cast<uint64_t>(percent); }

 private:
  uint64_t s_;
};

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}

  void Whitespace(std::string* out) {
    static const char kWs[] = {' ', '\t', '\r'};
    while (rng_.Chance(15)) out->push_back(kWs[rng_.Below(3)]);
  }

  uint32_t RandomCodePoint() {
    switch (rng_.Below(8)) {
      case 0: return static_cast<uint32_t>(rng_.Below(0x20));              // controls
      case 1: return static_cast<uint32_t>(0x20 + rng_.Below(0x60));       // ASCII
      case 2: return static_cast<uint32_t>("\"\\/\x7f"[rng_.Below(4)]);
      case 3: return static_cast<uint32_t>(0x80 + rng_.Below(0x780));      // 2-byte
      case 4: {                                                             // 3-byte, no surrogates
        uint32_t cp = static_cast<uint32_t>(0x800 + rng_.Below(0xf800));
        return cp >= 0xd800 && cp <= 0xdfff ? 0xe000 : cp;
      }
      case 5: return static_cast<uint32_t>(0x10000 + rng_.Below(0x100000)); // astral
      case 6: return static_cast<uint32_t>(0x2028 + rng_.Below(2));         // LS/PS
      default: return static_cast<uint32_t>('a' + rng_.Below(26));
    }
  }

  // A decoded string (as code points) and its JSON text with random escaping.
  std::string StringText(std::string* decoded) {
    std::string text = "\"";
    size_t len = rng_.Below(4) == 0 ? rng_.Below(40) : rng_.Below(8);
    for (size_t i = 0; i < len; ++i) {
      uint32_t cp = RandomCodePoint();
      AppendUtf8(cp, decoded);
      bool must_escape = cp < 0x20 || cp == '"' || cp == '\\';
      if (must_escape || rng_.Chance(20)) {
        EscapeCodePoint(cp, &text);
      } else {
        AppendUtf8(cp, &text);
      }
    }
    return text + "\"";
  }

  void EscapeCodePoint(uint32_t cp, std::string* text) {
    const char* shorts = nullptr;
    switch (cp) {
      case '\b': shorts = "\\b"; break;
      case '\f': shorts = "\\f"; break;
      case '\n': shorts = "\\n"; break;
      case '\r': shorts = "\\r"; break;
      case '\t': shorts = "\\t"; break;
      case '"': shorts = "\\\""; break;
      case '\\': shorts = "\\\\"; break;
      case '/': shorts = "\\/"; break;
      default: break;
    }
    if (shorts && rng_.Chance(70)) {
      *text += shorts;
      return;
    }
    const char* fmt = rng_.Chance(50) ? "\\u%04x" : "\\u%04X";
    char buf[16];
    if (cp >= 0x10000) {
      uint32_t v = cp - 0x10000;
      std::snprintf(buf, sizeof buf, fmt, 0xd800 + (v >> 10));
      *text += buf;
      std::snprintf(buf, sizeof buf, fmt, 0xdc00 + (v & 0x3ff));
      *text += buf;
    } else {
      std::snprintf(buf, sizeof buf, fmt, cp);
      *text += buf;
    }
  }

  void Number(std::string* out) {
    char buf[64];
    switch (rng_.Below(10)) {
      case 0: {  // a random finite double, printed with 17 significant digits
        double d;
        do {
          uint64_t bits = rng_.Next();
          std::memcpy(&d, &bits, sizeof d);
        } while (!(d == d) || d - d != 0);
        std::snprintf(buf, sizeof buf, rng_.Chance(50) ? "%.17g" : "%.17E", d);
        *out += buf;
        return;
      }
      case 1: {  // integers around the u64/i64 boundaries
        static const char* kEdges[] = {"0", "-0", "18446744073709551615", "18446744073709551616",
                                       "-9223372036854775808", "-9223372036854775809", "9007199254740993",
                                       "9223372036854775807", "9223372036854775808", "-1",
                                       "123456789012345678901234567890"};
        *out += kEdges[rng_.Below(sizeof kEdges / sizeof kEdges[0])];
        return;
      }
      case 2: {  // extremes and underflow
        static const char* kExtremes[] = {"1.7976931348623157e308", "5e-324", "2.2250738585072014e-308",
                                          "1e-400", "-1e-400", "4.9e-324", "2.4e-324", "1e308", "1e-5",
                                          "1e16", "1e15", "9.999999999999999e22", "0.000001", "1E+2",
                                          "100e-2", "0.1e1", "10.0e-1", "-0.0", "0e0", "0.0e-0"};
        *out += kExtremes[rng_.Below(sizeof kExtremes / sizeof kExtremes[0])];
        return;
      }
      case 3: {  // long decimal mantissas with random exponents
        std::string s = rng_.Chance(30) ? "-" : "";
        s += static_cast<char>('1' + rng_.Below(9));
        size_t digits = rng_.Below(25);
        for (size_t i = 0; i < digits; ++i) s += static_cast<char>('0' + rng_.Below(10));
        if (rng_.Chance(50)) {
          s += '.';
          size_t frac = 1 + rng_.Below(20);
          for (size_t i = 0; i < frac; ++i) s += static_cast<char>('0' + rng_.Below(10));
        }
        // Keep the magnitude below 1e308 (overflow is an error on both sides); underflow is fine.
        int64_t max_exp = 306 - static_cast<int64_t>(digits);
        std::snprintf(buf, sizeof buf, "%s%" PRId64, rng_.Chance(50) ? "e" : "E",
                      static_cast<int64_t>(rng_.Below(static_cast<uint64_t>(max_exp + 350))) - 350);
        s += buf;
        *out += s;
        return;
      }
      case 4: {  // short decimals
        std::snprintf(buf, sizeof buf, "%" PRId64 ".%0*" PRIu64, static_cast<int64_t>(rng_.Below(2000)) - 1000,
                      static_cast<int>(1 + rng_.Below(6)), rng_.Below(1000));
        *out += buf;
        return;
      }
      default: {  // plain integers of all sizes
        uint64_t v = rng_.Next() >> rng_.Below(64);
        std::snprintf(buf, sizeof buf, rng_.Chance(30) ? "-%" PRIu64 : "%" PRIu64, v);
        *out += buf;
        return;
      }
    }
  }

  void Value(std::string* out, int depth) {
    Whitespace(out);
    uint64_t pick = depth > 5 ? 4 + rng_.Below(6) : rng_.Below(10);
    switch (pick) {
      case 0:
      case 1: Object(out, depth + 1); break;
      case 2:
      case 3: Array(out, depth + 1); break;
      case 4:
      case 5: {
        std::string decoded;
        *out += StringText(&decoded);
        break;
      }
      case 6:
      case 7: Number(out); break;
      case 8: *out += rng_.Chance(50) ? "true" : "false"; break;
      default: *out += "null"; break;
    }
    Whitespace(out);
  }

  // One evaluation case as a user would submit it: keys out of order, spaces.
  void DatasetCase(std::string* out) {
    static const char* kWords[] = {"the", "model", "should", "answer", "question", "about", "a", "river",
                                   "which", "flows", "through", "city", "of", "ancient", "stone", "and",
                                   "explain", "why", "its", "name", "changed", "over", "centuries", "given",
                                   "context", "below", "summarize", "briefly", "in", "three", "sentences"};
    auto sentence = [&](size_t words) {
      std::string text;
      for (size_t i = 0; i < words; ++i) {
        if (i) text += ' ';
        text += kWords[rng_.Below(sizeof kWords / sizeof kWords[0])];
      }
      return text;
    };
    char id[40];
    std::snprintf(id, sizeof id, "%08" PRIx64 "-%04" PRIx64 "-4%03" PRIx64 "-8%03" PRIx64 "-%012" PRIx64,
                  rng_.Next() & 0xffffffff, rng_.Next() & 0xffff, rng_.Next() & 0xfff, rng_.Next() & 0xfff,
                  rng_.Next() & 0xffffffffffff);
    char score[32];
    std::snprintf(score, sizeof score, "%.4f", static_cast<double>(rng_.Below(10000)) / 10000.0);
    *out += "{\"task_type\": \"generation\", \"input\": {\"prompt\": \"" + sentence(10 + rng_.Below(60)) +
            "\", \"system\": \"" + sentence(8) + "\"}, \"id\": \"" + id + "\", \"expected\": {\"answer\": \"" +
            sentence(5 + rng_.Below(30)) + "\"}, \"tags\": [\"geo\", \"qa\", \"v" + std::to_string(rng_.Below(9)) +
            "\"], \"metadata\": {\"score\": " + score + ", \"source_row\": " + std::to_string(rng_.Below(1000000)) +
            ", \"reviewed\": " + (rng_.Chance(50) ? "true" : "false") + "}}";
  }

  void Array(std::string* out, int depth) {
    out->push_back('[');
    size_t n = rng_.Below(6);
    for (size_t i = 0; i < n; ++i) {
      if (i) out->push_back(',');
      Value(out, depth);
    }
    if (n == 0) Whitespace(out);
    out->push_back(']');
  }

  void Object(std::string* out, int depth) {
    out->push_back('{');
    size_t n = rng_.Below(7);
    std::set<std::string> seen;
    size_t written = 0;
    for (size_t i = 0; i < n; ++i) {
      std::string decoded;
      std::string key = StringText(&decoded);
      if (!seen.insert(decoded).second) continue;  // keep keys unique after unescaping
      if (written++) out->push_back(',');
      Whitespace(out);
      *out += key;
      Whitespace(out);
      out->push_back(':');
      Value(out, depth);
    }
    if (written == 0) Whitespace(out);
    out->push_back('}');
  }

 private:
  Rng rng_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: json_gen COUNT SEED [adversarial|dataset]\n");
    return 2;
  }
  bool dataset = argc == 4 && std::strcmp(argv[3], "dataset") == 0;
  long count = std::atol(argv[1]);
  Gen gen(std::strtoull(argv[2], nullptr, 10));
  std::string line;
  for (long i = 0; i < count; ++i) {
    line.clear();
    if (dataset) {
      gen.DatasetCase(&line);
    } else {
      gen.Value(&line, 0);
    }
    line.push_back('\n');
    std::fwrite(line.data(), 1, line.size(), stdout);
  }
  return 0;
}
