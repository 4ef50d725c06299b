// One Ceph RGW (S3) per test process on loopback, for the s3 backend's
// tests: started on first use by scripts/ceph-rgw (a mon, a memstore OSD and
// radosgw as children of that script, by PID, never a system service; a
// watchdog stops them if this process dies without stopping them) and
// stopped at exit. Every test uses its own key prefix in the one bucket.
#pragma once

#include <string>

#include "vigilo/common/result.h"
#include "vigilo/store/backends.h"

namespace vigilo::store::testing {

class SharedRgw {
 public:
  // Started once per process (~14 s); the error says what failed (a
  // missing package: run scripts/setup).
  static Result<SharedRgw*> Get();

  const std::string& endpoint() const { return endpoint_; }  // http://127.0.0.1:PORT
  const std::string& region() const { return region_; }
  const std::string& bucket() const { return bucket_; }
  const std::string& access_key() const { return access_key_; }
  const std::string& secret_key() const { return secret_key_; }
  // An AWS shared-credentials file with profile "vigilo" (mode 0600).
  const std::string& credentials_file() const { return credentials_file_; }
  double startup_seconds() const { return startup_seconds_; }
  // A directory for test files, removed at exit.
  const std::string& scratch() const { return base_; }

  // A prefix no other test of this process uses.
  std::string FreshPrefix();
  // The "backend" settings of an entry for this RGW (file credentials).
  std::string BackendJson() const;
  // A configured entry s3://BUCKET/PREFIX with those settings, declared
  // writable with both guarantees when `writable`.
  StoreEntry Entry(const std::string& alias, const std::string& prefix, bool writable = true) const;

 private:
  std::string base_;
  std::string endpoint_, region_, bucket_, access_key_, secret_key_, credentials_file_;
  double startup_seconds_ = 0;
  int next_ = 0;
};

}  // namespace vigilo::store::testing
