// rooftop tokenize: a GGUF's tokenizer on a text: each piece with its id (leading space shown as ␣), and the count.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "engine/model_path.h"
#include "engine/tokenizer.h"

namespace rooftop::cli {
namespace {
// Spaces as ␣, newlines and tabs as \n and \t, so that every piece is visible on one line.
std::string visible(const std::string& piece) {
  std::string s;
  for (char c : piece) {
    if (c == ' ') s += "\u2423";
    else if (c == '\n') s += "\\n";
    else if (c == '\t') s += "\\t";
    else if (c == '\r') s += "\\r";
    else s += c;
  }
  return s;
}
}  // namespace

void register_tokenize(CLI::App& app, Context& ctx) {
  struct Opts {
    std::string gguf, text;
    bool special = false;
    OutputOptions out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("tokenize", "split a text into the model's tokens, with ids and the count\n"
                                             "Example: rooftop tokenize \"The capital of France is\"");
  cmd->add_option("text", o->text, "the text to tokenize")->required();
  add_gguf_option(*cmd, o->gguf);
  cmd->add_flag("--special", o->special, "recognise control tokens such as <|im_start|> written in the text");
  add_output_options(*cmd, o->out, {"table", "json"});
  cmd->callback([&ctx, o] {
    ctx.action = [&ctx, o] {
      std::string path = engine::resolve_model(o->gguf);
      auto tok = engine::Tokenizer::from_gguf(engine::open_gguf(path, false));
      auto ids = tok.encode(o->text, o->special);
      if (o->out.format == "json") {
        nlohmann::json j;
        j["count"] = ids.size();
        j["tokens"] = nlohmann::json::array();
        for (int32_t id : ids) j["tokens"].push_back({{"id", id}, {"piece", tok.piece(id)}});
        emit(ctx, o->out, j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
      } else {
        std::string s = fmt::format("{:>8}  {}\n", "id", "piece");
        for (int32_t id : ids) s += fmt::format("{:>8}  '{}'\n", id, visible(tok.piece(id)));
        s += fmt::format("{} tokens, {} bytes ({:.2f} bytes per token)\n", ids.size(), o->text.size(),
                         ids.empty() ? 0.0 : double(o->text.size()) / double(ids.size()));
        emit(ctx, o->out, s);
      }
      return kExitOk;
    };
  });
}

}  // namespace rooftop::cli
