#include "api/error_slot.hpp"

#include <atomic>
#include <unordered_map>

namespace mkb::api {

namespace {

std::atomic<uint64_t> next_thread_number{1};

// One per thread: its number, and the slots it left a text in, to clear when it exits.
class thread_texts {
public:
  ~thread_texts() {
    for (auto &[address, slot] : written_)
      if (auto t = slot.lock()) {
        std::lock_guard lock(t->mutex);
        t->by_thread.erase(number);
      }
  }

  void wrote(const std::shared_ptr<error_slot::texts> &t) {
    // A slot's address may be reused by a later one once it is gone: the entry then names the new one.
    written_.insert_or_assign(t.get(), t);
    if (written_.size() < prune_at_) return;
    for (auto it = written_.begin(); it != written_.end();) it = it->second.expired() ? written_.erase(it) : std::next(it);
    prune_at_ = 2 * written_.size() + 16; // amortized: bounded by the live slots this thread wrote to
  }

  const uint64_t number = next_thread_number++;

private:
  std::unordered_map<const void *, std::weak_ptr<error_slot::texts>> written_;
  size_t prune_at_ = 16;
};

thread_texts &this_thread() {
  thread_local thread_texts mine;
  return mine;
}

} // namespace

void error_slot::set(std::string text) noexcept {
  thread_texts &me = this_thread();
  std::lock_guard lock(texts_->mutex);
  try {
    texts_->by_thread.insert_or_assign(me.number, std::move(text));
    me.wrote(texts_);
  } catch (...) {
    // Out of memory while storing the text: the status still says what happened.
    texts_->by_thread.erase(me.number);
  }
}

const char *error_slot::get() const {
  uint64_t me = this_thread().number;
  std::lock_guard lock(texts_->mutex);
  auto it = texts_->by_thread.find(me);
  return it == texts_->by_thread.end() ? "" : it->second.c_str();
}

void error_slot::clear() {
  uint64_t me = this_thread().number;
  std::lock_guard lock(texts_->mutex);
  texts_->by_thread.erase(me);
}

} // namespace mkb::api
