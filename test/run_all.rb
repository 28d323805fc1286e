# frozen_string_literal: true

# Loads the test files bin/test's runner names in FAST_RANDOM_TEST_FILES
# (one job of a pass: script/test_runner.rb), or every test file; minitest
# runs them at exit, with the arguments given.
require_relative "test_helper"
files = ENV["FAST_RANDOM_TEST_FILES"].to_s.split
files = Dir[File.join(__dir__, "**", "*_test.rb")].sort if files.empty?
files.each { |file| FileTimes.require_timed(File.expand_path(file, File.join(__dir__, ".."))) }
