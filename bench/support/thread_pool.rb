# frozen_string_literal: true

module Bench
  # Long-lived threads, as a server's pool: started once, before anything is
  # timed, each looping on its own queue of work. run hands each its share of
  # a number of calls and waits for all to finish.
  class ThreadPool
    def initialize(size, &work)
      @work = work
      @done = Queue.new
      @queues = Array.new(size) { Queue.new }
      @queues.each do |queue|
        Thread.new do
          while (job = queue.pop)
            @work.call(*job)
            @done << true
          end
        end
      end
    end

    # Runs the pool's block with (*args, share of calls) on every thread.
    def run(calls, *args)
      share, extra = calls.divmod(@queues.size)
      @queues.each_with_index { |queue, i| queue << [*args, share + (i < extra ? 1 : 0)] }
      @queues.size.times { @done.pop }
    end

    def self.label(name, threads)
      "#{name}, #{threads} thread#{"s" unless threads == 1}"
    end
  end
end
