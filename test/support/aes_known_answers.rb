# frozen_string_literal: true

# Published AES known answers, typed in from the documents (hex, as printed
# there), for test/cipher/aes_test.rb:
#
# - NIST SP 800-38A, "Recommendation for Block Cipher Modes of Operation"
#   (2001), appendix F: F.2.1-F.2.6 (CBC-AES128/192/256, no padding) and
#   F.5.1-F.5.6 (CTR-AES128/192/256). Four blocks of plaintext each; the
#   decryption examples (F.2.2, F.5.2, ...) are the same values backwards.
#   A work of the US government: public domain.
# - David A. McGrew and John Viega, "The Galois/Counter Mode of Operation
#   (GCM)" (submission to NIST, revised 2005), appendix B, test cases 1-18
#   (AES-128: 1-6, AES-192: 7-12, AES-256: 13-18), 128-bit tags; cases 5,
#   11 and 17 have 8-byte IVs, 6, 12 and 18 60-byte ones. The same values
#   are in NIST's GCM validation material.
module AesKnownAnswers
  SP800_38A_PLAINTEXT = "6bc1bee22e409f96e93d7e117393172a" "ae2d8a571e03ac9c9eb76fac45af8e51" \
                        "30c81c46a35ce411e5fbc1191a0a52ef" "f69f2445df4f9b17ad2b417be66c3710"
  SP800_38A_KEYS = {
    128 => "2b7e151628aed2a6abf7158809cf4f3c",
    192 => "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
    256 => "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
  }.freeze
  # [mode, bits, IV or initial counter block, ciphertext]
  SP800_38A = [
    ["cbc", 128, "000102030405060708090a0b0c0d0e0f",
     "7649abac8119b246cee98e9b12e9197d" "5086cb9b507219ee95db113a917678b2" \
     "73bed6b8e3c1743b7116e69e22229516" "3ff1caa1681fac09120eca307586e1a7"],
    ["cbc", 192, "000102030405060708090a0b0c0d0e0f",
     "4f021db243bc633d7178183a9fa071e8" "b4d9ada9ad7dedf4e5e738763f69145a" \
     "571b242012fb7ae07fa9baac3df102e0" "08b0e27988598881d920a9e64f5615cd"],
    ["cbc", 256, "000102030405060708090a0b0c0d0e0f",
     "f58c4c04d6e5f1ba779eabfb5f7bfbd6" "9cfc4e967edb808d679f777bc6702c7d" \
     "39f23369a9d9bacfa530e26304231461" "b2eb05e2c39be9fcda6c19078c6a9d1b"],
    ["ctr", 128, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
     "874d6191b620e3261bef6864990db6ce" "9806f66b7970fdff8617187bb9fffdff" \
     "5ae4df3edbd5d35e5b4f09020db03eab" "1e031dda2fbe03d1792170a0f3009cee"],
    ["ctr", 192, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
     "1abc932417521ca24f2b0459fe7e6e0b" "090339ec0aa6faefd5ccc2c6f4ce8e94" \
     "1e36b26bd1ebc670d1bd1d665620abf7" "4f78a7f6d29809585a97daec58c6b050"],
    ["ctr", 256, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
     "601ec313775789a5b7a7f504bbf3d228" "f443e3ca4d62b59aca84e990cacaf5c5" \
     "2b0930daa23de94ce87017ba2d84988d" "dfc9c58db67aada613c2dd08457941a6"],
  ].freeze

  GCM_KEY = "feffe9928665731c6d6a8f9467308308"
  GCM_PLAINTEXT = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72" \
                  "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
  GCM_AAD = "feedfacedeadbeeffeedfacedeadbeefabaddad2"
  GCM_IV = "cafebabefacedbaddecaf888"
  GCM_IV_8 = "cafebabefacedbad"
  GCM_IV_60 = "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728" \
              "c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b"
  # McGrew-Viega test cases: [case, key, IV, plaintext, AAD, ciphertext, tag].
  GCM = [
    [1, "00" * 16, "00" * 12, "", "", "", "58e2fccefa7e3061367f1d57a4e7455a"],
    [2, "00" * 16, "00" * 12, "00" * 16, "", "0388dace60b6a392f328c2b971b2fe78", "ab6e47d42cec13bdf53a67b21257bddf"],
    [3, GCM_KEY, GCM_IV, GCM_PLAINTEXT, "",
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e" \
     "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985", "4d5c2af327cd64a62cf35abd2ba6fab4"],
    [4, GCM_KEY, GCM_IV, GCM_PLAINTEXT[0, 120], GCM_AAD,
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e" \
     "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091", "5bc94fbc3221a5db94fae95ae7121a47"],
    [5, GCM_KEY, GCM_IV_8, GCM_PLAINTEXT[0, 120], GCM_AAD,
     "61353b4c2806934a777ff51fa22a4755699b2a714fcdc6f83766e5f97b6c7423" \
     "73806900e49f24b22b097544d4896b424989b5e1ebac0f07c23f4598", "3612d2e79e3b0785561be14aaca2fccb"],
    [6, GCM_KEY, GCM_IV_60, GCM_PLAINTEXT[0, 120], GCM_AAD,
     "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca7" \
     "01e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5", "619cc5aefffe0bfa462af43c1699d050"],
    [7, "00" * 24, "00" * 12, "", "", "", "cd33b28ac773f74ba00ed1f312572435"],
    [8, "00" * 24, "00" * 12, "00" * 16, "", "98e7247c07f0fe411c267e4384b0f600", "2ff58d80033927ab8ef4d4587514f0fb"],
    [9, GCM_KEY + GCM_KEY[0, 16], GCM_IV, GCM_PLAINTEXT, "",
     "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c" \
     "7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710acade256", "9924a7c8587336bfb118024db8674a14"],
    [10, GCM_KEY + GCM_KEY[0, 16], GCM_IV, GCM_PLAINTEXT[0, 120], GCM_AAD,
     "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c" \
     "7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710", "2519498e80f1478f37ba55bd6d27618c"],
    [11, GCM_KEY + GCM_KEY[0, 16], GCM_IV_8, GCM_PLAINTEXT[0, 120], GCM_AAD,
     "0f10f599ae14a154ed24b36e25324db8c566632ef2bbb34f8347280fc4507057" \
     "fddc29df9a471f75c66541d4d4dad1c9e93a19a58e8b473fa0f062f7", "65dcc57fcf623a24094fcca40d3533f8"],
    [12, GCM_KEY + GCM_KEY[0, 16], GCM_IV_60, GCM_PLAINTEXT[0, 120], GCM_AAD,
     "d27e88681ce3243c4830165a8fdcf9ff1de9a1d8e6b447ef6ef7b79828666e45" \
     "81e79012af34ddd9e2f037589b292db3e67c036745fa22e7e9b7373b", "dcf566ff291c25bbb8568fc3d376a6d9"],
    [13, "00" * 32, "00" * 12, "", "", "", "530f8afbc74536b9a963b4f1c4cb738b"],
    [14, "00" * 32, "00" * 12, "00" * 16, "", "cea7403d4d606b6e074ec5d3baf39d18", "d0d1c8a799996bf0265b98b5d48ab919"],
    [15, GCM_KEY * 2, GCM_IV, GCM_PLAINTEXT, "",
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa" \
     "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad", "b094dac5d93471bdec1a502270e3cc6c"],
    [16, GCM_KEY * 2, GCM_IV, GCM_PLAINTEXT[0, 120], GCM_AAD,
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa" \
     "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662", "76fc6ece0f4e1768cddf8853bb2d551b"],
    [17, GCM_KEY * 2, GCM_IV_8, GCM_PLAINTEXT[0, 120], GCM_AAD,
     "c3762df1ca787d32ae47c13bf19844cbaf1ae14d0b976afac52ff7d79bba9de0" \
     "feb582d33934a4f0954cc2363bc73f7862ac430e64abe499f47c9b1f", "3a337dbf46a792c45e454913fe2ea8f2"],
    [18, GCM_KEY * 2, GCM_IV_60, GCM_PLAINTEXT[0, 120], GCM_AAD,
     "5a8def2f0c9e53f1f75d7853659e2a20eeb2b22aafde6419a058ab4f6f746bf4" \
     "0fc0c3b780f244452da3ebf1c5d82cdea2418997200ef82e44ae7e3f", "a44a8266ee1c8eb0c8b5d4cf5ae9f19a"],
  ].freeze
end
