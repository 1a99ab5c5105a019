#include "sim/simgrid/RankRunner.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "platforms/PlatformBuilder.hpp"
#include "sim/simgrid/SimComm.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;

namespace {

// Every actor's stack, in KiB (SimGrid's default is 8 MiB). The whole test suite, whose runs put the proxy math on
// the actors' stacks too, passes with 64 KiB stacks and overflows with 48 KiB, so this leaves 8 times the deepest
// stack seen. Smaller stacks are cheaper to map, zero and unmap: at 16,384 ranks a run of one step of allreduce takes
// 3.8 s instead of 4.9 s, and 50 MB less.
constexpr int kActorStackKiB = 512;

// SimGrid gives every actor's stack a guard page, which costs the process two memory mappings per actor, and Linux
// caps mappings per process (vm.max_map_count, 65,530 by default). A rank has up to three actors (its body, a
// progress agent, a second agent), so past about 10,000 ranks the guard pages alone exhaust the cap and SimGrid
// aborts ("Failed to protect stack"). There, stacks go without guard pages: an overflow is then not caught, but
// quorum's actors recurse nowhere.
bool guard_pages_fit(int ranks) {
  long long max_maps = 65530;
  std::ifstream("/proc/sys/vm/max_map_count") >> max_maps;
  constexpr long long kMappingsPerRank = 3 * 2, kOtherMappings = 4096;
  return kMappingsPerRank * ranks + kOtherMappings <= max_maps;
}

}  // namespace

double run_ranks(const PlatformConfig& platform, const ComputeModel& compute,
                 const std::function<void(Comm&)>& program, int math_threads, MessagePaths paths) {
  // SimGrid's own chatter (configuration changes, its deadlock dump) is replaced by our messages.
  std::string a0 = "quorum", a1 = "--log=root.thres:critical", a2 = "--log=ker_engine.app:file:/dev/null",
              a3 = "--cfg=contexts/stack-size:" + std::to_string(kActorStackKiB), a4 = "--cfg=contexts/guard-size:0";
  char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), a4.data(), nullptr};
  int argc = guard_pages_fit(rank_count(platform)) ? 4 : 5;
  argv[argc] = nullptr;
  sg4::Engine engine(&argc, argv);
  configure_network_model(platform);
  std::vector<sg4::Host*> hosts = build_platform(platform);
  // Ranks' mutexes (CooperativeMutex.hpp) and the direct messages' timers rely on one actor running at a time.
  if (const int threads = simgrid::config::get_value<int>("contexts/nthreads"); threads > 1)
    throw SimulationError("SimGrid's contexts/nthreads is " + std::to_string(threads) +
                          " (set by the platform file); quorum runs SimGrid's sequential engine: allowed value 1");
  const int ranks = rank_count(platform);
  if (static_cast<int>(hosts.size()) != ranks || std::count(hosts.begin(), hosts.end(), nullptr) > 0)
    throw SimulationError("the platform provides " + std::to_string(hosts.size()) + " hosts for " +
                          std::to_string(ranks) + " ranks");

  SimWorld world(hosts, compute, host_costs(platform));
  world.use_math_threads(math_threads);
  world.use_message_paths(paths.unshared_control, paths.direct_data, paths.flow_solve_window_s,
                          paths.route_cache_pairs);
  std::vector<char> finished(static_cast<std::size_t>(ranks), 0);
  for (int r = 0; r < ranks; ++r) {
    // An exception inside an actor would abort the process; keep the first one and report it after the run.
    sg4::Actor::create("rank-" + std::to_string(r), hosts[static_cast<std::size_t>(r)],
                       [&world, &program, &finished, r] {
                         try {
                           if (SlowLinks* slow = world.slow_links()) slow->enter_step(r, 0);
                           SimComm comm(world, r);
                           program(comm);
                           finished[static_cast<std::size_t>(r)] = 1;
                           comm.deliver_pending_posts();
                         } catch (const std::exception& e) {
                           if (world.first_error.empty()) world.first_error = "rank " + std::to_string(r) + ": " + e.what();
                         }
                       });
  }
  engine.run();
  const double end = sg4::Engine::get_clock();

  if (!world.first_error.empty()) throw SimulationError(world.first_error);
  std::vector<int> stuck;
  for (int r = 0; r < ranks; ++r)
    if (!finished[static_cast<std::size_t>(r)]) stuck.push_back(r);
  if (!stuck.empty()) {
    std::ostringstream os;
    os << "deadlock: " << stuck.size() << " of " << ranks << " ranks blocked forever at simulated time " << end
       << " s (ranks";
    for (std::size_t i = 0; i < std::min<std::size_t>(stuck.size(), 12); ++i) os << " " << stuck[i];
    if (stuck.size() > 12) os << " ...";
    os << ")";
    throw SimulationError(os.str());
  }
  if (world.live_agents > 0)
    throw SimulationError(std::to_string(world.live_agents) +
                          " progress agents were still blocked after every rank had finished: the algorithm does not "
                          "shut its agents down");
  return end;
}

}  // namespace quorum
