#include "algorithms/prague/GroupGenerator.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "kernels/random/SeedStream.hpp"

namespace quorum {

namespace {

// Cuts a shuffled list into groups of `size`; a lone last member joins the previous group; a single lone member
// forms no group.
std::vector<std::vector<int>> partition(const std::vector<int>& list, int size) {
  std::vector<std::vector<int>> groups;
  for (std::size_t i = 0; i < list.size(); i += static_cast<std::size_t>(size))
    groups.emplace_back(list.begin() + static_cast<std::ptrdiff_t>(i),
                        list.begin() + static_cast<std::ptrdiff_t>(std::min(list.size(), i + static_cast<std::size_t>(size))));
  if (!groups.empty() && groups.back().size() == 1) {
    if (groups.size() >= 2) groups[groups.size() - 2].push_back(groups.back().front());
    groups.pop_back();
  }
  return groups;
}

}  // namespace

GroupGenerator::GroupGenerator(GroupGeneratorConfig config) : config_(config) {
  if (config_.workers < 1 || config_.group_size < 2 || config_.ranks_per_node < 1)
    throw std::invalid_argument("group generator: needs workers >= 1, group_size >= 2, ranks_per_node >= 1");
  const auto n = static_cast<std::size_t>(config_.workers);
  queue_.resize(n);
  buffer_.resize(n);
  awaiting_.resize(n);
  counter_.assign(n, 0);
  locked_.assign(n, false);
  finished_.assign(n, false);
}

const GroupRecord* GroupGenerator::group(std::int64_t id) const {
  const auto it = groups_.find(id);
  return it == groups_.end() ? nullptr : &it->second.record;
}

bool GroupGenerator::passes_filter(int initiator, int worker) const {
  return counter_[static_cast<std::size_t>(initiator)] - counter_[static_cast<std::size_t>(worker)] < config_.c_thres;
}

bool GroupGenerator::is_ready(const Group& g) const {
  if (config_.mode == GroupMode::Random) return true;
  return std::all_of(g.asked.begin(), g.asked.end(), [](bool a) { return a; });
}

void GroupGenerator::mark_asked(Group& g, int worker, double now) {
  const auto it = std::find(g.record.members.begin(), g.record.members.end(), worker);
  g.asked[static_cast<std::size_t>(it - g.record.members.begin())] = true;
  if (g.record.ready_s < 0 && is_ready(g)) g.record.ready_s = now;
  recheck(g);
}

void GroupGenerator::recheck(Group& g) {
  if (g.active || g.listed) return;
  g.listed = true;
  recheck_.push_back(g.record.id);
}

std::int64_t GroupGenerator::create(std::vector<int> members, int initiator, GroupKind kind, double now) {
  std::sort(members.begin(), members.end());
  const std::int64_t id = next_id_++;
  Group g;
  g.record.id = id;
  g.record.members = members;
  g.record.initiator = initiator;
  g.record.kind = kind;
  g.record.created_s = now;
  g.asked.assign(members.size(), false);
  if (config_.mode == GroupMode::Random) g.record.ready_s = now;
  for (int m : members) {
    queue_[static_cast<std::size_t>(m)].push_back(id);
    if (config_.mode == GroupMode::Smart) buffer_[static_cast<std::size_t>(m)].push_back(id);
  }
  ++pending_;
  recheck(groups_.emplace(id, std::move(g)).first->second);
  return id;
}

std::vector<int> GroupGenerator::draw_random_group(int initiator, const std::vector<int>& pool) {
  Rng rng(config_.seed, Stream::GroupGenerator, static_cast<std::uint64_t>(initiator),
          static_cast<std::uint64_t>(counter_[static_cast<std::size_t>(initiator)]) * 2 + 1);
  std::vector<int> members{initiator};
  for (int k : sample_distinct(rng, static_cast<int>(pool.size()), config_.group_size - 1))
    members.push_back(pool[static_cast<std::size_t>(k)]);
  return members;
}

void GroupGenerator::divide(int initiator, double now) {
  Rng rng(config_.seed, Stream::GroupGenerator, static_cast<std::uint64_t>(initiator),
          static_cast<std::uint64_t>(counter_[static_cast<std::size_t>(initiator)]) * 2);
  std::vector<int> candidates;
  for (int w = 0; w < config_.workers; ++w) {
    const auto k = static_cast<std::size_t>(w);
    if (!finished_[k] && buffer_[k].empty() && (w == initiator || passes_filter(initiator, w))) candidates.push_back(w);
  }
  const int per_node = config_.ranks_per_node;
  if (config_.inter_intra && per_node > 1) {
    std::map<int, std::vector<int>> by_node;
    for (int w : candidates) by_node[w / per_node].push_back(w);
    std::vector<int> heads;
    std::map<int, std::vector<int>> others;
    for (auto& [node, list] : by_node) {
      shuffle(list, rng);
      heads.push_back(list.front());
      others[node].assign(list.begin() + 1, list.end());
    }
    shuffle(heads, rng);
    for (auto& g : partition(heads, config_.group_size)) create(g, initiator, GroupKind::Inter, now);
    for (auto& [node, rest] : others)
      for (auto& g : partition(rest, config_.group_size)) create(g, initiator, GroupKind::Local, now);
    for (auto& [node, list] : by_node)
      if (list.size() >= 2) create(list, initiator, GroupKind::Intra, now);
  } else {
    shuffle(candidates, rng);
    for (auto& g : partition(candidates, config_.group_size)) create(g, initiator, GroupKind::Division, now);
  }
  if (buffer_[static_cast<std::size_t>(initiator)].empty()) {
    // Nobody idle to pair with: a random group among the workers the filter lets through (they may be busy; the
    // lock vector serialises).
    std::vector<int> pool;
    for (int w = 0; w < config_.workers; ++w)
      if (w != initiator && !finished_[static_cast<std::size_t>(w)] && passes_filter(initiator, w)) pool.push_back(w);
    create(draw_random_group(initiator, pool), initiator, GroupKind::Fallback, now);
  }
}

std::int64_t GroupGenerator::request(int worker, double now) {
  const auto w = static_cast<std::size_t>(worker);
  if (finished_[w]) throw std::logic_error("group generator: a finished worker asked for a group");
  if (awaiting_[w]) throw std::logic_error("group generator: a worker asked again before its group ran");
  ++counter_[w];
  std::int64_t id = 0;
  if (config_.mode == GroupMode::Random) {
    std::vector<int> pool;
    for (int v = 0; v < config_.workers; ++v)
      if (v != worker && !finished_[static_cast<std::size_t>(v)]) pool.push_back(v);
    id = create(draw_random_group(worker, pool), worker, GroupKind::Random, now);
  } else {
    if (buffer_[w].empty()) divide(worker, now);
    id = buffer_[w].front();
    buffer_[w].pop_front();
  }
  mark_asked(groups_.at(id), worker, now);
  awaiting_[w] = id;
  return id;
}

void GroupGenerator::finish(int worker) {
  const auto w = static_cast<std::size_t>(worker);
  finished_[w] = true;
  for (std::int64_t id : buffer_[w]) mark_asked(groups_.at(id), worker, -1);
  buffer_[w].clear();
}

// Only the groups listed since the last call can start now: a pending group that could not start then (not ready,
// or a member locked) stays so until it becomes ready or a member's lock is released, and both list it; locks are
// taken only here. So looking at the listed groups, oldest first, starts the same groups as scanning the whole
// pending queue would, at a cost that does not grow with the number of workers.
std::vector<Activation> GroupGenerator::take_activations(double now) {
  std::vector<Activation> out;
  std::sort(recheck_.begin(), recheck_.end());
  for (const std::int64_t id : recheck_) {
    Group& g = groups_.at(id);
    g.listed = false;
    if (!is_ready(g)) continue;
    if (g.record.ready_s < 0) g.record.ready_s = now;  // made ready by finish()
    // The lock vector: a group starts when none of its members is in an active group. Older groups are looked at
    // first, so they win when two pending groups want the same free worker.
    const bool startable = std::none_of(g.record.members.begin(), g.record.members.end(),
                                        [&](int m) { return locked_[static_cast<std::size_t>(m)]; });
    if (!startable) {
      g.record.conflict = true;
      continue;
    }
    Activation a{g.record.id, g.record.members, {}};
    for (int m : g.record.members) {
      const auto k = static_cast<std::size_t>(m);
      locked_[k] = true;
      const bool answers = awaiting_[k] && *awaiting_[k] == g.record.id;
      if (answers) awaiting_[k].reset();
      a.answers_request.push_back(answers);
    }
    g.active = true;
    g.record.activated_s = now;
    --pending_;
    out.push_back(std::move(a));
  }
  recheck_.clear();
  return out;
}

void GroupGenerator::acknowledge(int worker, std::int64_t group, double now) {
  const auto w = static_cast<std::size_t>(worker);
  Group& g = groups_.at(group);
  auto& mine = queue_[w];
  const auto it = std::find(mine.begin(), mine.end(), group);
  if (!g.active || !locked_[w] || it == mine.end())
    throw std::logic_error("group generator: acknowledgement of a group that is not this worker's active one");
  mine.erase(it);
  locked_[w] = false;
  for (const std::int64_t id : mine) recheck(groups_.at(id));  // its pending groups may start now
  if (++g.acknowledged == static_cast<int>(g.record.members.size())) {
    g.record.done_s = now;
    completed_.push_back(g.record);
    groups_.erase(group);
  }
}

std::vector<GroupRecord> GroupGenerator::take_completed() {
  std::vector<GroupRecord> out;
  out.swap(completed_);
  return out;
}

bool GroupGenerator::released(int worker) const {
  const auto w = static_cast<std::size_t>(worker);
  return finished_[w] && queue_[w].empty();
}

bool GroupGenerator::all_released() const {
  for (int w = 0; w < config_.workers; ++w)
    if (!released(w)) return false;
  return true;
}

}  // namespace quorum
