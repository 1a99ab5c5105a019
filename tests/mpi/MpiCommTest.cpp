// The MPI backend's point-to-point semantics (Comm.hpp's contract, as the SimGrid backend's CommTest checks it):
// payloads of every size, per-triple order, any-source matching, fire-and-forget, cancel, wait_any over mixed
// requests; and compute(): emulated and real step times, injected delays.
#include <gtest/gtest.h>

#include <mpi.h>

#include <cmath>
#include <cstddef>

#include "sim/model/ComputeModel.hpp"
#include "tests/mpi/MpiHarness.hpp"
#include "validation/mpi/MpiComm.hpp"
#include "validation/mpi/ProgressEngine.hpp"
#include "validation/mpi/WaitMode.hpp"

namespace quorum {

using testing::run_on_ranks;

namespace {

const Tag kData = tags::make(Channel::Benchmark, 11);
const Tag kOrder = tags::make(Channel::Benchmark, 12);
const Tag kAny = tags::make_any_source(Channel::Benchmark, 13);
const Tag kLate = tags::make(Channel::Benchmark, 14);
const Tag kControl = tags::make(Channel::Control, 1);

// A payload whose content says who sent it and which one it is.
Payload make_payload(int src, int k, std::size_t values, std::size_t ints) {
  Payload p;
  for (std::size_t i = 0; i < values; ++i) p.values.push_back(static_cast<float>(src * 1000 + k) + 0.25f * static_cast<float>(i));
  for (std::size_t i = 0; i < ints; ++i) p.ints.push_back(std::int64_t{src} << 40 | std::int64_t{k} << 20 | static_cast<std::int64_t>(i));
  return p;
}

bool payload_matches(const Payload& p, int src, int k, std::size_t values, std::size_t ints) {
  const Payload want = make_payload(src, k, values, ints);
  return p.values == want.values && p.ints == want.ints;
}

struct Shape {
  std::size_t values, ints;
  double logical_bytes;
};
// Empty; inline in the header; inline with padding; just past the inline limit; large; padded to a logical size;
// both.
const std::vector<Shape> kShapes = {{0, 0, 0},    {3, 2, 20},  {3, 2, 3000},    {1000, 10, 0},
                                    {100000, 5, 0}, {5, 0, 1e6}, {0, 0, 3e5}, {20000, 3, 2e6}};

// The compute model the harness's ranks run (a constant step plus the options' imbalance), built here alone.
ComputeModel harness_compute_model(const testing::MpiHarnessOptions& o) {
  Distribution step;
  step.value = o.compute_s;
  return ComputeModel(step, StragglerModel(o.imbalance, testing::mpi_size(), o.seed), o.seed);
}

// A constant step of compute_s with one random rank per step delayed by 20 ms (seed 5).
testing::MpiHarnessOptions one_random_delay(double compute_s) {
  testing::MpiHarnessOptions o;
  o.compute_s = compute_s;
  o.imbalance.kind = "random_delay";
  o.imbalance.ranks = 1;
  o.imbalance.delay_s = 0.02;
  o.seed = 5;
  return o;
}

}  // namespace

TEST(PointToPoint, PayloadsOfEverySizeArriveIntact) {
  const auto r = run_on_ranks([](Comm& comm) {
    const int right = (comm.rank() + 1) % comm.size(), left = (comm.rank() + comm.size() - 1) % comm.size();
    std::vector<RequestPtr> receives, sends;
    for (std::size_t k = 0; k < kShapes.size(); ++k) receives.push_back(comm.irecv(left, kData));
    for (std::size_t k = 0; k < kShapes.size(); ++k)
      sends.push_back(comm.isend(right, kData, make_payload(comm.rank(), static_cast<int>(k), kShapes[k].values,
                                                            kShapes[k].ints),
                                 kShapes[k].logical_bytes));
    comm.wait_all(sends);
    comm.wait_all(receives);
    nlohmann::json ok = nlohmann::json::array();
    for (std::size_t k = 0; k < kShapes.size(); ++k) {
      const Message m = comm.take(receives[k]);
      ok.push_back(m.source == left && m.tag == kData &&
                   payload_matches(m.payload, left, static_cast<int>(k), kShapes[k].values, kShapes[k].ints));
    }
    return ok;
  });
  ASSERT_TRUE(r.ok) << r.error;
  for (const auto& rank : r.per_rank)
    for (const auto& ok : rank) EXPECT_TRUE(ok.get<bool>());
}

// The wire format: a data message is its values, its ints and its padding, each sent as one contiguous MPI message
// (Open MPI moves a message over a non-contiguous datatype through its fragment pipeline, not in a single copy, which
// with a pausing progress thread made 1 MiB exchanges several times slower than calibrated). Rank 1 reads what
// rank 0's engine put on the wire with plain MPI calls.
TEST(PointToPoint, DataMessagesTravelAsContiguousParts) {
  constexpr std::size_t kValues = 3000, kInts = 2;
  constexpr double kLogical = 4e5;
  const auto r = run_on_ranks([](Comm& comm) {
    nlohmann::json parts = nlohmann::json::array();
    if (comm.rank() == 0) {
      comm.wait(comm.isend(1, kData, make_payload(0, 9, kValues, kInts), kLogical));
    } else if (comm.rank() == 1) {
      const mpi::MpiWorld& world = dynamic_cast<mpi::MpiComm&>(comm).runtime().world();
      mpi::WireHeader header;
      MPI_Recv(&header, static_cast<int>(sizeof header), MPI_BYTE, 0, kData, world.messages(), MPI_STATUS_IGNORE);
      std::int64_t bytes = 0;
      while (bytes < header.values * 4 + header.ints * 8 + header.padding) {
        MPI_Status status;
        MPI_Probe(0, header.data_tag, world.data(), &status);
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        std::vector<std::byte> buffer(static_cast<std::size_t>(count));
        MPI_Recv(buffer.data(), count, MPI_BYTE, 0, header.data_tag, world.data(), MPI_STATUS_IGNORE);
        parts.push_back(count);
        bytes += count;
      }
    }
    return parts;
  });
  ASSERT_TRUE(r.ok) << r.error;
  const std::int64_t values = kValues * sizeof(float), ints = kInts * sizeof(std::int64_t);
  EXPECT_EQ(r.per_rank[1].get<std::vector<std::int64_t>>(),
            (std::vector<std::int64_t>{values, ints, static_cast<std::int64_t>(kLogical) - values - ints}));
}

// A message whose payload and padding fit in the 4 KiB header is that one MPI message, padding included.
TEST(PointToPoint, SmallPaddedMessagesAreOneMessage) {
  constexpr double kLogical = 2000;
  const auto r = run_on_ranks([](Comm& comm) {
    nlohmann::json seen = nlohmann::json::array();
    if (comm.rank() == 0) {
      comm.wait(comm.isend(1, kData, make_payload(0, 3, 5, 1), kLogical));
    } else if (comm.rank() == 1) {
      const mpi::MpiWorld& world = dynamic_cast<mpi::MpiComm&>(comm).runtime().world();
      MPI_Status status;
      MPI_Probe(0, kData, world.messages(), &status);
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      mpi::WireHeader header;
      MPI_Recv(&header, static_cast<int>(sizeof header), MPI_BYTE, 0, kData, world.messages(), MPI_STATUS_IGNORE);
      seen = {count, header.data_tag, header.values, header.ints};
    }
    return seen;
  });
  ASSERT_TRUE(r.ok) << r.error;
  const auto& seen = r.per_rank[1];
  EXPECT_EQ(seen[0].get<int>(), static_cast<int>(offsetof(mpi::WireHeader, inline_bytes) + kLogical));
  EXPECT_EQ(seen[1].get<int>(), -1);  // no data message follows
  EXPECT_EQ(seen[2].get<int>(), 5);
  EXPECT_EQ(seen[3].get<int>(), 1);
}

TEST(PointToPoint, MessagesOfOneTripleArriveInSendOrder) {
  const auto r = run_on_ranks([](Comm& comm) {
    const int right = (comm.rank() + 1) % comm.size(), left = (comm.rank() + comm.size() - 1) % comm.size();
    constexpr int kCount = 150;
    std::vector<RequestPtr> receives, sends;
    for (int k = 0; k < kCount; ++k) receives.push_back(comm.irecv(left, kOrder));
    // Sizes alternate between inline and data messages, so the two paths must keep the order between them.
    for (int k = 0; k < kCount; ++k)
      sends.push_back(comm.isend(right, kOrder, make_payload(comm.rank(), k, k % 3 == 0 ? 5000 : 1, 1), 0));
    comm.wait_all(receives);
    comm.wait_all(sends);
    std::vector<std::int64_t> order;
    for (auto& rq : receives) order.push_back(comm.take(rq).payload.ints.at(0) >> 20 & 0xFFFFF);
    return nlohmann::json(order);
  });
  ASSERT_TRUE(r.ok) << r.error;
  for (const auto& rank : r.per_rank) {
    const auto order = rank.get<std::vector<std::int64_t>>();
    for (std::size_t k = 0; k < order.size(); ++k) EXPECT_EQ(order[k], static_cast<std::int64_t>(k));
  }
}

TEST(PointToPoint, AnySourceReceivesKeepEachSendersOrder) {
  constexpr int kPerSender = 25;
  const auto r = run_on_ranks([](Comm& comm) {
    nlohmann::json seen = nlohmann::json::object();
    if (comm.rank() == 0) {
      std::vector<RequestPtr> receives;
      for (int i = 0; i < kPerSender * (comm.size() - 1); ++i) receives.push_back(comm.irecv(kAnySource, kAny));
      std::map<int, std::vector<std::int64_t>> by_source;
      for (auto& rq : receives) {
        comm.wait(rq);
        const Message m = comm.take(rq);
        by_source[m.source].push_back(m.payload.ints.at(0));
      }
      for (const auto& [src, ks] : by_source) seen[std::to_string(src)] = ks;
    } else {
      std::vector<RequestPtr> sends;
      for (int k = 0; k < kPerSender; ++k) sends.push_back(comm.isend(0, kAny, {{}, {k}}, 8));
      comm.wait_all(sends);
    }
    return seen;
  });
  ASSERT_TRUE(r.ok) << r.error;
  const auto& seen = r.per_rank[0];
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(testing::mpi_size() - 1));
  for (const auto& [src, ks] : seen.items()) {
    const auto v = ks.get<std::vector<std::int64_t>>();
    ASSERT_EQ(v.size(), static_cast<std::size_t>(kPerSender)) << "from rank " << src;
    for (int k = 0; k < kPerSender; ++k) EXPECT_EQ(v[static_cast<std::size_t>(k)], k) << "from rank " << src;
  }
}

TEST(PointToPoint, AnySourceFlagAndRanksAreChecked) {
  const auto r = run_on_ranks([](Comm& comm) {
    int refused = 0;
    try {
      comm.irecv(kAnySource, kData);
    } catch (const std::logic_error&) {
      ++refused;
    }
    try {
      comm.irecv(0, kAny);
    } catch (const std::logic_error&) {
      ++refused;
    }
    try {
      comm.isend(comm.size(), kData, {}, 0);
    } catch (const std::logic_error&) {
      ++refused;
    }
    return refused;
  });
  ASSERT_TRUE(r.ok) << r.error;
  for (const auto& n : r.per_rank) EXPECT_EQ(n.get<int>(), 3);
}

TEST(PointToPoint, CancelledAndDroppedReceivesDoNotTakeLaterMessages) {
  const auto r = run_on_ranks([](Comm& comm) {
    const int right = (comm.rank() + 1) % comm.size(), left = (comm.rank() + comm.size() - 1) % comm.size();
    // Withdraw one receive explicitly and drop another while pending; neither may swallow the message sent later.
    auto cancelled = comm.irecv(left, kLate);
    comm.cancel(cancelled);
    const bool test_after_cancel = comm.test(cancelled);
    bool take_refused = false;
    try {
      comm.take(cancelled);
    } catch (const std::logic_error&) {
      take_refused = true;
    }
    comm.irecv(left, kLate).reset();
    // Tell the left neighbour it may send now, then receive what it sends.
    comm.send(left, kControl, {}, 0);
    comm.recv(right, kControl);
    comm.send(right, kLate, {{}, {42}}, 0);
    const Message m = comm.recv(left, kLate);
    return nlohmann::json{test_after_cancel, take_refused, m.payload.ints.at(0)};
  });
  ASSERT_TRUE(r.ok) << r.error;
  for (const auto& v : r.per_rank) {
    EXPECT_TRUE(v[0].get<bool>());
    EXPECT_TRUE(v[1].get<bool>());
    EXPECT_EQ(v[2].get<int>(), 42);
  }
}

TEST(PointToPoint, PostedMessageIsDeliveredToALaterReceive) {
  const auto r = run_on_ranks([](Comm& comm) {
    const int right = (comm.rank() + 1) % comm.size(), left = (comm.rank() + comm.size() - 1) % comm.size();
    comm.post(right, kLate, make_payload(comm.rank(), 7, 3000, 2), 4e5);  // a data message, padded
    comm.post(comm.rank(), kControl, {{}, {comm.rank()}}, 0);              // to itself
    comm.sleep_for(0.02);
    const Message m = comm.recv(left, kLate);
    const Message self = comm.recv(comm.rank(), kControl);
    return nlohmann::json{payload_matches(m.payload, left, 7, 3000, 2), self.payload.ints.at(0) == comm.rank()};
  });
  ASSERT_TRUE(r.ok) << r.error;
  for (const auto& v : r.per_rank) {
    EXPECT_TRUE(v[0].get<bool>());
    EXPECT_TRUE(v[1].get<bool>());
  }
}

TEST(PointToPoint, WaitAnyOverMixedSendsAndReceivesReturnsEachOnce) {
  const auto r = run_on_ranks([](Comm& comm) {
    const int right = (comm.rank() + 1) % comm.size(), left = (comm.rank() + comm.size() - 1) % comm.size();
    std::vector<RequestPtr> pending = {comm.irecv(left, kData), comm.isend(right, kData, make_payload(comm.rank(), 1, 50000, 0), 0),
                                       comm.irecv(right, kOrder), comm.isend(left, kOrder, {{}, {comm.rank()}}, 0)};
    std::vector<int> completed;
    std::vector<RequestPtr> live = pending;
    std::vector<int> index = {0, 1, 2, 3};
    while (!live.empty()) {
      const std::size_t i = comm.wait_any(live);
      completed.push_back(index[i]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      index.erase(index.begin() + static_cast<std::ptrdiff_t>(i));
    }
    // With everything complete, wait_any returns the lowest index.
    const std::size_t lowest = comm.wait_any(pending);
    const bool data_ok = payload_matches(comm.take(pending[0]).payload, left, 1, 50000, 0);
    const bool order_ok = comm.take(pending[2]).payload.ints.at(0) == right;
    std::sort(completed.begin(), completed.end());
    return nlohmann::json{completed, lowest, data_ok, order_ok};
  });
  ASSERT_TRUE(r.ok) << r.error;
  for (const auto& v : r.per_rank) {
    EXPECT_EQ(v[0].get<std::vector<int>>(), (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(v[1].get<int>(), 0);
    EXPECT_TRUE(v[2].get<bool>());
    EXPECT_TRUE(v[3].get<bool>());
  }
}

TEST(PointToPoint, ASlowLinkHoldsBackExactlyTheSendsThatCrossIt) {
  // Rank 1's link is 11x slower in a model where a rank's link carries 100 MB/s: a 0.5 MB message through it leaves
  // 10 x 5 ms = 50 ms late. The sender is not blocked meanwhile, and a message sent after a held one to the same
  // destination waits behind it.
  testing::MpiHarnessOptions o;
  o.imbalance.kind = "slow_link";
  o.imbalance.rank_list = {1};
  o.imbalance.factor = 11;
  o.slow_link_Bps = 1e8;
  const double bytes = 5e5, hold = 0.05;
  const auto r = run_on_ranks(
      [bytes](Comm& comm) {
        const int right = (comm.rank() + 1) % comm.size(), left = (comm.rank() + comm.size() - 1) % comm.size();
        RequestPtr first = comm.irecv(left, kLate), second = comm.irecv(left, kLate);
        const double t0 = comm.now();
        RequestPtr a = comm.isend(right, kLate, make_payload(comm.rank(), 0, 10, 0), bytes);
        RequestPtr b = comm.isend(right, kLate, make_payload(comm.rank(), 1, 0, 1), 0);  // tiny, but queued
        const double posted = comm.now() - t0;
        comm.wait(a);
        const double a_done = comm.now() - t0;
        comm.wait(b);
        const double b_done = comm.now() - t0;
        comm.wait(first);
        comm.wait(second);
        const bool in_order = payload_matches(comm.take(first).payload, left, 0, 10, 0) &&
                              payload_matches(comm.take(second).payload, left, 1, 0, 1);
        return nlohmann::json{{"posted", posted}, {"a", a_done}, {"b", b_done}, {"in_order", in_order}};
      },
      o);
  ASSERT_TRUE(r.ok) << r.error;
  for (int rank = 0; rank < 4; ++rank) {
    const auto& j = r.per_rank[static_cast<std::size_t>(rank)];
    const bool crosses = rank == 0 || rank == 1;  // 0 -> 1 and 1 -> 2 cross rank 1's link; 2 -> 3 and 3 -> 0 do not
    EXPECT_LT(j["posted"].get<double>(), 0.02) << "rank " << rank << ": isend must not block";
    if (crosses) {
      EXPECT_GE(j["a"].get<double>(), hold) << "rank " << rank;
      EXPECT_GE(j["b"].get<double>(), j["a"].get<double>()) << "rank " << rank;
    } else {
      EXPECT_LT(j["a"].get<double>(), hold) << "rank " << rank;
    }
    EXPECT_TRUE(j["in_order"].get<bool>()) << "rank " << rank;
  }
}

TEST(Compute, EmulatedStepsTakeAtLeastTheModelledTimeAndRunTheMath) {
  const testing::MpiHarnessOptions o = one_random_delay(0.01);
  const auto r = run_on_ranks(
      [](Comm& comm) {
        nlohmann::json steps = nlohmann::json::array();
        for (int step = 0; step < 6; ++step) {
          int ran = 0;
          const double charged = comm.compute(step, [&] { ++ran; });
          steps.push_back({charged, ran});
        }
        return steps;
      },
      o);
  ASSERT_TRUE(r.ok) << r.error;
  const ComputeModel model = harness_compute_model(o);
  for (std::size_t rank = 0; rank < r.per_rank.size(); ++rank)
    for (std::size_t step = 0; step < 6; ++step) {
      const auto& s = r.per_rank[rank][step];
      EXPECT_EQ(s[1].get<int>(), 1);
      EXPECT_GE(s[0].get<double>(), model.duration(static_cast<int>(rank), static_cast<std::int64_t>(step)) - 1e-6)
          << "rank " << rank << " step " << step;
    }
}

TEST(Compute, EmulatedStepsInPartsSleepEachPartAfterTheMath) {
  // Parts of 1/4, 1/4, 1/2: each continuation runs no earlier than its part's end (d x cumulative share), in order,
  // after the math; the step takes at least the modelled duration, as compute() does.
  const testing::MpiHarnessOptions o = one_random_delay(0.02);
  const auto r = run_on_ranks(
      [](Comm& comm) {
        const double parts[] = {0.25, 0.25, 0.5};
        nlohmann::json steps = nlohmann::json::array();
        for (int step = 0; step < 3; ++step) {
          bool math_done = false;
          nlohmann::json ends = nlohmann::json::array();
          const double t0 = comm.now();
          const double charged = comm.compute_in_parts(step, [&] { math_done = true; }, parts, [&](std::size_t) {
            ends.push_back(math_done ? comm.now() - t0 : -1.0);
          });
          steps.push_back({{"charged", charged}, {"ends", ends}});
        }
        return steps;
      },
      o);
  ASSERT_TRUE(r.ok) << r.error;
  const ComputeModel model = harness_compute_model(o);
  for (std::size_t rank = 0; rank < r.per_rank.size(); ++rank)
    for (std::size_t step = 0; step < 3; ++step) {
      const auto& s = r.per_rank[rank][step];
      const double d = model.duration(static_cast<int>(rank), static_cast<std::int64_t>(step));
      EXPECT_GE(s["charged"].get<double>(), d - 1e-6) << "rank " << rank << " step " << step;
      ASSERT_EQ(s["ends"].size(), 3u);
      const double shares[] = {0.25, 0.5, 1.0};
      for (std::size_t i = 0; i < 3; ++i)
        EXPECT_GE(s["ends"][i].get<double>(), d * shares[i] - 1e-6) << "rank " << rank << " part " << i;
    }
}

// The persistent kind: every rank of the MPI job builds the same episodes as the model here, alone, without talking.
TEST(Compute, EmulatedStepsCarryTheMarkovEpisodesOfTheModel) {
  testing::MpiHarnessOptions o;
  o.compute_s = 0.004;
  o.imbalance.kind = "markov";
  o.imbalance.mean_slow_steps = 3;
  o.imbalance.mean_normal_steps = 3;
  o.imbalance.delay_s = 0.02;
  o.imbalance.block_ranks = 2;
  o.seed = 9;
  constexpr int kSteps = 12;
  const auto r = run_on_ranks(
      [](Comm& comm) {
        nlohmann::json steps = nlohmann::json::array();
        for (int step = 0; step < kSteps; ++step) steps.push_back(comm.compute(step, {}));
        return steps;
      },
      o);
  ASSERT_TRUE(r.ok) << r.error;
  const ComputeModel model = harness_compute_model(o);
  int slow = 0;
  for (std::size_t rank = 0; rank < r.per_rank.size(); ++rank)
    for (int step = 0; step < kSteps; ++step) {
      const int rk = static_cast<int>(rank);
      slow += model.delay(rk, step, o.compute_s) > 0;
      EXPECT_EQ(model.delay(rk, step, o.compute_s), model.delay(rk / 2 * 2, step, o.compute_s));
      // A slow step (6x the normal one) charged less than the model's duration: the rank drew other episodes.
      EXPECT_GE(r.per_rank[rank][static_cast<std::size_t>(step)].get<double>(), model.duration(rk, step) - 1e-6)
          << "rank " << rank << " step " << step;
    }
  EXPECT_GT(slow, 0);
  EXPECT_LT(slow, static_cast<int>(r.per_rank.size()) * kSteps);
}

TEST(Compute, RealModeChargesTheMathAndOnlyTheInjectedDelay) {
  testing::MpiHarnessOptions o;
  o.compute_s = 30;  // the profile's step time: never slept in real mode
  o.settings.compute = "real";
  o.imbalance.kind = "linear_skew";
  o.imbalance.step_s = 0.01;
  const auto r = run_on_ranks(
      [](Comm& comm) {
        const double charged = comm.compute(0, [] {});
        return charged;
      },
      o);
  ASSERT_TRUE(r.ok) << r.error;
  for (std::size_t rank = 0; rank < r.per_rank.size(); ++rank) {
    EXPECT_GE(r.per_rank[rank].get<double>(), 0.01 * static_cast<double>(rank) - 1e-6);
    EXPECT_LT(r.per_rank[rank].get<double>(), 10.0);  // the 30 s profile time was not slept
  }
}

}  // namespace quorum

namespace quorum {

TEST(PointToPoint, WaitingAgentsSpinOnlyWithACorePerRank) {
  using Mode = mpi::ProgressEngine::WaitMode;
  EXPECT_EQ(mpi::resolve_wait_mode("auto", 16, 16), Mode::Spin);
  EXPECT_EQ(mpi::resolve_wait_mode("auto", 8, 2), Mode::Sleep);
  EXPECT_EQ(mpi::resolve_wait_mode("spin", 8, 2), Mode::Spin);
  EXPECT_EQ(mpi::resolve_wait_mode("sleep", 1, 64), Mode::Sleep);
  EXPECT_THROW(mpi::resolve_wait_mode("busy", 1, 1), std::invalid_argument);
  EXPECT_GE(mpi::usable_cores(), 1);
}

}  // namespace quorum
