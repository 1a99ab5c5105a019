#include "algorithms/prague/GroupGeneratorAgent.hpp"

#include "algorithms/prague/GroupGeneratorProtocol.hpp"

#include <string>

namespace quorum {

namespace pp = prague_protocol;

namespace {

void report(StepObserver& observer, int rank, const GroupRecord& g) {
  observer.sample(rank, "prague.conflict", g.conflict ? 1.0 : 0.0);
  observer.sample(rank, "prague.queue_wait_s", g.activated_s - g.ready_s);
  observer.sample(rank, "prague.group_s", g.done_s - g.activated_s);
  observer.histogram(rank, "prague.group_size", static_cast<std::int64_t>(g.members.size()));
  observer.table_row("prague_groups", {{"group", static_cast<double>(g.id)},
                                       {"size", static_cast<double>(g.members.size())},
                                       {"initiator", static_cast<double>(g.initiator)},
                                       {"kind", static_cast<double>(static_cast<int>(g.kind))},
                                       {"created_s", g.created_s},
                                       {"ready_s", g.ready_s},
                                       {"activated_s", g.activated_s},
                                       {"done_s", g.done_s},
                                       {"conflict", g.conflict ? 1.0 : 0.0}});
}

}  // namespace

void run_group_generator(Comm& comm, StepObserver& observer, const GroupGeneratorAgentOptions& options) {
  GroupGenerator generator(options.generator);
  const int workers = options.generator.workers;
  std::vector<bool> release_sent(static_cast<std::size_t>(workers), false);
  int released = 0;
  while (released < workers) {
    Message m = comm.recv(kAnySource, pp::kToGenerator);
    if (options.service_s > 0) comm.sleep_for(options.service_s);
    const double now = comm.now();
    switch (m.payload.ints.at(0)) {
      case pp::kRequest: generator.request(m.source, now); break;
      case pp::kAcknowledge: generator.acknowledge(m.source, m.payload.ints.at(1), now); break;
      case pp::kFinish: generator.finish(m.source); break;
      default: throw std::logic_error("group generator: unknown message kind");
    }
    for (const Activation& a : generator.take_activations(now)) {
      if (observer.tracing()) {  // timeline: an instant on the generator's row when it activates a group
        // Appended piece by piece: "literal" + std::string trips GCC 12's false -Wrestrict.
        std::string name = "activate group ";
        name += std::to_string(a.group);
        name += " {";
        for (std::size_t i = 0; i < a.members.size(); ++i) {
          if (i) name += ',';
          name += std::to_string(a.members[i]);
        }
        name += '}';
        observer.span({comm.rank(), comm.agent_id(), "group_generator", name, now, now});
      }
      for (std::size_t i = 0; i < a.members.size(); ++i) {
        Payload p;
        p.ints = {pp::kActivate, a.group, a.answers_request[i] ? 1 : 0};
        p.ints.insert(p.ints.end(), a.members.begin(), a.members.end());
        const double bytes = pp::control_bytes(p.ints.size());
        comm.post(a.members[i], pp::kFromGenerator, std::move(p), bytes);
      }
    }
    for (const GroupRecord& g : generator.take_completed()) report(observer, comm.rank(), g);
    // Only the sender's own message (its finish, or its acknowledgement of its last group) can release a worker:
    // groups are formed for unfinished workers only. Checking the sender alone keeps a message O(1), not O(P).
    const int w = m.source;
    if (!release_sent[static_cast<std::size_t>(w)] && generator.released(w)) {
      release_sent[static_cast<std::size_t>(w)] = true;
      ++released;
      comm.post(w, pp::kFromGenerator, Payload{{}, {pp::kRelease}}, pp::control_bytes(1));
    }
  }
}

}  // namespace quorum
