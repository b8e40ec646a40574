//===- Builder.cpp - ANTLR parse tree to typed syntax tree ----------------===//
//
// Part of phasec, the .sched language front end.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// parseAndCheck(): lexes and parses the main buffer with the ANTLR-generated
/// parser, reports syntax errors through the DiagnosticEngine, walks the
/// parse-tree contexts into the typed syntax tree of Syntax.h and hands it to
/// Sema. This is the only file that sees ANTLR, and therefore exceptions: all
/// of them are caught here.
///
/// Resource limits are enforced before parsing: the file size, the bracket
/// nesting depth and the number of operators per statement, because ANTLR's
/// recursive-descent parser (and the tree walk) would otherwise recurse as
/// deep as the input nests and overflow the stack.
///
//===----------------------------------------------------------------------===//

#include "Sema.h"
#include "Syntax.h"
#include "phasec/Lang/Parser.h"

#include "SchedLexer.h"
#include "SchedParser.h"
#include "antlr4-runtime.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

#include <cmath>
#include <exception>

using namespace phasec::lang;
using namespace phasec::lang::syntax;
using phasec_antlr::SchedLexer;
using phasec_antlr::SchedParser;

namespace {

/// Makes a message printable: ANTLR quotes offending text verbatim, which may
/// hold control bytes.
std::string printable(llvm::StringRef s) {
  std::string out;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? c : '?';
    if (out.size() > 200) {
      out += "...";
      break;
    }
  }
  return out;
}

/// Thrown by the error listener to stop parsing once the error limit is hit.
struct StopParsing {};

/// Collects the lexer's and the parser's errors. The lexer runs over the
/// whole file before the parser starts, so the errors are buffered and
/// printed in source order by flush().
class DiagErrorListener : public antlr4::BaseErrorListener {
public:
  DiagErrorListener(DiagnosticEngine &diag, const char *bufStart,
                    size_t bufSize, unsigned bufferId)
      : diag(diag), bufStart(bufStart), bufSize(bufSize), bufferId(bufferId) {}

  void syntaxError(antlr4::Recognizer *recognizer,
                   antlr4::Token *offendingSymbol, size_t line,
                   size_t charPositionInLine, const std::string &msg,
                   std::exception_ptr) override {
    llvm::SMLoc loc;
    if (offendingSymbol && offendingSymbol->getStartIndex() <= bufSize)
      loc = llvm::SMLoc::getFromPointer(bufStart +
                                        offendingSymbol->getStartIndex());
    else
      loc = diag.sourceMgr().FindLocForLineAndColumn(
          bufferId, static_cast<unsigned>(line),
          static_cast<unsigned>(charPositionInLine) + 1);
    std::string text = msg;
    llvm::StringRef ref(text);
    if (ref.consume_front("token recognition error at: ")) {
      const char *p = loc.getPointer();
      unsigned char byte =
          p && p >= bufStart && p < bufStart + bufSize ? *p : 0;
      if (byte >= 0x7f || (byte < 0x20 && !llvm::isSpace(byte))) {
        // One error per run of bytes outside the language (a UTF-8 sequence
        // is several bytes).
        // (lastBadByte starts null: null + 1 is undefined, UBSan says.)
        if (lastBadByte && p == lastBadByte + 1) {
          lastBadByte = p;
          return;
        }
        lastBadByte = p;
        text = "invalid byte 0x" + llvm::utohexstr(byte, /*LowerCase=*/true) +
               " (only ASCII is allowed outside comments and strings)";
      } else {
        text = "invalid character " + ref.str();
      }
    }
    errors.emplace_back(loc, "syntax error: " + printable(text));
    if (diag.errorLimit() && errors.size() >= diag.errorLimit())
      throw StopParsing();
  }

  /// Prints the collected errors in source order.
  void flush() {
    std::stable_sort(errors.begin(), errors.end(),
                     [](const auto &a, const auto &b) {
                       return a.first.getPointer() < b.first.getPointer();
                     });
    for (auto &[loc, msg] : errors)
      diag.error(loc, msg);
    errors.clear();
  }

  size_t count() const { return errors.size(); }

private:
  DiagnosticEngine &diag;
  const char *bufStart;
  size_t bufSize;
  unsigned bufferId;
  const char *lastBadByte = nullptr;
  std::vector<std::pair<llvm::SMLoc, std::string>> errors;
};

/// Walks ANTLR's parse-tree contexts into the syntax tree. Runs only on a
/// tree without syntax errors, but still checks every child for null so that
/// a parser quirk can never crash it.
class Builder {
public:
  Builder(DiagnosticEngine &diag, const char *bufStart, size_t bufSize)
      : diag(diag), bufStart(bufStart), bufSize(bufSize) {}

  bool failed = false;

  llvm::SMLoc loc(antlr4::Token *tok) {
    if (!tok || tok->getStartIndex() > bufSize)
      return llvm::SMLoc::getFromPointer(bufStart);
    return llvm::SMLoc::getFromPointer(bufStart + tok->getStartIndex());
  }
  llvm::SMLoc loc(antlr4::ParserRuleContext *ctx) {
    return ctx ? loc(ctx->getStart()) : llvm::SMLoc::getFromPointer(bufStart);
  }
  llvm::SMLoc loc(antlr4::tree::TerminalNode *node) {
    return node ? loc(node->getSymbol())
                : llvm::SMLoc::getFromPointer(bufStart);
  }
  static std::string text(antlr4::Token *tok) {
    return tok ? tok->getText() : std::string();
  }
  static std::string text(antlr4::tree::TerminalNode *node) {
    return node ? node->getText() : std::string();
  }
  /// A token's text and where it stands: most declaration fields keep both.
  template <typename Node>
  void take(Node *node, std::string &out, llvm::SMLoc &at) {
    out = text(node);
    at = loc(node);
  }

  void build(SchedParser::FileContext *file, Module &module) {
    for (SchedParser::ItemContext *item : file->item()) {
      if (!item)
        continue;
      if (auto *c = item->constDecl()) {
        ConstDecl d;
        take(c->ID(), d.name, d.loc);
        d.value = value(c->value());
        module.constants.push_back(std::move(d));
      } else if (auto *m = item->machineDecl()) {
        MachineDecl d;
        take(m->ID(), d.name, d.loc);
        for (auto *p : m->property())
          d.props.push_back(property(p));
        module.machines.push_back(std::move(d));
      } else if (auto *g = item->groupDecl()) {
        module.groups.push_back(group(g));
      } else if (auto *a = item->arrayDecl()) {
        module.arrays.push_back(array(a));
      } else if (auto *o = item->opDecl()) {
        module.ops.push_back(op(o));
      } else if (auto *pb = item->papersDecl()) {
        Target on = target(pb->target());
        for (auto *o : pb->opDecl()) {
          if (!o)
            continue;
          OpDecl d = op(o);
          d.inPapers = true;
          d.papersOn = on;
          module.ops.push_back(std::move(d));
        }
      }
    }
  }

private:
  DiagnosticEngine &diag;
  const char *bufStart;
  size_t bufSize;

  Property property(SchedParser::PropertyContext *p) {
    Property prop;
    if (!p)
      return prop;
    prop.key = text(p->key);
    prop.sub = text(p->sub);
    prop.loc = loc(p->key);
    prop.value = value(p->value());
    return prop;
  }

  Value value(SchedParser::ValueContext *v) {
    Value val;
    if (!v)
      return val;
    val.loc = loc(v);
    val.expr = expr(v->expr());
    if (auto *u = v->unit()) {
      val.unitLoc = loc(u);
      val.unit = text(u->num);
      if (u->den)
        val.unit += "/" + text(u->den);
    }
    return val;
  }

  Target target(SchedParser::TargetContext *t) {
    Target tgt;
    if (!t)
      return tgt;
    tgt.present = true;
    tgt.first = text(t->first);
    tgt.second = text(t->second);
    tgt.loc = loc(t);
    return tgt;
  }

  GroupDecl group(SchedParser::GroupDeclContext *g) {
    GroupDecl d;
    take(g->ID(0), d.name, d.loc);
    if (g->machine) {
      take(g->machine, d.machine, d.machineLoc);
    }
    auto *set = g->groupSet();
    if (!set)
      return d;
    take(set->kind, d.setKind, d.setKindLoc);
    if (auto *list = set->exprList()) {
      d.hasList = true;
      for (auto *e : list->expr())
        d.list.push_back(expr(e));
    } else {
      // `nodes { }`: an empty explicit list.
      for (antlr4::tree::ParseTree *child : set->children)
        if (auto *term = dynamic_cast<antlr4::tree::TerminalNode *>(child))
          if (term->getText() == "{")
            d.hasList = true;
    }
    if (set->lo) {
      d.hasRange = true;
      d.lo = expr(set->lo);
      d.hi = expr(set->hi);
      if (set->step)
        d.step = expr(set->step);
    }
    if (set->cond)
      d.where = expr(set->cond);
    return d;
  }

  ArrayDecl array(SchedParser::ArrayDeclContext *a) {
    ArrayDecl d;
    take(a->name, d.name, d.loc);
    take(a->type, d.type, d.typeLoc);
    if (auto *list = a->exprList())
      for (auto *e : list->expr())
        d.shape.push_back(expr(e));
    take(a->dist, d.dist, d.distLoc);
    d.over = target(a->target());
    return d;
  }

  OpDecl op(SchedParser::OpDeclContext *o) {
    OpDecl d;
    take(o->kind, d.kind, d.kindLoc);
    take(o->name, d.name, d.loc);
    d.on = target(o->target());
    for (auto *item : o->opItem()) {
      if (!item)
        continue;
      if (auto *p = item->property()) {
        d.props.push_back(property(p));
      } else if (auto *s = item->scheduleBlock()) {
        if (d.hasSchedule) {
          diag.error(loc(s), "operation '" + d.name +
                                 "' has more than one schedule block");
          failed = true;
          continue;
        }
        d.hasSchedule = true;
        d.scheduleLoc = loc(s);
        d.schedule = block(s->block());
      }
    }
    return d;
  }

  StmtList block(SchedParser::BlockContext *b) {
    StmtList out;
    if (!b)
      return out;
    for (auto *s : b->stmt())
      if (StmtPtr st = stmt(s))
        out.push_back(std::move(st));
    return out;
  }

  /// Null (and `failed`) for a statement the grammar does not have.
  StmtPtr stmt(SchedParser::StmtContext *s) {
    if (!s)
      return nullptr;
    llvm::SMLoc at = loc(s);
    // Children are built in source order, one statement each, so that the
    // builder's errors come out in that order (the evaluation order of
    // function arguments is unspecified).
    if (auto *f = dynamic_cast<SchedParser::ForStmtContext *>(s)) {
      ExprPtr lo = expr(f->lo);
      ExprPtr hi = expr(f->hi);
      ExprPtr step = f->step ? expr(f->step) : nullptr;
      StmtList body = block(f->block());
      return std::make_unique<ForStmt>(at, text(f->var), std::move(lo),
                                       std::move(hi), std::move(step),
                                       std::move(body));
    }
    if (auto *p = dynamic_cast<SchedParser::PhaseStmtContext *>(s))
      return std::make_unique<PhaseStmt>(at, block(p->block()));
    if (auto *snd = dynamic_cast<SchedParser::SendStmtContext *>(s)) {
      ExprPtr src = expr(snd->src);
      ExprPtr dst = expr(snd->dst);
      std::optional<Value> bytes;
      if (auto *v = snd->value())
        bytes = value(v);
      std::optional<ChunkSet> chunks;
      llvm::SMLoc reduceLoc;
      bool clausesOk = true;
      for (auto *clause : snd->sendClause())
        clausesOk &= sendClause(clause, chunks, reduceLoc);
      if (reduceLoc.isValid() && !chunks) {
        diag.error(reduceLoc, "'reduce' needs 'chunks': say which chunks the "
                              "send combines ('send A -> B chunks IDS "
                              "reduce;')");
        clausesOk = false;
      }
      // A send whose clauses are wrong is skipped by Sema (an error
      // expression evaluates silently to nothing): no follow-up errors.
      if (!clausesOk)
        src = missing(at);
      return std::make_unique<SendStmt>(at, std::move(src), std::move(dst),
                                        std::move(bytes), std::move(chunks),
                                        reduceLoc);
    }
    if (auto *i = dynamic_cast<SchedParser::IfStmtContext *>(s)) {
      ExprPtr cond = expr(i->cond);
      StmtList thenBody = block(i->then);
      StmtList elseBody;
      if (i->elseBlock)
        elseBody = block(i->elseBlock);
      else if (StmtPtr elseIf = i->elseIf ? stmt(i->elseIf) : nullptr)
        elseBody.push_back(std::move(elseIf));
      return std::make_unique<IfStmt>(at, std::move(cond), std::move(thenBody),
                                      std::move(elseBody));
    }
    if (auto *l = dynamic_cast<SchedParser::LetStmtContext *>(s))
      return std::make_unique<LetStmt>(at, text(l->var), expr(l->expr()));
    failed = true;
    return nullptr;
  }

  /// One `chunks IDS` or `reduce` clause of a send; false after an error.
  bool sendClause(SchedParser::SendClauseContext *c,
                  std::optional<ChunkSet> &chunks, llvm::SMLoc &reduceLoc) {
    llvm::SMLoc at = loc(c);
    std::string word = text(c->word);
    auto *set = c->chunkSet();
    auto fail = [&](const llvm::Twine &msg) {
      diag.error(at, msg);
      return false;
    };
    // A second `reduce` parses as the first one's chunk ids (`reduce
    // reduce`), so "takes no chunk ids" covers duplicates too.
    if (word == "reduce") {
      if (set)
        return fail("'reduce' takes no chunk ids");
      reduceLoc = at;
      return true;
    }
    if (word != "chunks")
      return fail("unknown send clause '" + word +
                  "' (expected 'chunks IDS' or 'reduce')");
    if (chunks)
      return fail("duplicate 'chunks'");
    if (!set)
      return fail("'chunks' needs chunk ids: 'chunks C', 'chunks LO .. HI' "
                  "or 'chunks { C, ... }'");
    ChunkSet out;
    out.loc = loc(set);
    if (auto *list = set->exprList()) {
      for (auto *e : list->expr())
        out.ids.push_back(expr(e));
    } else if (set->hi) {
      out.lo = expr(set->lo);
      out.hi = expr(set->hi);
    } else {
      out.ids.push_back(expr(set->lo));
    }
    chunks = std::move(out);
    return true;
  }

  ExprPtr error(llvm::SMLoc at, const llvm::Twine &msg) {
    diag.error(at, msg);
    failed = true;
    return std::make_unique<ErrorExpr>(at);
  }

  /// A missing or unknown child: the tree is discarded (`failed`), and Sema,
  /// which still runs to report what it can, skips the node silently.
  ExprPtr missing(llvm::SMLoc at) {
    failed = true;
    return std::make_unique<ErrorExpr>(at);
  }

  ExprPtr expr(SchedParser::ExprContext *ctx) {
    if (!ctx)
      return missing(loc(ctx));
    if (auto *p = dynamic_cast<SchedParser::PrimaryExprContext *>(ctx))
      return primary(p->primary());
    if (auto *u = dynamic_cast<SchedParser::UnaryExprContext *>(ctx))
      return std::make_unique<UnaryExpr>(loc(u->op), text(u->op),
                                         expr(u->expr()));
    if (auto *b = dynamic_cast<SchedParser::BinaryExprContext *>(ctx)) {
      // In source order, as for statements.
      ExprPtr lhs = expr(b->expr(0));
      ExprPtr rhs = expr(b->expr(1));
      return std::make_unique<BinaryExpr>(loc(b->op), text(b->op),
                                          std::move(lhs), std::move(rhs));
    }
    return missing(loc(ctx));
  }

  ExprPtr primary(SchedParser::PrimaryContext *ctx) {
    llvm::SMLoc at = loc(ctx);
    if (!ctx)
      return missing(at);
    if (auto *i = dynamic_cast<SchedParser::IntPrimaryContext *>(ctx)) {
      std::string s = text(i->INT());
      llvm::StringRef ref(s);
      uint64_t v = 0;
      bool bad = ref.starts_with_insensitive("0x")
                     ? ref.drop_front(2).getAsInteger(16, v)
                     : ref.getAsInteger(10, v);
      if (bad || v > static_cast<uint64_t>(INT64_MAX))
        return error(at, "integer literal '" + printable(s) +
                             "' does not fit in 64 bits");
      return std::make_unique<IntExpr>(at, static_cast<int64_t>(v));
    }
    if (auto *f = dynamic_cast<SchedParser::FloatPrimaryContext *>(ctx)) {
      std::string s = text(f->FLOAT());
      double v = 0;
      if (llvm::StringRef(s).getAsDouble(v) || !std::isfinite(v))
        return error(at, "bad number '" + printable(s) + "'");
      return std::make_unique<FloatExpr>(at, v);
    }
    if (auto *s = dynamic_cast<SchedParser::StringPrimaryContext *>(ctx)) {
      // Take the bytes from the original buffer (the parser saw a sanitized
      // ASCII copy), dropping the quotes and resolving \" and \\.
      std::string value;
      antlr4::Token *tok = s->STRING() ? s->STRING()->getSymbol() : nullptr;
      if (tok && tok->getStopIndex() < bufSize &&
          tok->getStartIndex() + 1 <= tok->getStopIndex()) {
        llvm::StringRef raw(bufStart + tok->getStartIndex() + 1,
                            tok->getStopIndex() - tok->getStartIndex() - 1);
        for (size_t k = 0; k < raw.size(); ++k) {
          if (raw[k] == '\\' && k + 1 < raw.size())
            ++k;
          value += raw[k];
        }
      }
      return std::make_unique<StringExpr>(at, std::move(value));
    }
    if (auto *c = dynamic_cast<SchedParser::CallPrimaryContext *>(ctx)) {
      std::vector<ExprPtr> args;
      if (auto *list = c->exprList())
        for (auto *a : list->expr())
          args.push_back(expr(a));
      return std::make_unique<CallExpr>(at, text(c->ID()), std::move(args));
    }
    if (auto *id = dynamic_cast<SchedParser::IdentPrimaryContext *>(ctx))
      return std::make_unique<IdentExpr>(at, text(id->ID()));
    if (auto *p = dynamic_cast<SchedParser::ParenPrimaryContext *>(ctx))
      return expr(p->expr());
    return missing(at);
  }
};

/// Rejects inputs whose nesting would make the recursive parser, the tree
/// walk or Sema recurse too deeply. Works on the token stream, before
/// parsing.
bool checkNesting(antlr4::CommonTokenStream &tokens,
                  const FrontendOptions &opts, DiagnosticEngine &diag,
                  const char *bufStart, size_t bufSize) {
  unsigned depth = 0;
  unsigned opsInStatement = 0;
  const unsigned maxOps = 4 * std::max(opts.maxNesting, 1u);
  // `else if` nests too: the grammar's else branch is a statement, so a
  // chain of n `else if`s is n levels deep in the parse tree and in Sema,
  // while its brackets close at once. chain[d] counts the `else if`s of the
  // chain open at bracket depth d; `chained` is their sum over depths.
  std::vector<unsigned> chain(1, 0);
  unsigned chained = 0;
  const std::vector<antlr4::Token *> &all = tokens.getTokens();
  for (size_t i = 0; i < all.size(); ++i) {
    antlr4::Token *tok = all[i];
    std::string t = tok->getText();
    if (tok->getType() == antlr4::Token::EOF)
      break;
    auto at = [&] {
      return llvm::SMLoc::getFromPointer(
          bufStart + std::min<size_t>(tok->getStartIndex(), bufSize));
    };
    auto tooDeep = [&] {
      diag.error(at(), "nesting deeper than " + llvm::Twine(opts.maxNesting) +
                           " levels (brackets and 'else if's) is not "
                           "supported");
      return false;
    };
    if (t == "if" && tok->getType() != SchedLexer::STRING && i > 0 &&
        all[i - 1]->getText() == "else") {
      ++chain[depth];
      if (depth + ++chained > opts.maxNesting)
        return tooDeep();
    }
    if (t == "}" && depth && chain.size() > depth - 1 && chain[depth - 1] &&
        (i + 1 >= all.size() || all[i + 1]->getText() != "else")) {
      // The chain at the depth this bracket returns to ends here.
      chained -= chain[depth - 1];
      chain[depth - 1] = 0;
    }
    if (t == "(" || t == "[" || t == "{") {
      if (++depth + chained > opts.maxNesting)
        return tooDeep();
      if (chain.size() <= depth)
        chain.resize(depth + 1, 0);
      if (t == "{")
        opsInStatement = 0;
    } else if (t == ")" || t == "]" || t == "}") {
      if (depth)
        --depth;
      if (t == "}")
        opsInStatement = 0;
    } else if (t == ";") {
      opsInStatement = 0;
    } else if (tok->getType() != SchedLexer::ID &&
               tok->getType() != SchedLexer::INT &&
               tok->getType() != SchedLexer::FLOAT &&
               tok->getType() != SchedLexer::STRING && t != "," && t != "." &&
               t != "=" && t != ":" && t != "..") {
      if (++opsInStatement > maxOps) {
        diag.error(at(), "expression with more than " + llvm::Twine(maxOps) +
                             " operators is not supported");
        return false;
      }
    }
  }
  return true;
}

} // namespace

std::unique_ptr<Program>
phasec::lang::parseAndCheck(llvm::SourceMgr &sm, const FrontendOptions &opts,
                            DiagnosticEngine &diag) {
  unsigned bufferId = sm.getMainFileID();
  const llvm::MemoryBuffer *buffer = sm.getMemoryBuffer(bufferId);
  llvm::StringRef src = buffer->getBuffer();
  const char *bufStart = src.data();
  if (src.size() > opts.maxFileBytes) {
    diag.error(llvm::SMLoc::getFromPointer(bufStart),
               "input of " + llvm::Twine(src.size()) +
                   " bytes exceeds the limit of " +
                   llvm::Twine(opts.maxFileBytes) + " bytes");
    return nullptr;
  }

  // The language is ASCII. Give ANTLR a copy in which every other byte is
  // DEL (an invalid character outside comments and strings), so that ANTLR's
  // code-point indices are byte offsets into the original buffer and invalid
  // UTF-8 cannot make its UTF-8 decoder throw.
  std::string ascii(src.begin(), src.end());
  for (char &c : ascii)
    if (static_cast<unsigned char>(c) >= 0x80)
      c = 0x7f;

  Module module;
  bool ok = true;
  try {
    antlr4::ANTLRInputStream input(ascii);
    SchedLexer lexer(&input);
    DiagErrorListener listener(diag, bufStart, src.size(), bufferId);
    lexer.removeErrorListeners();
    lexer.addErrorListener(&listener);
    antlr4::CommonTokenStream tokens(&lexer);
    try {
      tokens.fill();
    } catch (const StopParsing &) {
      listener.flush();
      return nullptr;
    }
    if (!checkNesting(tokens, opts, diag, bufStart, src.size())) {
      listener.flush();
      return nullptr;
    }
    SchedParser parser(&tokens);
    parser.removeErrorListeners();
    parser.addErrorListener(&listener);
    SchedParser::FileContext *tree = nullptr;
    try {
      tree = parser.file();
    } catch (const StopParsing &) {
      listener.flush();
      return nullptr;
    }
    if (listener.count() || diag.hadError()) {
      listener.flush();
      return nullptr;
    }
    Builder builder(diag, bufStart, src.size());
    builder.build(tree, module);
    // Run Sema even after a builder error so that one run reports as much
    // as possible; the result is discarded below.
    ok = !builder.failed;
  } catch (const std::exception &e) {
    diag.error(llvm::SMLoc::getFromPointer(bufStart),
               llvm::Twine("internal parser error: ") + printable(e.what()));
    return nullptr;
  } catch (...) {
    diag.error(llvm::SMLoc::getFromPointer(bufStart), "internal parser error");
    return nullptr;
  }
  std::unique_ptr<Program> program = runSema(module, opts, diag);
  if (!ok || diag.hadError())
    return nullptr;
  return program;
}
