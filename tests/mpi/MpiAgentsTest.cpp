// Multi-agent programs on the MPI backend, in the shapes the partial, gossip and asynchronous algorithms use: a
// progress agent serving requests while the main agent computes (eager-SGD, WAGMA), activations forwarded along a
// tree with fire-and-forget posts, two agents per rank exchanging at once (AD-PSGD), a mutex and condition variable
// shared by two agents, native allreduces issued by two agents of a rank at the same time, and agents woken by a
// message to themselves and cancelling their pending receive at shutdown.
#include <gtest/gtest.h>

#include <deque>
#include <mutex>

#include "algorithms/collectives/SyncAllreduce.hpp"
#include "kernels/random/SeedStream.hpp"
#include "tests/mpi/MpiHarness.hpp"

namespace quorum {

using testing::run_on_ranks;

namespace {
const Tag kRequest = tags::make_any_source(Channel::GossipRequest, 1);
const Tag kReply = tags::make(Channel::GossipRequest, 2);
const Tag kWake = tags::make(Channel::Control, 1);
const Tag kActivation = tags::make_any_source(Channel::Activation, 1);
const Tag kLeftward = tags::make(Channel::Gossip, 1);
const Tag kRightward = tags::make(Channel::Gossip, 2);

// The usual listener loop: serve `serve` until a message on kWake from this rank says stop, then withdraw the
// pending receive.
void listen(Comm& comm, Tag tag, const std::function<void(const Message&)>& serve) {
  auto stop = comm.irecv(comm.rank(), kWake);
  for (;;) {
    auto request = comm.irecv(kAnySource, tag);
    const RequestPtr both[] = {request, stop};
    if (comm.wait_any(both) == 1) {
      comm.cancel(request);
      comm.take(stop);
      return;
    }
    serve(comm.take(request));
  }
}

void world_barrier(Comm& comm) {
  std::vector<float> none;
  AllreduceOptions o;
  o.allow_native = false;
  o.channel = Channel::Barrier;
  allreduce_sum(comm, Group::world(comm.size()), none, 0, o);
}
}  // namespace

TEST(Agents, ProgressAgentServesRequestsWhileTheMainAgentComputes) {
  testing::MpiHarnessOptions o;
  o.compute_s = 0.002;
  const auto r = run_on_ranks(
      [](Comm& comm) {
        std::atomic<int> served{0};
        auto agent = comm.spawn("server", [&served](Comm& c) {
          listen(c, kRequest, [&](const Message& m) {
            c.send(m.source, kReply, {{}, {m.payload.ints.at(0) * 10 + c.rank()}}, 8);
            ++served;
          });
        });
        Rng rng(7, Stream::Algorithm, static_cast<std::uint64_t>(comm.rank()));
        nlohmann::json answers = nlohmann::json::array();
        bool all_right = true;
        for (int step = 0; step < 10; ++step) {
          comm.compute(step, {});
          const int peer = static_cast<int>(rng.below(static_cast<std::uint64_t>(comm.size())));
          comm.send(peer, kRequest, {{}, {step}}, 8);
          const Message reply = comm.recv(peer, kReply);
          all_right = all_right && reply.payload.ints.at(0) == step * 10 + peer;
        }
        world_barrier(comm);  // nobody sends requests any more
        comm.send(comm.rank(), kWake, {}, 0);
        agent->join();
        return nlohmann::json{all_right, served.load()};
      },
      o);
  ASSERT_TRUE(r.ok) << r.error;
  int served = 0;
  for (const auto& v : r.per_rank) {
    EXPECT_TRUE(v[0].get<bool>());
    served += v[1].get<int>();
  }
  EXPECT_EQ(served, 10 * testing::mpi_size());
}

TEST(Agents, ActivationsForwardedAlongATreeReachEveryRankOnce) {
  const auto r = run_on_ranks([](Comm& comm) {
    std::atomic<int> activations{0};
    std::atomic<std::int64_t> origin{-1};
    auto agent = comm.spawn("activation", [&](Comm& c) {
      listen(c, kActivation, [&](const Message& m) {
        ++activations;
        origin = m.payload.ints.at(0);
        // Forward along the binomial tree rooted at the origin.
        const int p = c.size(), rel = (c.rank() - static_cast<int>(m.payload.ints.at(0)) + p) % p;
        for (int mask = 1; mask < p; mask <<= 1) {
          if (rel < mask && rel + mask < p)
            c.post((c.rank() + mask) % p, kActivation, m.payload, 8);
        }
      });
    });
    const int root = comm.size() - 1;
    if (comm.rank() == root) {
      ++activations;
      origin = root;
      for (int mask = 1; mask < comm.size(); mask <<= 1) comm.post((root + mask) % comm.size(), kActivation, {{}, {root}}, 8);
    }
    // Wait until the activation arrived here, then until every rank saw it.
    while (activations.load() == 0) comm.sleep_for(0.001);
    world_barrier(comm);
    comm.send(comm.rank(), kWake, {}, 0);
    agent->join();
    return nlohmann::json{activations.load(), origin.load()};
  });
  ASSERT_TRUE(r.ok) << r.error;
  for (const auto& v : r.per_rank) {
    EXPECT_EQ(v[0].get<int>(), 1);
    EXPECT_EQ(v[1].get<int>(), testing::mpi_size() - 1);
  }
}

TEST(Agents, TwoAgentsPerRankExchangeWithNeighboursAtOnce) {
  const auto r = run_on_ranks([](Comm& comm) {
    const int p = comm.size(), right = (comm.rank() + 1) % p, left = (comm.rank() + p - 1) % p;
    std::vector<float> got_left, got_right;
    // Each exchange: send my block, receive the neighbour's, concurrently in both directions, many times.
    auto exchange = [](Comm& c, int peer, Tag out_tag, Tag in_tag, std::vector<float>& last) {
      for (int round = 0; round < 30; ++round) {
        std::vector<float> mine(2000 + static_cast<std::size_t>(round), static_cast<float>(c.rank() * 100 + round));
        auto in = c.irecv(peer, in_tag);
        auto out = c.isend(peer, out_tag, {mine, {round}}, 0);
        c.wait(out);
        c.wait(in);
        const Message m = c.take(in);
        if (m.payload.ints.at(0) != round) throw std::runtime_error("exchange out of step");
        last = m.payload.values;
      }
    };
    auto a = comm.spawn("to-left", [&](Comm& c) { exchange(c, left, kLeftward, kRightward, got_left); });
    auto b = comm.spawn("to-right", [&](Comm& c) { exchange(c, right, kRightward, kLeftward, got_right); });
    a->join();
    b->join();
    return nlohmann::json{got_left.size(), got_left.empty() ? -1.0f : got_left[0], got_right.size(),
                          got_right.empty() ? -1.0f : got_right[0]};
  });
  ASSERT_TRUE(r.ok) << r.error;
  const int p = testing::mpi_size();
  for (int rank = 0; rank < p; ++rank) {
    const auto& v = r.per_rank[static_cast<std::size_t>(rank)];
    EXPECT_EQ(v[0].get<std::size_t>(), 2029u);
    EXPECT_EQ(v[1].get<float>(), static_cast<float>(((rank + p - 1) % p) * 100 + 29));
    EXPECT_EQ(v[3].get<float>(), static_cast<float>(((rank + 1) % p) * 100 + 29));
  }
}

TEST(Agents, MutexAndConditionVariableHandOffWorkBetweenAgents) {
  const auto r = run_on_ranks([](Comm& comm) {
    auto mutex = comm.make_mutex();
    auto cv = comm.make_condition_variable();
    std::deque<int> queue;
    bool done = false;
    long long consumed = 0;
    auto consumer = comm.spawn("consumer", [&](Comm&) {
      for (;;) {
        std::unique_lock<Mutex> lock(*mutex);
        cv->wait(lock, [&] { return !queue.empty() || done; });
        if (queue.empty()) return;
        consumed += queue.front();
        queue.pop_front();
      }
    });
    for (int i = 1; i <= 2000; ++i) {
      {
        std::lock_guard<Mutex> lock(*mutex);
        queue.push_back(i);
      }
      cv->notify_one();
    }
    {
      std::lock_guard<Mutex> lock(*mutex);
      done = true;
    }
    cv->notify_all();
    consumer->join();
    return consumed;
  });
  ASSERT_TRUE(r.ok) << r.error;
  for (const auto& v : r.per_rank) EXPECT_EQ(v.get<long long>(), 2000LL * 2001 / 2);
}

TEST(Agents, NativeAllreducesFromTwoAgentsOfARankRunConcurrently) {
  const auto r = run_on_ranks([](Comm& comm) {
    const int p = comm.size();
    bool world_ok = true, pair_ok = true;
    // The agent reduces within pairs {0,1}, {2,3}, ... on its channel while the main agent reduces over the world.
    auto agent = comm.spawn("groups", [&](Comm& c) {
      const int mate = c.rank() ^ 1;
      if (mate >= p) return;
      Group pair;
      pair.members = {std::min(c.rank(), mate), std::max(c.rank(), mate)};
      AllreduceOptions o;
      o.channel = Channel::GroupAllreduce;
      for (int i = 0; i < 20; ++i) {
        std::vector<float> v(100, static_cast<float>(c.rank() + i));
        allreduce_sum(c, pair, v, 1e5, o);
        pair_ok = pair_ok && v[99] == static_cast<float>(c.rank() + mate + 2 * i);
      }
    });
    AllreduceOptions o;
    for (int i = 0; i < 20; ++i) {
      std::vector<float> v(1000, static_cast<float>(comm.rank() * i));
      allreduce_sum(comm, Group::world(p), v, 4e6, o);
      world_ok = world_ok && v[0] == static_cast<float>(i * p * (p - 1) / 2);
    }
    agent->join();
    return nlohmann::json{world_ok, pair_ok};
  });
  ASSERT_TRUE(r.ok) << r.error;
  for (const auto& v : r.per_rank) {
    EXPECT_TRUE(v[0].get<bool>());
    EXPECT_TRUE(v[1].get<bool>());
  }
}

}  // namespace quorum
