# frozen_string_literal: true

# Writes test/vectors/ct_keys.txt, the keys of the constant-time test's
# instruction counts (test/rsa/constant_time_test.rb): three 3000-bit keys
# (primes of 1500 bits, not a multiple of 64) sharing one public exponent,
# whose secrets differ in limb pattern:
#   plain      random primes;
#   short_dp   dP about 60 bits shorter than p (a zero top limb, in 52-bit
#              and 64-bit limbs): p = (e dP + 1) / 2;
#   short_qinv qInv = q^-1 mod p below 2^64 (every limb but the lowest zero).
# Run once with MRI (ruby test/native/make_ct_keys.rb); the file is committed.
require "openssl"

BITS = 1500
E = 0xf00_0000_0000_0025 # a 60-bit prime: the same public exponent for every key
raise "E must be prime" unless OpenSSL::BN.new(E).prime?

def prime?(n) = OpenSSL::BN.new(n).prime?

def random_prime
  loop do
    p = OpenSSL::BN.generate_prime(BITS).to_i
    return p if (p - 1).gcd(E) == 1
  end
end

def key(p, q)
  d = OpenSSL::BN.new(E).mod_inverse((p - 1).lcm(q - 1)).to_i
  qinv = OpenSSL::BN.new(q).mod_inverse(p).to_i
  { n: p * q, e: E, d: d, p: p, q: q, dp: d % (p - 1), dq: d % (q - 1), qinv: qinv }
end

def short_dp_prime
  loop do
    dp = OpenSSL::BN.rand(BITS - 58).to_i | 1
    p = (E * dp + 1) / 2
    return p if p.bit_length == BITS && prime?(p) && (p - 1).gcd(E) == 1
  end
end

def short_qinv_primes
  p = random_prime
  (2..).each do |k|
    q = OpenSSL::BN.new(k).mod_inverse(p).to_i # q^-1 = k mod p
    return [p, q] if q.bit_length == BITS && q.odd? && prime?(q) && (q - 1).gcd(E) == 1
  end
end

keys = {
  "plain" => key(random_prime, random_prime),
  "short_dp" => key(short_dp_prime, random_prime),
  "short_qinv" => key(*short_qinv_primes),
}
raise "dP not short" unless keys["short_dp"][:dp].bit_length <= BITS - 52
raise "qInv not short" unless keys["short_qinv"][:qinv].bit_length <= 64

path = File.expand_path("../vectors/ct_keys.txt", __dir__)
File.open(path, "w") do |file|
  file.puts "# Keys of the constant-time test (test/native/make_ct_keys.rb): name n e d p q dP dQ qInv, hex"
  keys.each do |name, k|
    file.puts [name, *%i[n e d p q dp dq qinv].map { |v| k[v].to_s(16) }].join(" ")
  end
end
puts "wrote #{path}"
