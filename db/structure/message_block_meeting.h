#pragma once
// The message blocks shared by two threads that read their table from its
// two ends (scan_message_blocks, ScanFrom::Front and ScanFrom::Back): the
// front one takes blocks while they come before every block the back one
// took, the back one while they come after every block the front one took,
// and each stops at its first refusal. Every block is so taken once: the
// front one's are a first run of the table in key order, the back one's the
// rest, in reverse.
//
// Why: the loader reads the messages on a second thread while the first
// reads the events, and the two took unlike times: the first thread waited
// for the second 10-20 ms at 1,024 processes × 320 iterations and at 16,384
// × 20. Now it reads messages from the back until the two meet (a third of
// them at 16,384 × 20, a fifth at 1,024 × 320, none where the events take
// longer, as at 4,096 × 20).
#include <mutex>
#include <optional>

#include "store/record_scan.h"

namespace weft::db {

class MessageBlockMeeting {
 public:
  bool take_from_front(const MessageBlockKey& key) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (back_ && key >= *back_) return false;
    front_ = key;
    return true;
  }
  bool take_from_back(const MessageBlockKey& key) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (front_ && key <= *front_) return false;
    back_ = key;
    return true;
  }

 private:
  std::mutex mutex_;
  std::optional<MessageBlockKey> front_, back_;  // the last block each side took
};

}  // namespace weft::db
