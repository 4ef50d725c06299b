// Named roots: publish into a free name, identical republication as a
// no-op, explicit compare-and-set replace with the history kept, separate
// namespaces, and the fence on every change.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "control_test_support.h"

namespace vigilo::control {
namespace {

using testing_support::BackendName;
using testing_support::ControlBackends;
using testing_support::kLease;
using testing_support::kSecond;
using testing_support::kT0;
using testing_support::RootValue;

class RootsTest : public testing_support::ControlTest {
 protected:
  AttemptState StateOf(const Lease& lease) {
    Result<AttemptRecord> row = control_->GetAttempt(lease.attempt);
    EXPECT_TRUE(row.ok()) << row.status().ToString();
    return row.ok() ? row->state : AttemptState::kActive;
  }
};

TEST_P(RootsTest, PublishingAFreeNameRecordsVersionOne) {
  Lease lease = Begin("geo");
  clock_.Advance(kSecond);
  Result<PublishOutcome> outcome = control_->PublishRoot(lease, RootValue("m1"));
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(*outcome, PublishOutcome::kPublished);
  EXPECT_EQ(PublishOutcomeName(*outcome), "published");

  Result<std::optional<RootRecord>> root = control_->GetRoot(Namespace::kDatasets, "geo");
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  ASSERT_TRUE(root->has_value());
  const RootRecord& r = **root;
  EXPECT_EQ(r.ns, Namespace::kDatasets);
  EXPECT_EQ(r.name, "geo");
  EXPECT_EQ(r.version, 1u);
  EXPECT_EQ(r.value, R"({"key":"m1"})");
  EXPECT_EQ(r.attempt, lease.attempt);
  EXPECT_EQ(r.epoch, lease.epoch);
  EXPECT_EQ(r.published_at, kT0 + kSecond);
  EXPECT_EQ(StateOf(lease), AttemptState::kPublished);
}

TEST_P(RootsTest, ANamespaceALayerAboveAddsIsKeptApartFromTheSeedsTwo) {
  Result<Namespace> publications = Namespace::Named("publications");
  ASSERT_TRUE(publications.ok());
  AttemptSpec spec = Spec("geo");
  spec.ns = *publications;
  Result<Lease> lease = control_->BeginAttempt(spec);
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  ASSERT_TRUE(control_->PublishRoot(*lease, RootValue("p1")).ok());
  Reopen();  // read back from storage, not from memory
  Result<std::optional<RootRecord>> root = control_->GetRoot(*publications, "geo");
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  ASSERT_TRUE(root->has_value());
  EXPECT_EQ((*root)->ns, *publications);
  EXPECT_EQ((*root)->value, R"({"key":"p1"})");
  EXPECT_FALSE(control_->GetRoot(Namespace::kDatasets, "geo")->has_value());
  Result<std::vector<RootRecord>> listed = control_->ListRoots(*publications);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front().name, "geo");
}

TEST_P(RootsTest, PublishingTheIdenticalRootAgainIsANoOp) {
  Lease first = Begin("geo");
  Lease second = Begin("geo");
  ASSERT_TRUE(control_->PublishRoot(first, RootValue("m")).ok());
  Result<PublishOutcome> again = control_->PublishRoot(second, RootValue("m"));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, PublishOutcome::kAlreadyIdentical);
  Result<std::vector<RootRecord>> history = control_->RootHistory(Namespace::kDatasets, "geo");
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].attempt, first.attempt);
  // The second attempt's objects are kept, not cleaned up: it is published.
  EXPECT_EQ(StateOf(second), AttemptState::kPublished);
}

TEST_P(RootsTest, TheWritersOwnReplayIsANoOpButNothingElseIs) {
  Lease lease = Begin("geo");
  ASSERT_TRUE(control_->PublishRoot(lease, RootValue("m")).ok());
  clock_.Advance(kLease);  // even after the lease: a replay changes nothing
  Result<PublishOutcome> replay = control_->PublishRoot(lease, RootValue("m"));
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(*replay, PublishOutcome::kAlreadyIdentical);
  Status other = control_->PublishRoot(lease, RootValue("n")).status();
  EXPECT_EQ(other.code(), StatusCode::kFenced);
  EXPECT_EQ(other.message(), "attempt " + AttemptName(lease.attempt) + " is already published");
}

TEST_P(RootsTest, ADifferentRootUnderATakenNameNeedsAnExplicitReplace) {
  Lease first = Begin("geo");
  Lease second = Begin("geo");
  ASSERT_TRUE(control_->PublishRoot(first, RootValue("m1")).ok());
  Status taken = control_->PublishRoot(second, RootValue("m2")).status();
  EXPECT_EQ(taken.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(taken.message(), "datasets/geo holds another root (version 1, published by attempt " +
                                 AttemptName(first.attempt) +
                                 "); publishing a different root takes an explicit replace of that value");
  EXPECT_EQ(StateOf(second), AttemptState::kActive);  // it may still replace

  Status stale = control_->ReplaceRoot(second, RootValue("m0"), RootValue("m2")).status();
  EXPECT_EQ(stale.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(stale.message(), "datasets/geo changed: its current root (version 1, published by attempt " +
                                 AttemptName(first.attempt) + ") is not the expected one");

  clock_.Advance(kSecond);
  Result<PublishOutcome> replaced = control_->ReplaceRoot(second, RootValue("m1"), RootValue("m2"));
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  EXPECT_EQ(*replaced, PublishOutcome::kReplaced);

  Result<std::vector<RootRecord>> history = control_->RootHistory(Namespace::kDatasets, "geo");
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].version, 1u);
  EXPECT_EQ((*history)[0].value, RootValue("m1"));
  EXPECT_EQ((*history)[0].attempt, first.attempt);
  EXPECT_EQ((*history)[1].version, 2u);
  EXPECT_EQ((*history)[1].value, RootValue("m2"));
  EXPECT_EQ((*history)[1].attempt, second.attempt);
  EXPECT_EQ((*history)[1].published_at, kT0 + kSecond);
  Result<std::optional<RootRecord>> current = control_->GetRoot(Namespace::kDatasets, "geo");
  ASSERT_TRUE(current.ok() && current->has_value());
  EXPECT_EQ((*current)->version, 2u);
  // The replaced version's attempt stays published: its objects are kept.
  EXPECT_EQ(StateOf(first), AttemptState::kPublished);
  EXPECT_EQ(StateOf(second), AttemptState::kPublished);
}

TEST_P(RootsTest, ReplacingWithTheCurrentValueIsANoOp) {
  Lease first = Begin("geo");
  Lease second = Begin("geo");
  ASSERT_TRUE(control_->PublishRoot(first, RootValue("m")).ok());
  Result<PublishOutcome> same = control_->ReplaceRoot(second, RootValue("m"), RootValue("m"));
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ(*same, PublishOutcome::kAlreadyIdentical);
  Result<std::vector<RootRecord>> history = control_->RootHistory(Namespace::kDatasets, "geo");
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->size(), 1u);
}

TEST_P(RootsTest, ReplacingNothingIsNotFound) {
  Lease lease = Begin("geo");
  Status status = control_->ReplaceRoot(lease, RootValue("a"), RootValue("b")).status();
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "nothing is published under datasets/geo to replace");
}

TEST_P(RootsTest, AFencedWriterCannotPublishOrReplace) {
  Lease first = Begin("geo");
  clock_.Advance(kLease);
  Result<Lease> second = control_->ResumeAttempt(first.attempt, "writer-2", kLease);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(control_->PublishRoot(first, RootValue("m")).status().code(), StatusCode::kFenced);
  Result<std::optional<RootRecord>> root = control_->GetRoot(Namespace::kDatasets, "geo");
  ASSERT_TRUE(root.ok());
  EXPECT_FALSE(root->has_value());

  Lease other = Begin("geo", "writer-3");
  ASSERT_TRUE(control_->PublishRoot(other, RootValue("m")).ok());
  Status replace = control_->ReplaceRoot(first, RootValue("m"), RootValue("n")).status();
  EXPECT_EQ(replace.code(), StatusCode::kFenced);
  Result<std::vector<RootRecord>> history = control_->RootHistory(Namespace::kDatasets, "geo");
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->size(), 1u);
}

TEST_P(RootsTest, RootValuesMustBeCanonicalJsonObjects) {
  Lease lease = Begin("geo");
  Status spaced = control_->PublishRoot(lease, R"({"key": "m"})").status();
  EXPECT_EQ(spaced.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(spaced.message(),
            "the root reference must be canonical JSON: not_canonical: not the canonical JSON form; found byte 0x20 "
            "where the canonical form has '\"' (at byte 7)");
  Status array = control_->PublishRoot(lease, "[1]").status();
  EXPECT_EQ(array.message(), "the root reference must be a JSON object");
  std::string big = R"({"key":")" + std::string(kMaxRootValueBytes, 'x') + R"("})";
  Status too_big = control_->PublishRoot(lease, big).status();
  EXPECT_EQ(too_big.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(too_big.message(), "the root reference is " + std::to_string(big.size()) +
                                   " bytes; the limit is 65536");
  EXPECT_EQ(StateOf(lease), AttemptState::kActive);
}

TEST_P(RootsTest, NamespacesAreSeparate) {
  AttemptSpec run = Spec("shared-name");
  run.ns = Namespace::kRuns;
  Result<Lease> run_lease = control_->BeginAttempt(run);
  ASSERT_TRUE(run_lease.ok());
  EXPECT_EQ(run_lease->key_prefix.substr(0, 17), "runs/shared-name/");
  Lease dataset_lease = Begin("shared-name");
  Lease another = Begin("another");
  ASSERT_TRUE(control_->PublishRoot(*run_lease, RootValue("run")).ok());
  ASSERT_TRUE(control_->PublishRoot(dataset_lease, RootValue("dataset")).ok());
  ASSERT_TRUE(control_->PublishRoot(another, RootValue("another")).ok());

  Result<std::optional<RootRecord>> r = control_->GetRoot(Namespace::kRuns, "shared-name");
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->value, RootValue("run"));
  Result<std::optional<RootRecord>> d = control_->GetRoot(Namespace::kDatasets, "shared-name");
  ASSERT_TRUE(d.ok() && d->has_value());
  EXPECT_EQ((*d)->value, RootValue("dataset"));

  Result<std::vector<RootRecord>> datasets = control_->ListRoots(Namespace::kDatasets);
  ASSERT_TRUE(datasets.ok());
  ASSERT_EQ(datasets->size(), 2u);
  EXPECT_EQ((*datasets)[0].name, "another");
  EXPECT_EQ((*datasets)[1].name, "shared-name");
  Result<std::vector<RootRecord>> runs = control_->ListRoots(Namespace::kRuns);
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->size(), 1u);
}

TEST_P(RootsTest, LookupsValidateNames) {
  Status status = control_->GetRoot(Namespace::kDatasets, "../etc").status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidFormat);
  Result<std::optional<RootRecord>> missing = control_->GetRoot(Namespace::kDatasets, "absent");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  EXPECT_EQ(ParseNamespace("runs").value(), Namespace::kRuns);
  EXPECT_EQ(ParseNamespace("Runs").status().message(),
            "a root namespace is 1-32 of a-z, 0-9 and '_', starting with a letter; got \"Runs\"");
  // Data, not a closed set: a namespace a layer above adds is kept as it is.
  Result<Namespace> publications = Namespace::Named("publications");
  ASSERT_TRUE(publications.ok());
  EXPECT_EQ(publications->name(), "publications");
  EXPECT_NE(*publications, Namespace::kDatasets);
  EXPECT_FALSE(Namespace::Named("").ok());
  EXPECT_FALSE(Namespace::Named("1x").ok());
  EXPECT_FALSE(Namespace::Named(std::string(33, 'a')).ok());
}

// Retirement (issue 34): the name stops resolving, its history stays, its
// attempts stay published (nothing becomes cleanup work), a publication
// under it starts the next version, and a retired run takes no routes.
TEST_P(RootsTest, ARetiredNameStopsResolvingAndKeepsItsHistory) {
  Lease first = Begin("geo");
  ASSERT_TRUE(control_->PublishRoot(first, RootValue("m1")).ok());
  Lease second = Begin("geo");
  ASSERT_TRUE(control_->ReplaceRoot(second, RootValue("m1"), RootValue("m2")).ok());
  Lease other = Begin("other");
  ASSERT_TRUE(control_->PublishRoot(other, RootValue("o1")).ok());
  clock_.Advance(kSecond);

  // A stale compare-and-set is refused and changes nothing.
  EXPECT_EQ(control_->RetireRoot(Namespace::kDatasets, "geo", 1).status().code(), StatusCode::kAlreadyExists);
  Result<RetiredRoot> retired = control_->RetireRoot(Namespace::kDatasets, "geo", 2);
  ASSERT_TRUE(retired.ok()) << retired.status().ToString();
  EXPECT_FALSE(retired->already);
  EXPECT_EQ(retired->record.version, 2u);
  EXPECT_EQ(retired->record.value, RootValue("m2"));
  EXPECT_EQ(retired->record.retired_at, kT0 + kSecond);

  EXPECT_FALSE(control_->GetRoot(Namespace::kDatasets, "geo")->has_value());
  Result<std::vector<RootRecord>> live = control_->ListRoots(Namespace::kDatasets);
  ASSERT_TRUE(live.ok());
  ASSERT_EQ(live->size(), 1u);
  EXPECT_EQ((*live)[0].name, "other");
  Result<std::optional<RootRecord>> gone = control_->GetRetiredRoot(Namespace::kDatasets, "geo");
  ASSERT_TRUE(gone.ok() && gone->has_value());
  EXPECT_EQ((*gone)->version, 2u);
  EXPECT_EQ((*gone)->retired_at, kT0 + kSecond);
  EXPECT_FALSE(control_->GetRetiredRoot(Namespace::kDatasets, "other")->has_value());
  Result<std::vector<RootRecord>> history = control_->RootHistory(Namespace::kDatasets, "geo");
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].retired_at, std::nullopt);
  EXPECT_EQ((*history)[1].retired_at, kT0 + kSecond);
  EXPECT_EQ(StateOf(first), AttemptState::kPublished);
  EXPECT_EQ(StateOf(second), AttemptState::kPublished);
  EXPECT_TRUE(control_->StoresWithDueCleanup()->empty());

  // Retired once: again is no change, and the version still checks.
  Result<RetiredRoot> again = control_->RetireRoot(Namespace::kDatasets, "geo", std::nullopt);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->already);
  EXPECT_EQ(again->record.retired_at, kT0 + kSecond);
  EXPECT_EQ(control_->RetireRoot(Namespace::kDatasets, "geo", 1).status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(control_->RetireRoot(Namespace::kDatasets, "never", std::nullopt).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(control_->RetireRoot(Namespace::kDatasets, ".bad", std::nullopt).status().code(),
            StatusCode::kInvalidFormat);

  // Publishing under the retired name starts version 3, live again.
  clock_.Advance(kSecond);
  Lease third = Begin("geo");
  Result<PublishOutcome> back = control_->PublishRoot(third, RootValue("m3"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, PublishOutcome::kPublished);
  Result<std::optional<RootRecord>> now = control_->GetRoot(Namespace::kDatasets, "geo");
  ASSERT_TRUE(now.ok() && now->has_value());
  EXPECT_EQ((*now)->version, 3u);
  EXPECT_EQ((*now)->retired_at, std::nullopt);
  EXPECT_FALSE(control_->GetRetiredRoot(Namespace::kDatasets, "geo")->has_value());
  EXPECT_EQ(control_->RootHistory(Namespace::kDatasets, "geo")->size(), 3u);
  // And it can be retired again, at its new version.
  Result<RetiredRoot> later = control_->RetireRoot(Namespace::kDatasets, "geo", 3);
  ASSERT_TRUE(later.ok()) << later.status().ToString();
  EXPECT_FALSE(later->already);
}

TEST_P(RootsTest, ARetiredRunTakesNoRoutes) {
  AttemptSpec spec = Spec("plan-a");
  spec.ns = Namespace::kRuns;
  Result<Lease> lease = control_->BeginAttempt(spec);
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  ASSERT_TRUE(control_->PublishRoot(*lease, RootValue("p1")).ok());
  ASSERT_TRUE(control_->MoveShard("plan-a", 3, "pool-a", std::nullopt).ok());
  ASSERT_TRUE(control_->RetireRoot(Namespace::kRuns, "plan-a", std::nullopt).ok());
  EXPECT_EQ(control_->MoveShard("plan-a", 3, "pool-b", std::nullopt).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(control_->ShardRoutes("plan-a").status().code(), StatusCode::kNotFound);
  // Retiring a dataset of the same name is another name.
  EXPECT_EQ(control_->RetireRoot(Namespace::kDatasets, "plan-a", std::nullopt).status().code(),
            StatusCode::kNotFound);
}

INSTANTIATE_TEST_SUITE_P(Backends, RootsTest, ::testing::ValuesIn(ControlBackends()), BackendName);

}  // namespace
}  // namespace vigilo::control
