// ThreadPool: persistent workers that spin briefly, then sleep on a condition variable, between jobs.
//
// A job splits [0, n) into up to 4 contiguous chunks per thread, claimed through one atomic ticket
// (job generation | chunk count | next chunk) so a busy core does not stall the others; the caller's thread
// works too, and returns as soon as every chunk is DONE: it never waits for a worker that was descheduled and
// claimed nothing (on a shared machine that wait cost more than the work). A late worker's claim fails on
// the generation check. Workers spin ~100 us after a job before sleeping, so back-to-back calls do not pay
// a wake-up.
#include "kernels/cpu/thread_pool.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace rooftop::kernels {
namespace {
thread_local bool t_in_pool_job = false;  // set while this thread runs a chunk: nested calls run inline
thread_local int t_worker = 0;
constexpr auto kSpin = std::chrono::microseconds(100);
}  // namespace

struct ThreadPool::Impl {
  int threads = 1;
  std::vector<std::thread> workers;
  std::mutex call_mutex;  // one job at a time
  std::mutex m;
  std::condition_variable cv;
  std::atomic<uint64_t> generation{0};
  // ticket = generation (32 bits) << 32 | chunks (16 bits) << 16 | next chunk (16 bits)
  std::atomic<uint64_t> ticket{0};
  std::atomic<int64_t> done_chunks{0};
  std::atomic<bool> stop{false};
  // The current job (written before generation is bumped, read after it is seen).
  const std::function<void(int64_t, int64_t, int)>* fn = nullptr;
  int64_t n = 0, chunks = 0;
  std::mutex error_mutex;
  std::exception_ptr error;

  // Claims chunks of job `gen` until none is left; false at once if the ticket belongs to another job.
  void run_chunks(int worker, uint64_t gen) {
    const bool was_in = t_in_pool_job;
    const int was_worker = t_worker;
    t_in_pool_job = true;
    t_worker = worker;
    uint64_t t = ticket.load(std::memory_order_acquire);
    for (;;) {
      if ((t >> 32) != (gen & 0xFFFFFFFFu)) break;
      const uint64_t total = (t >> 16) & 0xFFFFu, c = t & 0xFFFFu;
      if (c >= total) break;
      if (!ticket.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
      // The job's fields stay valid: the caller waits for this chunk to be done before it changes them.
      const int64_t begin = n * int64_t(c) / chunks, end = n * (int64_t(c) + 1) / chunks;
      try {
        (*fn)(begin, end, worker);
      } catch (...) {
        std::lock_guard<std::mutex> lk(error_mutex);
        if (!error) error = std::current_exception();
      }
      done_chunks.fetch_add(1, std::memory_order_acq_rel);
      t = ticket.load(std::memory_order_acquire);
    }
    t_in_pool_job = was_in;
    t_worker = was_worker;
  }

  void worker_loop(int worker) {
    uint64_t seen = 0;
    for (;;) {
      uint64_t g = generation.load(std::memory_order_acquire);
      const auto spin_until = std::chrono::steady_clock::now() + kSpin;
      for (int i = 0; g == seen && !stop.load(std::memory_order_relaxed); ++i) {
        _mm_pause();
        g = generation.load(std::memory_order_acquire);
        if ((i & 63) == 63 && std::chrono::steady_clock::now() > spin_until) {
          std::unique_lock<std::mutex> lk(m);
          cv.wait(lk, [&] { return generation.load(std::memory_order_acquire) != seen || stop.load(); });
          g = generation.load(std::memory_order_acquire);
        }
      }
      if (stop.load()) return;
      seen = g;
      run_chunks(worker, g);
    }
  }
};

ThreadPool::ThreadPool(int threads) : impl_(new Impl) {
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  impl_->threads = threads;
  for (int w = 1; w < threads; ++w) impl_->workers.emplace_back([this, w] { impl_->worker_loop(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lk(impl_->m);
    impl_->stop = true;
  }
  impl_->cv.notify_all();
  for (auto& t : impl_->workers) t.join();
  delete impl_;
}

int ThreadPool::size() const { return impl_->threads; }

void ThreadPool::parallel_for(int64_t n, const std::function<void(int64_t, int64_t, int)>& fn, int64_t chunks_per_thread) {
  if (n <= 0) return;
  Impl& p = *impl_;
  if (p.threads == 1 || n == 1 || t_in_pool_job) {  // serial: one chunk on the calling thread
    fn(0, n, t_in_pool_job ? t_worker : 0);
    return;
  }
  std::lock_guard<std::mutex> call(p.call_mutex);
  p.fn = &fn;
  p.n = n;
  p.chunks = std::min<int64_t>({n, int64_t(p.threads) * std::max<int64_t>(1, chunks_per_thread), 0xFFFF});  // 16-bit ticket
  p.done_chunks.store(0, std::memory_order_relaxed);
  p.error = nullptr;
  uint64_t gen;
  {
    std::lock_guard<std::mutex> lk(p.m);
    gen = p.generation.load(std::memory_order_relaxed) + 1;  // only callers (under call_mutex) change it
    // The ticket first, so a worker that sees the new generation also sees this job's ticket.
    p.ticket.store(((gen & 0xFFFFFFFFu) << 32) | (uint64_t(p.chunks) << 16), std::memory_order_release);
    p.generation.store(gen, std::memory_order_release);
  }
  p.cv.notify_all();
  p.run_chunks(0, gen);
  // Every chunk must be done before the job's fields are reused; workers that claimed none are not awaited.
  for (int i = 0; p.done_chunks.load(std::memory_order_acquire) != p.chunks; ++i) {
    if (i < 4096) _mm_pause(); else std::this_thread::yield();
  }
  if (p.error) std::rethrow_exception(p.error);
}

bool ThreadPool::in_parallel_region() { return t_in_pool_job; }

}  // namespace rooftop::kernels
