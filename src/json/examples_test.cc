// Golden cases: every `canon`, `dupcheck` and `canon-lines` row of the JSON
// oracle's EXAMPLES.md (serde_json 1.0.87). Where the table shows the default
// build's imprecise float parsing, the row's `--features roundtrip` result is
// the expectation. vigilo rejects duplicate keys everywhere, so `canon` rows
// whose input repeats a key (serde_json keeps the last) expect an error.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "vigilo/json/canonical.h"

namespace vigilo::json {
namespace {

// Decodes the table's display notation back to bytes.
std::string DecodeCell(const std::string& cell) {
  std::string out;
  for (size_t i = 0; i < cell.size();) {
    auto starts = [&](std::string_view s) { return cell.compare(i, s.size(), s) == 0; };
    if (starts("\\|")) { out.push_back('|'); i += 2; continue; }
    if (starts("\xe2\x90\xa0")) { out.push_back(' '); i += 3; continue; }   // ␠
    if (starts("\xe2\x90\xa1")) { out.push_back('\x7f'); i += 3; continue; }  // ␡
    // Control pictures U+2400..U+241F are E2 90 80..9F.
    if (i + 2 < cell.size() && cell[i] == '\xe2' && cell[i + 1] == '\x90' &&
        static_cast<unsigned char>(cell[i + 2]) >= 0x80 && static_cast<unsigned char>(cell[i + 2]) <= 0x9f) {
      out.push_back(static_cast<char>(static_cast<unsigned char>(cell[i + 2]) - 0x80));
      i += 3;
      continue;
    }
    if (starts("\xe2\x9f\xa8")) {  // ⟨xNN⟩ or ⟨U+XXXX⟩
      size_t close = cell.find("\xe2\x9f\xa9", i);
      std::string inner = cell.substr(i + 3, close - i - 3);
      if (inner[0] == 'x') {
        out.push_back(static_cast<char>(std::stoi(inner.substr(1), nullptr, 16)));
      } else {
        auto cp = static_cast<uint32_t>(std::stoul(inner.substr(2), nullptr, 16));
        if (cp < 0x800) {
          out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
          out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
        } else {
          out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
          out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
          out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
        }
      }
      i = close + 3;
      continue;
    }
    out.push_back(cell[i++]);
  }
  return out;
}

std::vector<std::string> SplitRow(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cur += "\\|";
      ++i;
    } else if (line[i] == '|') {
      cells.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(line[i]);
    }
  }
  for (auto& c : cells) {
    size_t b = c.find_first_not_of(' '), e = c.find_last_not_of(' ');
    c = b == std::string::npos ? "" : c.substr(b, e - b + 1);
  }
  return cells;
}

std::string Unquote(const std::string& cell) {  // `text` -> text
  if (cell.size() >= 2 && cell.front() == '`' && cell.back() == '`') return DecodeCell(cell.substr(1, cell.size() - 2));
  return cell;
}

struct Row {
  std::string cmd, input, output, note, section;
  bool ok = false;
};

std::vector<Row> LoadRows() {
  std::ifstream in(std::string(VIGILO_SHARED_DIR) + "/tools/json-oracle/EXAMPLES.md");
  std::vector<Row> rows;
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) section = line.substr(3);
    if (line.rfind("| canon", 0) != 0 && line.rfind("| dupcheck", 0) != 0) continue;
    auto cells = SplitRow(line);
    if (cells.size() < 6) continue;
    Row r;
    r.cmd = cells[0];
    r.section = section;
    r.note = cells[5];
    r.ok = cells[3] == "0";
    const std::string& in_cell = cells[1];
    if (in_cell == "(empty)") {
      r.input = "";
    } else if (in_cell.find("(all 32, lowercase hex)") != std::string::npos) {
      std::string s = "\"";
      for (int c = 0; c < 32; ++c) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        s += buf;
      }
      r.input = s + "\"";
    } else if (in_cell == "`[ x127 then ] x127`") {
      r.input = std::string(127, '[') + std::string(127, ']');
    } else if (in_cell == "`[ x128 then ] x128`") {
      r.input = std::string(128, '[') + std::string(128, ']');
    } else {
      r.input = Unquote(in_cell);
    }
    r.output = cells[2] == "(same bytes as stdin)" ? r.input : Unquote(cells[2]);
    // Prefer the correctly rounded (roundtrip build) result where the note gives it.
    const std::string marker = "`--features roundtrip` build: `";
    size_t m = r.note.find(marker);
    if (m != std::string::npos) {
      size_t start = m + marker.size();
      r.output = DecodeCell(r.note.substr(start, r.note.find('`', start) - start));
    }
    rows.push_back(r);
  }
  return rows;
}

TEST(OracleExamplesTest, EveryRowMatches) {
  auto rows = LoadRows();
  ASSERT_GE(rows.size(), 90u) << "EXAMPLES.md not found or changed shape";
  size_t checked = 0;
  for (const Row& r : rows) {
    // serde_json's `canon` keeps the last of repeated keys; vigilo refuses such input.
    bool has_duplicate = r.cmd != "dupcheck" && (r.section == "Duplicates" || r.note.find("last wins") != std::string::npos);
    Result<std::string> got = Canonicalize(r.input);
    if (r.cmd == "canon-lines") {
      std::string lines;
      Status s = CanonicalizeLines(r.input, {}, [&](std::string_view line) {
        lines += line;
        return Status::Ok();
      });
      got = s.ok() ? Result<std::string>(lines) : Result<std::string>(s);
    }
    SCOPED_TRACE(r.cmd + " [" + r.section + "] input: " + r.input);
    if (has_duplicate) {
      ASSERT_FALSE(got.ok());
      EXPECT_NE(got.status().message().find("duplicate"), std::string_view::npos);
    } else if (r.ok) {
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(*got, r.output);
    } else {
      EXPECT_FALSE(got.ok()) << "accepted, got " << *got;
    }
    ++checked;
  }
  EXPECT_EQ(checked, rows.size());
}

}  // namespace
}  // namespace vigilo::json
