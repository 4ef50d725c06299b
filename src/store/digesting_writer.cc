#include "vigilo/store/digesting_writer.h"

#include <variant>

#include "vigilo/common/hex.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/hash/sha256.h"

namespace vigilo::store {

struct DigestingWriter::Hasher {
  std::variant<Sha256Hasher, Blake3Hasher> state;

  Result<std::string> Hex() const {
    if (const auto* sha = std::get_if<Sha256Hasher>(&state)) {
      VIGILO_ASSIGN_OR_RETURN(auto digest, sha->Finalize());
      return HexEncode(digest);
    }
    return HexEncode(std::get<Blake3Hasher>(state).Finalize());
  }
};

DigestingWriter::DigestingWriter(std::unique_ptr<ObjectWriter> inner, DigestKind kind)
    : inner_(std::move(inner)), hasher_(std::make_unique<Hasher>()) {
  if (kind == DigestKind::kBlake3) hasher_->state.emplace<Blake3Hasher>();
}

DigestingWriter::~DigestingWriter() = default;

Status DigestingWriter::Append(std::span<const uint8_t> bytes) {
  VIGILO_RETURN_IF_ERROR(inner_->Append(bytes));
  // Only bytes the backend accepted count (after a failure nothing commits).
  std::visit([&](auto& hasher) { hasher.Update(bytes); }, hasher_->state);
  return Status::Ok();
}

Result<CreateResult> DigestingWriter::Commit(const AttemptContext* attempt) {
  // A digest that cannot be computed (an OpenSSL failure) must not leave an
  // object behind whose digest nobody recorded.
  VIGILO_RETURN_IF_ERROR(hasher_->Hex().status());
  return inner_->Commit(attempt);
}

std::string DigestingWriter::HexDigest() const {
  auto hex = hasher_->Hex();
  return hex.ok() ? std::move(hex).value() : std::string();
}

}  // namespace vigilo::store
