# frozen_string_literal: true

# Loads every test file; bin/test runs this once per JRuby version.
require_relative "test_helper"
Dir[File.join(__dir__, "**", "*_test.rb")].sort.each { |file| FileTimes.require_timed(file) }
