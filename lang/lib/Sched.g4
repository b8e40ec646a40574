// Sched.g4 - the ANTLR4 grammar of .sched files.
//
// Part of phasec. The grammar is deliberately small and generic: machine
// properties and operation directives are `key = value;` pairs and values are
// expressions with an optional unit, so that the builder and Sema (not the
// parser) decide which keys and values are valid and can say so in plain
// words. See docs/language.md for the reference.

grammar Sched;

file : item* EOF ;

item
  : constDecl
  | machineDecl
  | groupDecl
  | arrayDecl
  | opDecl
  | papersDecl
  ;

constDecl : 'const' ID '=' value ';' ;

machineDecl : 'machine' ID '{' property* '}' ;

// `key = value;` or `key.sub = value;` (bandwidth.LL = 24 GB/s).
property : key=(ID | 'machine') ('.' sub=ID)? '=' value ';' ;

groupDecl : 'group' ID ('on' machine=ID)? '=' groupSet ';' ;

// nodes | ranks, then an optional explicit list or range, then a predicate.
groupSet
  : kind=ID ( '{' exprList? '}' | lo=expr '..' hi=expr ('step' step=expr)? )?
    ('where' cond=expr)?
  ;

arrayDecl
  : 'array' name=ID ':' type=ID '[' exprList ']' 'by' dist=ID 'over' target ';'
  ;

// `group`, `machine.group` or `machine`.
target : first=ID ('.' second=ID)? ;

opDecl : kind=ID name=ID ('on' target)? ( '{' opItem* '}' | ';' ) ;

// PAPERS aggregates over one barrier group (seed 004's p_enqueue(mask)):
// `papers on GROUP { reduce sum { op = add; type = int32; } vote v; }`.
// Inside, an operation names a PAPERS aggregate and runs on the block's
// group (Sema says so if it has an `on` of its own).
papersDecl : 'papers' 'on' target '{' opDecl* '}' ;

opItem : property | scheduleBlock ;

scheduleBlock : 'schedule' block ;

block : '{' stmt* '}' ;

stmt
  : 'for' var=ID 'in' lo=expr '..' hi=expr ('step' step=expr)? block  # forStmt
  | 'phase' block                                                     # phaseStmt
  | 'send' src=expr '->' dst=expr (':' value | sendClause+)? ';'      # sendStmt
  | 'if' cond=expr then=block ('else' (elseBlock=block | elseIf=stmt))? # ifStmt
  | 'let' var=ID '=' expr ';'                                         # letStmt
  ;

// What a send of a relaying schedule carries: `chunks IDS` and `reduce`.
// The words are identifiers (`reduce` also names an operation kind); the
// builder checks them.
sendClause : word=ID chunkSet? ;

// One chunk id, a half-open range, or a list.
chunkSet : '{' exprList '}' | lo=expr ('..' hi=expr)? ;

// An expression with an optional unit: 75 MB/s, 1 us, 32 KiB, 4.
value : expr unit? ;

unit : num=ID ('/' den=ID)? ;

exprList : expr (',' expr)* ;

expr
  : primary                                         # primaryExpr
  | op=('!' | '-' | '~') expr                       # unaryExpr
  | expr op=('*' | '/' | '%') expr                  # binaryExpr
  | expr op=('+' | '-') expr                        # binaryExpr
  | expr op=('<<' | '>>') expr                      # binaryExpr
  | expr op=('<' | '<=' | '>' | '>=') expr          # binaryExpr
  | expr op=('==' | '!=') expr                      # binaryExpr
  | expr op='&' expr                                # binaryExpr
  | expr op='^' expr                                # binaryExpr
  | expr op='|' expr                                # binaryExpr
  | expr op='&&' expr                               # binaryExpr
  | expr op='||' expr                               # binaryExpr
  ;

primary
  : INT                                             # intPrimary
  | FLOAT                                           # floatPrimary
  | STRING                                          # stringPrimary
  | ID '(' exprList? ')'                            # callPrimary
  | ID                                              # identPrimary
  | '(' expr ')'                                    # parenPrimary
  ;

INT : [0-9]+ | '0' [xX] [0-9a-fA-F]+ ;
FLOAT : [0-9]+ '.' [0-9]+ ([eE] [+-]? [0-9]+)? | [0-9]+ [eE] [+-]? [0-9]+ ;
ID : [a-zA-Z_] [a-zA-Z_0-9]* ;
STRING : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"' ;

LINE_COMMENT : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
WS : [ \t\r\n\f]+ -> skip ;
