// The fixture the engine tests share: a scratch directory (with a spool
// directory), a SQLite control store on a manual wall clock, and a request
// governor whose retries wait 1 ms on a manual clock.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "vigilo/control/sqlite_control_store.h"
#include "vigilo/engine/write_target.h"
#include "vigilo/store/governor.h"

namespace vigilo::engine::testing {

inline constexpr store::Micros kSecond = 1'000'000;
// 2026-01-01T00:00:00Z: the wall time every test starts at.
inline constexpr store::Micros kT0 = store::Micros{1'767'225'600} * kSecond;

class EngineFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = std::filesystem::temp_directory_path() /
               ("vigilo-engine-test-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(scratch_);
    std::filesystem::create_directories(scratch_ / "spool");
    OpenControl("control.sqlite3");
    store::GovernorLimits limits;
    limits.retry_backoff_base_ms = std::chrono::milliseconds(1);
    limits.retry_backoff_cap_ms = std::chrono::milliseconds(1);
    auto governor = store::RequestGovernor::Create(limits, steady_, random_);
    ASSERT_TRUE(governor.ok()) << governor.status().ToString();
    governor_ = std::move(governor).value();
  }
  void TearDown() override { std::filesystem::remove_all(scratch_); }

  // A (new or existing) control database under the scratch directory: a
  // new file is a fresh control store.
  void OpenControl(const std::string& file) {
    control::SqliteOptions options;
    options.wall_clock = &wall_;
    options.random = &random_;
    auto opened = control::OpenSqliteControlStore((scratch_ / file).string(), options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    control_ = std::move(opened).value();
  }

  std::string WriteInput(const std::string& name, const std::string& text) {
    std::string path = (scratch_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // Writes to `store`, recorded in the ledger as "test-store".
  WriteTarget Target(store::ObjectStore& store, const std::string& alias = "local") {
    WriteTarget t;
    t.control = control_.get();
    t.store = &store;
    t.governor = governor_.get();
    t.alias = alias;
    t.ledger_store_id = "test-store";
    t.wall_clock = &wall_;
    t.random = &random_;
    return t;
  }

  std::filesystem::path scratch_;
  store::ManualClock wall_{kT0};
  store::ManualClock steady_{0};
  store::SeededRandom random_{7};
  std::unique_ptr<control::ControlStore> control_;
  std::unique_ptr<store::RequestGovernor> governor_;
};

}  // namespace vigilo::engine::testing
