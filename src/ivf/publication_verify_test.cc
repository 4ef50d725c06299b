// VerifyPublication / VerifyPublicationFrom: real publications built by
// BuildPublication (lvq4 and lvq8, with and without a source table) verify,
// and one flipped byte anywhere (manifest.json included) fails, naming the
// object; truncated, extended and missing objects, an edited manifest, --all
// over two independent corruptions, and the read bound.
//
// The exhaustive test flips every byte of objects up to kEveryByteUpTo bytes
// and kSpread evenly spread positions of larger ones plus their first 8 and
// last 12 bytes (the leading "PAR1", the footer length and the trailing
// "PAR1"), each with xor 0x01 and xor 0x80, over four publications (lvq4,
// lvq8, each with and without a source). Under AddressSanitizer (about 8 ms
// a verification) both numbers are smaller and only two publications are
// flipped, lvq8 with a source and lvq4 without, to stay within ~20 s.
// VIGILO_VERIFY_EVERY_BYTE=1 in the environment flips every byte of every
// object instead (release: about 2 minutes).
#include "vigilo/ivf/publication_verify.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "vigilo/common/byte_source.h"
#include "vigilo/ivf/builder.h"

namespace vigilo::ivf {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
constexpr uint64_t kEveryByteUpTo = 64;
constexpr uint64_t kSpread = 40;
#else
constexpr bool kSanitized = false;
constexpr uint64_t kEveryByteUpTo = 512;
constexpr uint64_t kSpread = 300;
#endif

// The publication's files in memory; records every read.
class MemoryReader final : public ObjectReader {
 public:
  Result<uint64_t> Size(const std::string& path) override {
    auto it = files.find(path);
    if (it == files.end()) return NotFound("no such object").WithPath(path);
    return it->second.size();
  }
  Result<std::vector<uint8_t>> Read(const std::string& path, uint64_t offset, uint64_t length) override {
    largest_read = std::max(largest_read, length);
    auto it = files.find(path);
    if (it == files.end()) return NotFound("no such object").WithPath(path);
    if (offset > it->second.size() || length > it->second.size() - offset) return IoError("short read").WithPath(path);
    auto begin = it->second.begin() + static_cast<std::ptrdiff_t>(offset);
    return std::vector<uint8_t>(begin, begin + static_cast<std::ptrdiff_t>(length));
  }
  std::map<std::string, std::vector<uint8_t>> files;
  uint64_t largest_read = 0;
};

MemoryReader Load(const std::string& root) {
  MemoryReader r;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::string rel = std::filesystem::relative(e.path(), root).generic_string();
    auto bytes = ReadFileToString(e.path().string(), 1 << 30);
    EXPECT_TRUE(bytes.ok());
    r.files[rel] = std::vector<uint8_t>(bytes->begin(), bytes->end());
  }
  return r;
}

Manifest ManifestOf(MemoryReader& r) {
  const auto& b = r.files.at("manifest.json");
  auto m = ParseManifest(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return *m;
}

std::vector<std::string> ObjectPaths(const Manifest& m) {
  std::vector<std::string> paths = {m.hierarchy.centroids.path};
  for (const PostingsFile& f : m.postings) paths.push_back(f.object.path);
  if (m.source) {
    for (const SourceFile& f : m.source->files) paths.push_back(f.object.path);
  }
  return paths;
}

VerifyReport Verify(MemoryReader& r, VerifyOptions o = {}) {
  auto report = VerifyPublicationFrom(r, "manifest.json", o);
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  return report.ok() ? *report : VerifyReport{};
}

struct Shape {
  Encoding encoding;
  bool source;
};

class VerifyTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("vigilo_verify_" + std::to_string(::getpid()) + "_" +
            testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // n vectors of dimension d in 8 loose clusters, as .fvecs.
  std::string Input(size_t n, size_t d) {
    std::string path = (dir_ / ("base-" + std::to_string(n) + "x" + std::to_string(d) + ".fvecs")).string();
    std::ofstream f(path, std::ios::binary);
    uint64_t state = 12345;
    for (size_t i = 0; i < n; ++i) {
      auto dim = static_cast<int32_t>(d);
      f.write(reinterpret_cast<const char*>(&dim), 4);
      for (size_t j = 0; j < d; ++j) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        float v = static_cast<float>((i % 8) * 10 + j % 3) + static_cast<float>(state >> 40) / 16777216.0f;
        f.write(reinterpret_cast<const char*>(&v), 4);
      }
    }
    return path;
  }

  // A small publication: several postings files (row groups split at 25
  // rows) and, with a source, several source files; or (!small) one
  // postings file per bucket and one source file.
  std::string Build(const std::string& name, Shape shape, size_t n = 300, size_t d = 5, bool small = true) {
    BuildOptions o;
    o.input = Input(n, d);
    o.encoding = shape.encoding;
    o.nlist = 6;
    o.roots = 2;
    o.out = (dir_ / name).string();
    o.layout.max_row_group_rows = 25;
    o.layout.max_file_bytes = 8000;
    o.source = shape.source;
    o.source_layout.row_group_rows = 50;
    o.source_layout.max_file_bytes = 6000;
    if (!small) {
      o.layout = PostingsLayout{};
      o.layout.max_row_group_rows = 1000;
      o.source_layout = SourceLayout{};
      o.source_layout.row_group_rows = 200;
    }
    auto built = BuildPublication(o);
    EXPECT_TRUE(built.ok()) << built.status().ToString();
    return o.out;
  }

  std::filesystem::path dir_;
};

// "path" or "path: …".
bool Names(const Status& s, const std::string& path) {
  std::string_view p = s.path();
  return p == path || (p.size() > path.size() + 1 && p.substr(0, path.size() + 2) == path + ": ");
}

std::string Describe(const VerifyReport& r) {
  std::string out;
  for (const Status& s : r.failures) out += "\n  " + s.ToString();
  return out.empty() ? " (no failures)" : out;
}

std::vector<uint64_t> Positions(uint64_t size) {
  bool every = std::getenv("VIGILO_VERIFY_EVERY_BYTE") != nullptr;
  std::set<uint64_t> at;
  if (every || size <= kEveryByteUpTo) {
    for (uint64_t i = 0; i < size; ++i) at.insert(i);
  } else {
    for (uint64_t i = 0; i < 8; ++i) at.insert(i);
    for (uint64_t i = size - 12; i < size; ++i) at.insert(i);
    for (uint64_t k = 0; k < kSpread; ++k) at.insert(k * (size - 1) / (kSpread - 1));
  }
  return {at.begin(), at.end()};
}

void FlipEveryPosition(MemoryReader& r, const std::string& label) {
  Manifest m = ManifestOf(r);
  std::vector<std::string> paths = ObjectPaths(m);
  paths.insert(paths.begin(), "manifest.json");
  uint64_t flips = 0;
  for (const std::string& path : paths) {
    std::vector<uint8_t>& bytes = r.files.at(path);
    for (uint64_t at : Positions(bytes.size())) {
      for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}}) {
        bytes[at] ^= mask;
        auto report = VerifyPublicationFrom(r, "manifest.json", {});
        bytes[at] ^= mask;
        ++flips;
        ASSERT_TRUE(report.ok()) << report.status().ToString();
        ASSERT_EQ(report->failures.size(), 1u) << label << ": " << path << " byte " << at << " ^ " << int{mask}
                                               << Describe(*report);
        ASSERT_TRUE(Names(report->failures[0], path))
            << label << ": " << path << " byte " << at << " ^ " << int{mask} << Describe(*report);
      }
    }
  }
  EXPECT_TRUE(Verify(r).ok());  // every flip was undone
  std::printf("[ %s ] %zu objects, %llu flips\n", label.c_str(), paths.size(), static_cast<unsigned long long>(flips));
}

TEST_F(VerifyTest, ABuiltPublicationVerifiesWithItsCounts) {
  MemoryReader r = Load(Build("pub", {Encoding::kLvq8, true}));
  Manifest m = ManifestOf(r);
  ASSERT_GE(m.postings.size(), 3u);
  ASSERT_GT(m.source->files.size(), 1u);
  VerifyReport report = Verify(r);
  ASSERT_TRUE(report.ok()) << Describe(report);
  std::vector<std::string> paths = ObjectPaths(m);
  uint64_t bytes = 0;
  for (const std::string& p : paths) bytes += r.files.at(p).size();
  EXPECT_EQ(report.objects, paths.size());
  EXPECT_EQ(report.bytes_hashed, bytes);
  EXPECT_EQ(report.rows, m.index.ntotal);
  EXPECT_EQ(report.source_rows, m.index.ntotal);
  EXPECT_EQ(report.manifest_bytes, r.files.at("manifest.json").size());
  // 2 centroid row groups, 300 / 50 source row groups, postings split at 25 rows.
  EXPECT_GE(report.row_groups, 2u + 6u + 300u / 25u);
  // Every column chunk: 5 per centroid and postings row group, 2 per source row group.
  EXPECT_EQ(report.column_chunks, 5 * (report.row_groups - 6) + 2 * 6);
  EXPECT_TRUE(CheckDerivedArtifactUuid(m).ok());
}

TEST_F(VerifyTest, EveryFlippedByteIsCaughtAndNamed) {
  for (Shape shape : {Shape{Encoding::kLvq8, false}, Shape{Encoding::kLvq4, false}, Shape{Encoding::kLvq8, true},
                      Shape{Encoding::kLvq4, true}}) {
    if (kSanitized && (shape.encoding == Encoding::kLvq8) != shape.source) continue;
    std::string label = std::string(EncodingName(shape.encoding)) + (shape.source ? "+source" : "");
    MemoryReader r = Load(Build(label, shape));
    ASSERT_TRUE(Verify(r).ok()) << label << Describe(Verify(r));
    FlipEveryPosition(r, label);
    if (HasFatalFailure()) return;
  }
}

TEST_F(VerifyTest, TruncatedExtendedAndMissingObjects) {
  MemoryReader r = Load(Build("pub", {Encoding::kLvq8, true}));
  Manifest m = ManifestOf(r);
  const std::string& postings = m.postings[1].object.path;
  std::vector<uint8_t> saved = r.files.at(postings);

  r.files.at(postings).pop_back();
  VerifyReport cut = Verify(r);
  ASSERT_EQ(cut.failures.size(), 1u) << Describe(cut);
  EXPECT_EQ(cut.failures[0].code(), StatusCode::kIntegrityError);
  EXPECT_EQ(cut.failures[0].path(), postings);
  EXPECT_EQ(cut.failures[0].message(),
            "object is " + std::to_string(saved.size() - 1) + " bytes; the manifest says " + std::to_string(saved.size()));

  r.files.at(postings) = saved;
  r.files.at(postings).push_back(0);
  VerifyReport extra = Verify(r);
  ASSERT_EQ(extra.failures.size(), 1u) << Describe(extra);
  EXPECT_EQ(extra.failures[0].code(), StatusCode::kIntegrityError);
  EXPECT_EQ(extra.failures[0].path(), postings);

  r.files.erase(postings);
  VerifyReport missing = Verify(r);
  ASSERT_EQ(missing.failures.size(), 1u) << Describe(missing);
  EXPECT_EQ(missing.failures[0].code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.failures[0].path(), postings);
  r.files[postings] = saved;

  r.files.erase("manifest.json");
  VerifyReport no_manifest = Verify(r);
  ASSERT_EQ(no_manifest.failures.size(), 1u) << Describe(no_manifest);
  EXPECT_EQ(no_manifest.failures[0].code(), StatusCode::kNotFound);
  EXPECT_EQ(no_manifest.failures[0].path(), "manifest.json");
}

TEST_F(VerifyTest, AnEditedDigestInTheManifest) {
  MemoryReader r = Load(Build("pub", {Encoding::kLvq4, false}));
  Manifest m = ManifestOf(r);
  const ObjectDescriptor& d = m.postings[0].object;
  std::string text(r.files.at("manifest.json").begin(), r.files.at("manifest.json").end());
  size_t at = text.find(d.sha256);
  ASSERT_NE(at, std::string::npos);
  text[at + 10] = text[at + 10] == '0' ? '1' : '0';
  r.files.at("manifest.json").assign(text.begin(), text.end());

  // The derived artifact-uuid no longer matches: the first failure is the manifest's.
  VerifyReport first = Verify(r);
  ASSERT_EQ(first.failures.size(), 1u) << Describe(first);
  EXPECT_EQ(first.failures[0].code(), StatusCode::kIntegrityError);
  EXPECT_EQ(first.failures[0].path(), "manifest.json: $.artifact-uuid");

  VerifyOptions all;
  all.all = true;
  VerifyReport both = Verify(r, all);
  ASSERT_EQ(both.failures.size(), 2u) << Describe(both);
  EXPECT_EQ(both.failures[1].code(), StatusCode::kIntegrityError);
  EXPECT_EQ(both.failures[1].path(), d.path);
  EXPECT_NE(both.failures[1].message().find("does not match the manifest's"), std::string::npos);

  VerifyOptions any_uuid;
  any_uuid.derived_uuid = false;
  VerifyReport object = Verify(r, any_uuid);
  ASSERT_EQ(object.failures.size(), 1u) << Describe(object);
  EXPECT_EQ(object.failures[0].path(), d.path);
}

TEST_F(VerifyTest, AllListsIndependentFailuresAndContinuesPastABrokenFooter) {
  MemoryReader r = Load(Build("pub", {Encoding::kLvq8, true}));
  Manifest m = ManifestOf(r);
  const std::string& postings = m.postings[0].object.path;
  const std::string& source = m.source->files.back().object.path;
  std::vector<uint8_t>& p = r.files.at(postings);
  p[p.size() / 2] ^= 0x80;                 // a value or page byte
  std::vector<uint8_t>& s = r.files.at(source);
  s[s.size() - 6] ^= 0x01;                 // the footer length: the footer cannot be read

  VerifyReport first = Verify(r);
  ASSERT_EQ(first.failures.size(), 1u) << Describe(first);
  EXPECT_TRUE(Names(first.failures[0], postings)) << Describe(first);

  VerifyOptions o;
  o.all = true;
  VerifyReport all = Verify(r, o);
  ASSERT_GE(all.failures.size(), 2u) << Describe(all);
  std::set<std::string> named;
  for (const Status& f : all.failures) {
    if (Names(f, postings)) named.insert(postings);
    else if (Names(f, source)) named.insert(source);
    else ADD_FAILURE() << "unexpected failure " << f.ToString();
  }
  EXPECT_EQ(named.size(), 2u) << Describe(all);
  // The broken footer is reported, then that object's SHA-256; every object was checked.
  EXPECT_EQ(all.failures.back().path(), source);
  EXPECT_EQ(all.failures.back().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(all.objects, ObjectPaths(m).size());
  EXPECT_EQ(all.rows, m.index.ntotal);
}

TEST_F(VerifyTest, NoReadExceedsTheBufferBound) {
  // Objects several times larger than the bound; chunks below it.
  MemoryReader r = Load(Build("big", {Encoding::kLvq8, true}, 12000, 16, false));
  Manifest m = ManifestOf(r);
  constexpr uint64_t kBound = 64 * 1024;
  uint64_t larger = 0;
  for (const std::string& p : ObjectPaths(m)) larger += r.files.at(p).size() > 2 * kBound;
  ASSERT_GE(larger, 3u);
  ASSERT_GT(r.files.at("manifest.json").size(), 1024u);
  VerifyOptions o;
  o.max_buffer_bytes = kBound;
  VerifyReport report = Verify(r, o);
  ASSERT_TRUE(report.ok()) << Describe(report);
  EXPECT_LE(r.largest_read, kBound);
  EXPECT_EQ(report.largest_read, r.largest_read);
  EXPECT_GT(report.bytes_hashed, 10 * kBound);

  // A bound below a column chunk is a failure naming the row group, never a larger read.
  r.largest_read = 0;
  o.max_buffer_bytes = 1024;
  VerifyReport small = Verify(r, o);
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.failures[0].code(), StatusCode::kLimitExceeded) << Describe(small);
  EXPECT_LE(r.largest_read, 1024u);
  EXPECT_EQ(VerifyPublicationFrom(r, "manifest.json", VerifyOptions{false, 0, true}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(VerifyTest, TheObjectOnlyEntryPointAndCheckPublicationObjectsAgree) {
  MemoryReader r = Load(Build("pub", {Encoding::kLvq4, true}));
  Manifest m = ManifestOf(r);
  auto report = VerifyPublication(m, r, {});
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok()) << Describe(*report);
  auto deep = CheckPublicationObjects(m, r, true);
  ASSERT_TRUE(deep.ok()) << deep.status().ToString();
  EXPECT_EQ(deep->objects, report->objects);
  EXPECT_EQ(deep->row_groups, report->row_groups);
  m.artifact_uuid = *Uuid::Parse("0b1c2d3e-4f50-4617-8283-94a5b6c7d8e9");
  auto changed = VerifyPublication(m, r, {});
  ASSERT_EQ(changed->failures.size(), 1u);
  EXPECT_EQ(changed->failures[0].path(), "$.artifact-uuid");
}

}  // namespace
}  // namespace vigilo::ivf
