# frozen_string_literal: true

# Loads every test file; bin/test runs this once per JRuby version.
Dir[File.join(__dir__, "**", "*_test.rb")].sort.each { |file| require file }
