# frozen_string_literal: true

# FastRandom::Generator: the Java controls behind FastRandom.backend, stats,
# reseed! and the rest (loaded by FastRandom.const_missing on first use).
JRuby::Util.load_ext("org.jruby.ext.fastrandom.GeneratorLibrary")
