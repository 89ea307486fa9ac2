// Tokenizer: the hand-written GPT-2 pre-tokenizer against hand-split examples; SmolLM2's vocabulary facts
// from seed 000 (common words one token, " tea" != "tea", one token per digit); the UTF-8 round trip.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "engine/tokenizer.h"
#include "engine/unicode_class.h"
#include "model_file.h"

using namespace rooftop::engine;

namespace {
std::vector<std::string> split(std::string_view s, PreTokenizer k) {
  std::vector<std::string> out;
  for (auto p : pretokenize(s, k)) out.emplace_back(p);
  return out;
}

const Tokenizer& smollm2() {
  static const Tokenizer t = Tokenizer::from_gguf(open_gguf(rooftop::test::smollm2_path(), false));
  return t;
}

// Random valid UTF-8: ASCII, 2-, 3- and 4-byte code points (no surrogates), avoiding what SmolLM2's
// vocabulary cannot hold (six C0 controls, planes 4-11: lead bytes 0xF1 0xF2).
std::string random_utf8(std::mt19937& rng, int n_cp) {
  std::string s;
  for (int i = 0; i < n_cp; ++i) {
    uint32_t cls = rng() % 4, cp;
    if (cls == 0) { do cp = rng() % 0x80; while (cp == 4 || cp == 6 || cp == 0x13 || cp == 0x14 || cp == 0x16 || cp == 0x1D); }
    else if (cls == 1) cp = 0x80 + rng() % (0x800 - 0x80);
    else if (cls == 2) { do cp = 0x800 + rng() % (0x10000 - 0x800); while (cp >= 0xD800 && cp <= 0xDFFF); }
    else cp = rng() % 2 ? 0x10000 + rng() % 0x30000 : 0xC0000 + rng() % 0x50000;  // planes 1-3 and 12-16
    if (cp < 0x80) s += char(cp);
    else if (cp < 0x800) { s += char(0xC0 | (cp >> 6)); s += char(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) { s += char(0xE0 | (cp >> 12)); s += char(0x80 | ((cp >> 6) & 0x3F)); s += char(0x80 | (cp & 0x3F)); }
    else { s += char(0xF0 | (cp >> 18)); s += char(0x80 | ((cp >> 12) & 0x3F)); s += char(0x80 | ((cp >> 6) & 0x3F)); s += char(0x80 | (cp & 0x3F)); }
  }
  return s;
}
}  // namespace

TEST_CASE("unicode classes", "[tokenizer]") {
  CHECK(is_letter('a'));
  CHECK(is_letter(0x00E9));   // é
  CHECK(is_letter(0x4E16));   // 世
  CHECK(is_letter(0x0416));   // Ж
  CHECK_FALSE(is_letter('1'));
  CHECK(is_number(0x0663));   // Arabic-Indic three
  CHECK(is_number(0x00BD));   // ½ (No)
  CHECK_FALSE(is_number(0x1F389));  // 🎉
  CHECK(is_whitespace(0x3000));
  CHECK_FALSE(is_whitespace(0x200B));  // zero width space is not White_Space
  size_t len;
  CHECK(decode_utf8("\xF0\x9F\x8E\x89", 0, len) == 0x1F389);
  CHECK(len == 4);
  CHECK(decode_utf8("\xC0\x80", 0, len) == 0xFFFD);  // overlong
  CHECK(len == 1);
}

TEST_CASE("gpt2 pre-tokenizer splits like the regex", "[tokenizer]") {
  // Worked by hand from 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
  using V = std::vector<std::string>;
  CHECK(split("Hello world", PreTokenizer::gpt2) == V{"Hello", " world"});
  CHECK(split("don't we'll", PreTokenizer::gpt2) == V{"don", "'t", " we", "'ll"});
  CHECK(split("a  b", PreTokenizer::gpt2) == V{"a", " ", " b"});           // \s+(?!\S) leaves the last space
  CHECK(split("a\n\nb", PreTokenizer::gpt2) == V{"a", "\n", "\n", "b"});  // \n is not an optional space
  CHECK(split("x 123 !!?", PreTokenizer::gpt2) == V{"x", " 123", " !!?"});
  CHECK(split("end  ", PreTokenizer::gpt2) == V{"end", "  "});
  CHECK(split("héllo世界 🎉", PreTokenizer::gpt2) == V{"héllo世界", " 🎉"});
  CHECK(split("x 123 !!?", PreTokenizer::smollm) == V{"x", " ", "1", "2", "3", " !!?"});
  CHECK(split("v2.0", PreTokenizer::smollm) == V{"v", "2", ".", "0"});
  CHECK(split("", PreTokenizer::smollm).empty());
  // Pieces always concatenate to the input, invalid UTF-8 included.
  std::string bad = "a\xff\xc3 b\xe2\x82";
  std::string joined;
  for (auto& p : split(bad, PreTokenizer::smollm)) joined += p;
  CHECK(joined == bad);
}

TEST_CASE("llama3 and qwen2 pre-tokenizers split like their regexes", "[tokenizer]") {
  // Expected pieces from Python's `regex` module (2026.5.9) with llama.cpp's LLAMA3 pattern
  // (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
  // and Qwen2's (the same with \p{N}); the two agreed with this code on 60,000 random strings of letters, digits,
  // apostrophes, punctuation, \t \r \n, U+00A0, U+3000, é 世 Ж ٣ ½ 🎉 (stop 55).
  using V = std::vector<std::string>;
  const auto L = PreTokenizer::llama3;
  CHECK(split("Hello world", L) == V{"Hello", " world"});
  CHECK(split("I'LL don't", L) == V{"I", "'LL", " don", "'t"});                 // contractions ignore case
  CHECK(split("12345 apples", L) == V{"123", "45", " apples"});                 // at most 3 digits a piece
  CHECK(split("12345 apples", PreTokenizer::qwen2) == V{"1", "2", "3", "4", "5", " apples"});
  CHECK(split("(hello) ,world", L) == V{"(hello", ")", " ,", "world"});         // one non-letter leads a word
  CHECK(split("a \n\n b", L) == V{"a", " \n\n", " b"});                         // \s*[\r\n]+ takes the line breaks
  CHECK(split("x  \t\n  \ny", L) == V{"x", "  \t\n  \n", "y"});
  CHECK(split("end.\n\nNext", L) == V{"end", ".\n\n", "Next"});                  // punctuation keeps its line breaks
  CHECK(split("\thi  there  ", L) == V{"\thi", " ", " there", "  "});
  CHECK(split("héllo世界 🎉!", L) == V{"héllo世界", " 🎉!"});
  CHECK(split("'quote' 'Re", L) == V{"'quote", "'", " '", "Re"});
  CHECK(split("", L).empty());
  std::string bad = "a\xff\xc3 b\xe2\x82\n1";
  std::string joined;
  for (auto& p : split(bad, L)) joined += p;
  CHECK(joined == bad);
  CHECK(pre_tokenizer_from_name("llama-bpe", "f") == L);
  CHECK(pre_tokenizer_from_name("qwen2", "f") == PreTokenizer::qwen2);
  CHECK_THROWS_WITH(pre_tokenizer_from_name("tekken", "f.gguf"), Catch::Contains("f.gguf") && Catch::Contains("llama-bpe"));
}

TEST_CASE("a Llama 3 vocabulary takes a piece that is a token whole (llama.cpp's ignore_merges)", "[tokenizer][model]") {
  // SmolLM2's vocabulary with its merges removed: byte-level BPE can then only emit single bytes, so a word comes
  // out whole only through the llama3 rule. " world" is one token of that vocabulary (seed 000: common words).
  GgufFile g = open_gguf(rooftop::test::smollm2_path(), false);
  g.metadata.at("tokenizer.ggml.merges").strings.clear();
  const Tokenizer gpt2 = Tokenizer::from_gguf(g);
  CHECK(gpt2.encode(" world").size() == 6);  // its bytes
  g.metadata.at("tokenizer.ggml.pre").s = "llama-bpe";
  const Tokenizer llama3 = Tokenizer::from_gguf(g);
  const auto ids = llama3.encode(" world");
  REQUIRE(ids.size() == 1);
  CHECK(ids == smollm2().encode(" world"));
  CHECK(llama3.decode(llama3.encode("Hello, world! 12345")) == "Hello, world! 12345");
  // Without tokenizer.ggml.add_bos_token, a Llama 3 vocabulary starts prompts with BOS (llama.cpp's default for
  // the LLAMA3 pre-type); other byte-level vocabularies do not.
  g.metadata.erase("tokenizer.ggml.add_bos_token");
  CHECK(Tokenizer::from_gguf(g).add_bos());
  g.metadata.at("tokenizer.ggml.pre").s = "smollm";
  CHECK_FALSE(Tokenizer::from_gguf(g).add_bos());
}

TEST_CASE("a vocabulary with Llama 3's header tokens gets Llama 3's chat template and stops at <|eot_id|>",
          "[tokenizer][model]") {
  // SmolLM2's vocabulary with Llama 3's three control tokens appended (token type 3): the template is llama.cpp's
  // LLM_CHAT_TEMPLATE_LLAMA_3, written out here by hand.
  GgufFile g = open_gguf(rooftop::test::smollm2_path(), false);
  auto& tokens = g.metadata.at("tokenizer.ggml.tokens").strings;
  auto& types = g.metadata.at("tokenizer.ggml.token_type").ints;
  const int32_t first = int32_t(tokens.size());
  for (const char* s : {"<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"}) {
    tokens.emplace_back(s);
    types.push_back(3);
  }
  g.metadata.at("tokenizer.ggml.pre").s = "llama-bpe";
  const Tokenizer t = Tokenizer::from_gguf(g);
  REQUIRE(t.llama3_turns());
  CHECK(t.chat_prompt("Hi") == "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
                               "<|start_header_id|>assistant<|end_header_id|>\n\n");
  CHECK(t.chat_prompt("Hi", "Be brief.") == "<|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
                                            "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
                                            "<|start_header_id|>assistant<|end_header_id|>\n\n");
  const auto& stops = t.stop_ids();
  CHECK(std::find(stops.begin(), stops.end(), first + 2) != stops.end());  // <|eot_id|>
  const auto ids = t.encode(t.chat_prompt("Hi"), true);
  CHECK(ids.front() == first);  // the header is one control token, not its bytes
  // A ChatML vocabulary that is not SmolLM2's (Qwen) gets no SmolLM system turn by default.
  g = open_gguf(rooftop::test::smollm2_path(), false);
  g.metadata.at("tokenizer.ggml.pre").s = "qwen2";
  CHECK(Tokenizer::from_gguf(g).chat_prompt("Hi") == "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  CHECK(smollm2().chat_prompt("Hi").find("SmolLM") != std::string::npos);
}

TEST_CASE("SmolLM2 tokenizer facts from seed 000", "[tokenizer][model]") {
  const Tokenizer& t = smollm2();
  CHECK(t.vocab_size() == 49152);
  // "A leading space is part of the token, which is why " tea" and "tea" are different entries."
  auto tea_space = t.encode(" tea"), tea = t.encode("tea");
  REQUIRE(tea_space.size() == 1);
  CHECK(tea != tea_space);
  CHECK(t.piece(tea_space[0]) == " tea");
  // "Common words are usually one token."
  for (const char* w : {"The", " capital", " of", " France", " is", " the", " house", " water"}) {
    INFO(w);
    CHECK(t.encode(w).size() == 1);
  }
  CHECK(t.encode("The capital of France is").size() == 5);
  // "a number that costs one token per digit"
  auto num = t.encode("1234567890");
  CHECK(num.size() == 10);
  CHECK(t.encode(" 2024").size() == 5);  // " " then one token per digit
  // A long rare word splits into several.
  CHECK(t.encode("antidisestablishmentarianism").size() > 1);
}

TEST_CASE("SmolLM2 special tokens and chat prompt", "[tokenizer][model]") {
  const Tokenizer& t = smollm2();
  auto im_start = t.find_token("<|im_start|>");
  auto im_end = t.find_token("<|im_end|>");
  REQUIRE(im_start);
  REQUIRE(im_end);
  CHECK(t.is_control(*im_start));
  auto ids = t.encode("<|im_start|>user\nhi<|im_end|>", true);
  CHECK(ids.front() == *im_start);
  CHECK(ids.back() == *im_end);
  CHECK(t.encode("<|im_start|>", false).size() > 1);  // plain text when not parsing specials
  std::string chat = Tokenizer::chatml_prompt("What is the capital of France?");
  CHECK(chat == "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
                "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n");
  auto chat_ids = t.encode(chat, true);
  CHECK(t.decode(chat_ids) == chat);
  CHECK(std::count(chat_ids.begin(), chat_ids.end(), *im_start) == 3);
  // A conversation: turns in order, assistant turns under their own role; no system turn when it is empty.
  const Tokenizer::ChatTurn turns[3] = {{false, "Hi"}, {true, "Hello!"}, {false, "Name a colour."}};
  CHECK(Tokenizer::chatml_prompt(turns, "") ==
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nName a colour.<|im_end|>\n"
        "<|im_start|>assistant\n");
  CHECK(t.chat_prompt(turns, "Be brief.") == "<|im_start|>system\nBe brief.<|im_end|>\n" + Tokenizer::chatml_prompt(turns, ""));
  CHECK(std::find(t.stop_ids().begin(), t.stop_ids().end(), *im_end) != t.stop_ids().end());
}

TEST_CASE("SmolLM2 round trip on random UTF-8", "[tokenizer][model]") {
  const Tokenizer& t = smollm2();
  std::mt19937 rng(1234);
  int tested = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::string s = random_utf8(rng, 1 + int(rng() % 40));
    // Skip texts with bytes the vocabulary cannot hold (six C0 controls, planes 4-11): they are dropped.
    bool ok = true;
    for (unsigned char c : s) ok = ok && t.byte_has_token(c);
    if (!ok) continue;
    ++tested;
    INFO("text bytes: " << s.size());
    CHECK(t.decode(t.encode(s)) == s);
    CHECK(t.decode(t.encode(s, true)) == s);
  }
  CHECK(tested == 400);
  std::string english = "It's 3:45pm — the café's “naïve” résumé costs €12.50!\n\tTabs,   spaces and\r\nnewlines.";
  CHECK(t.decode(t.encode(english)) == english);
  CHECK(t.encode("a\x04" "b").size() == 2);  // 0x04 has no token: dropped, as llama.cpp does
}
