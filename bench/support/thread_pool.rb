# frozen_string_literal: true

require "json"

module Bench
  # Long-lived threads, as a server's pool under load: started once, before
  # anything is timed, each runs the work in a loop, chunk after chunk, and
  # counts what it did. The main thread reads the counts every 100 ms, after
  # a warm-up, and reports the total calls per second with the standard
  # deviation of those samples. No barrier: one thread's pause (GC, the
  # scheduler) never idles the others, and nothing depends on benchmark-ips's
  # warm-up, which times one call at a time (here that would time the
  # hand-off between threads, not the work).
  class ThreadPool
    SAMPLE = 0.1

    # +work+ gets (*args, calls) and makes that many calls.
    def initialize(size, &work)
      @jobs = Array.new(size) { Queue.new }
      @counts = Array.new(size, 0)
      @jobs.each_with_index do |queue, i|
        Thread.new do
          while (job = queue.pop)
            args, chunk = job
            @counts[i] += chunk.tap { work.call(*args, chunk) } until @stop
          end
        end
      end
    end

    def size
      @jobs.size
    end

    # Runs (*args) on every thread, +chunk+ calls at a time, for the warm-up
    # then the measurement; returns benchmark-ips's entry fields for it.
    def measure(name, *args, chunk:, warmup:, time:)
      @stop = false
      @jobs.each { |queue| queue << [args, chunk] }
      sleep warmup
      rates = []
      total = 0
      started = last = clock
      count = @counts.sum
      while (now = clock) - started < time
        sleep SAMPLE
        now = clock
        done = @counts.sum
        rates << (done - count) / (now - last)
        total += done - count
        count = done
        last = now
      end
      @stop = true
      entry(name, rates, total, last - started)
    end

    def self.label(name, threads)
      "#{name}, #{threads} thread#{"s" unless threads == 1}"
    end

    private

    def clock
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end

    def entry(name, rates, calls, seconds)
      Bench.entry(name, rates, calls / seconds, calls: calls, seconds: seconds)
    end
  end

  module_function

  # The thread workloads' benchmark-ips: every (label, pool, args, chunk) the
  # block adds is measured in turn with ThreadPool#measure; the results go
  # where Bench.ips puts benchmark-ips's (bench/run.rb merges both alike),
  # or to the terminal by hand.
  def threads(notes = {})
    entries = []
    yield ->(label, pool, *args, chunk:) { entries << [label, pool, args, chunk] }
    results = entries.map { |label, pool, args, chunk| pool.measure(label, *args, chunk: chunk, **ips_times) }
    write_entries(results, notes)
  end
end
