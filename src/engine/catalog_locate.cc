// catalog:SOURCE/INDEX wherever a publication is read (catalog.h): the
// binding's location, read through a store that refuses a manifest whose
// bytes are not the ones bound, plus the registered source it holds.
#include "catalog_internal.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/store/forwarding_store.h"

namespace vigilo::engine {
namespace {

// Checks every whole-object Get of the manifest against the SHA-256 and
// size the catalog recorded: immutable data that changed is an error
// (`integrity_error`), never a silent new version. Other keys pass: the
// manifest checks them as it always does.
class BoundManifestStore final : public store::ForwardingStore {
 public:
  BoundManifestStore(std::unique_ptr<store::ObjectStore> inner, const CatalogBinding& binding, std::string key)
      : ForwardingStore(std::move(inner)), binding_(binding), key_(std::move(key)) {}

  Result<store::Bytes> Get(std::string_view key, const store::GetOptions& options) override {
    if (key != key_) return inner().Get(key, options);
    if (options.range) {
      return Internal("a ranged read of a catalog-bound manifest cannot be checked against its SHA-256");
    }
    VIGILO_ASSIGN_OR_RETURN(store::Bytes bytes, inner().Get(key, options));
    VIGILO_ASSIGN_OR_RETURN(std::string sha256, Sha256Hex(bytes.view()));
    if (bytes.size() != binding_.manifest_bytes || sha256 != binding_.manifest_sha256) {
      return IntegrityError("the publication changed behind the catalog: " + binding_.name.ToString() +
                            " was bound (version " + std::to_string(binding_.version) + ") to a manifest of " +
                            std::to_string(binding_.manifest_bytes) + " bytes with SHA-256 " +
                            binding_.manifest_sha256 + "; it is now " + std::to_string(bytes.size()) +
                            " bytes with SHA-256 " + sha256 + ". Bind it again if the change is intended")
          .WithPath(binding_.display);
    }
    return bytes;
  }

 private:
  CatalogBinding binding_;
  std::string key_;
};

}  // namespace

Result<PublicationLocation> LocateCatalogPublication(Context& context, std::string_view text) {
  VIGILO_ASSIGN_OR_RETURN(CatalogName name, ParseCatalogName(text));
  VIGILO_ASSIGN_OR_RETURN(CatalogBinding binding, GetBinding(context, name));
  VIGILO_ASSIGN_OR_RETURN(PublicationLocation where, LocatePublication(context, binding.location));
  where.store = std::make_unique<BoundManifestStore>(std::move(where.store), binding, where.manifest_key);
  if (binding.source) {
    VIGILO_ASSIGN_OR_RETURN(where.store, WithRegisteredSource(context, *binding.source, std::move(where.store)));
    where.registered_source = RegisteredSourceSpec(*binding.source);
  }
  return where;
}

}  // namespace vigilo::engine
