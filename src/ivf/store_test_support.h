// Test support for the ivf tests over the ObjectStore seam (tests only). The
// one store fake is store::MemoryStore; RecordingStore wraps any store to
// count what a reader asks of it; StoredParquet decodes a stored object.
#pragma once

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/footer.h"
#include "vigilo/store/clock.h"
#include "vigilo/store/forwarding_store.h"
#include "vigilo/store/object_store.h"

namespace vigilo::ivf {

// Forwards every call to `inner`, recording each Get (its key and the
// length answered) and counting HEADs (publication readers must never HEAD).
class RecordingStore final : public store::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;

  struct Read {
    std::string key;
    uint64_t length = 0;
  };

  Result<store::Bytes> Get(std::string_view key, const store::GetOptions& options = {}) override {
    auto bytes = inner().Get(key, options);
    if (bytes.ok()) reads.push_back(Read{std::string(key), bytes->size()});
    ++gets;
    return bytes;
  }
  // One Get each, so every answer is recorded (the base would forward the
  // batch to the inner store, past this wrapper's Get).
  std::vector<store::GetResponse> GetMany(std::span<const store::GetRequest> requests) override {
    return ObjectStore::GetMany(requests);
  }
  Result<store::ObjectInfo> Head(std::string_view key, const store::AttemptContext* = nullptr) override {
    ++heads;
    return inner().Head(key);
  }

  // Gets of `key` so far.
  int GetsOf(std::string_view key) const {
    return static_cast<int>(std::count_if(reads.begin(), reads.end(), [&](const Read& r) { return r.key == key; }));
  }
  // The longest answer to a Get of any key but `except`.
  uint64_t LargestReadExcept(std::string_view except) const {
    uint64_t largest = 0;
    for (const Read& r : reads) {
      if (r.key != except) largest = std::max(largest, r.length);
    }
    return largest;
  }
  uint64_t BytesRead() const {
    uint64_t total = 0;
    for (const Read& r : reads) total += r.length;
    return total;
  }

  int gets = 0;   // answered or not
  int heads = 0;
  std::vector<Read> reads;  // answered Gets, in order
};

// Forwards every call to `inner` and cancels `cancel` at its `at_get`-th Get
// (1-based; 0: never) or when a create of `at_create` begins: a cancel that
// arrives mid-way through the work, as a signal does.
class CancellingStore final : public store::ForwardingStore {
 public:
  CancellingStore(store::ObjectStore& inner, store::CancelToken& cancel, int at_get, std::string at_create = "")
      : ForwardingStore(inner), cancel_(cancel), at_get_(at_get), at_create_(std::move(at_create)) {}

  Result<store::Bytes> Get(std::string_view key, const store::GetOptions& options = {}) override {
    if (++gets == at_get_) cancel_.Cancel();
    return inner().Get(key, options);
  }
  std::vector<store::GetResponse> GetMany(std::span<const store::GetRequest> requests) override {
    return ObjectStore::GetMany(requests);
  }
  Result<std::unique_ptr<store::ObjectWriter>> BeginCreate(std::string_view key,
                                                           const store::AttemptContext* attempt = nullptr) override {
    if (!at_create_.empty() && key == at_create_) cancel_.Cancel();
    return inner().BeginCreate(key, attempt);
  }

  int gets = 0;

 private:
  store::CancelToken& cancel_;
  int at_get_;
  std::string at_create_;
};

// A Parquet object of a store read with vigilo's reader: the in-store
// counterpart of parquet::LocalParquetFile for tests that decode what was written.
class StoredParquet {
 public:
  static Result<StoredParquet> Open(store::ObjectStore& store, const std::string& key) {
    VIGILO_ASSIGN_OR_RETURN(store::Bytes bytes, store.Get(key));
    VIGILO_ASSIGN_OR_RETURN(parquet::FooterParse parsed, parquet::ParseFooter(bytes.span(), bytes.size()));
    auto* footer = std::get_if<parquet::Footer>(&parsed);
    if (footer == nullptr) return Internal("the whole object did not hold its footer").WithPath(key);
    return StoredParquet(std::move(bytes), std::move(*footer));
  }
  const parquet::Footer& footer() const { return footer_; }
  uint64_t size() const { return bytes_.size(); }
  Result<parquet::DecodedColumn> ReadColumnChunk(size_t row_group, size_t leaf) const {
    VIGILO_ASSIGN_OR_RETURN(auto plan, parquet::PlanRowGroup(footer_, row_group));
    if (leaf >= plan.size()) return NotFound("no leaf " + std::to_string(leaf));
    const ByteRange& r = plan[leaf].range;
    std::span<const uint8_t> chunk =
        bytes_.span().subspan(static_cast<size_t>(r.offset), static_cast<size_t>(r.length));
    return parquet::DecodeColumnChunk(footer_, row_group, leaf, chunk);
  }

 private:
  StoredParquet(store::Bytes bytes, parquet::Footer footer) : bytes_(std::move(bytes)), footer_(std::move(footer)) {}
  store::Bytes bytes_;
  parquet::Footer footer_;
};

}  // namespace vigilo::ivf
