// The list a parameter server waits on again and again (algorithms/comm/RequestList.hpp): it notes which positions
// changed since its last wait, so that a backend can take up those alone.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "algorithms/comm/RequestList.hpp"

namespace quorum {

namespace {
RequestPtr request() { return std::make_shared<Request>(); }
std::vector<std::uint32_t> changed(const RequestList& list) { return {list.changed().begin(), list.changed().end()}; }
}  // namespace

TEST(RequestList, NotesEveryPositionChangedSinceTheLastWait) {
  RequestList list;
  const RequestPtr a = request(), b = request(), c = request();
  list.push_back(a);
  list.push_back(b);
  list.push_back(c);
  EXPECT_EQ(changed(list), (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(list.waits(), 0u);
  list.waited();
  EXPECT_TRUE(list.changed().empty());
  EXPECT_GE(list.changed_from(), list.size());  // nothing from any position on
  EXPECT_EQ(list.waits(), 1u);

  const RequestPtr d = request();
  list.set(1, d);
  list.set(1, c);  // twice: listed twice, the list holds the last
  EXPECT_EQ(changed(list), (std::vector<std::uint32_t>{1, 1}));
  EXPECT_EQ(list[1], c);
  list.erase(0);  // b's place and every later one moved
  EXPECT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0], c);
  EXPECT_EQ(list.changed_from(), 0u);
  EXPECT_EQ(list.all().size(), 2u);
  list.waited();
  EXPECT_TRUE(list.changed().empty());
  EXPECT_EQ(list.waits(), 2u);
  EXPECT_THROW(list.set(2, d), std::out_of_range);
}

TEST(RequestList, ARetiredPositionKeepsItsPlaceAndHoldsNothing) {
  RequestList list;
  const RequestPtr a = request(), b = request(), c = request();
  for (const RequestPtr& r : {a, b, c}) list.push_back(r);
  list.waited();
  list.retire(1);
  EXPECT_EQ(list.size(), 3u);
  EXPECT_EQ(list.live(), 2u);
  EXPECT_EQ(list[1], nullptr);
  EXPECT_EQ(list[2], c);
  EXPECT_EQ(changed(list), (std::vector<std::uint32_t>{1}));  // one change: nothing moved
  list.retire(1);  // again: still one retired
  EXPECT_EQ(list.live(), 2u);
  list.set(1, b);  // back in
  EXPECT_EQ(list.live(), 3u);
  list.retire(0);
  list.erase(0);  // a retired position erased
  EXPECT_EQ(list.size(), 2u);
  EXPECT_EQ(list.live(), 2u);
}

TEST(RequestList, EveryListHasAnIdOfItsOwn) {
  const RequestList one, two;
  EXPECT_NE(one.id(), two.id());
  EXPECT_NE(one.id(), 0u);  // 0 is a backend's "no list"
}

}  // namespace quorum
