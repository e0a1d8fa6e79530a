/* placeholder until the AST lands */
#ifndef SONDE_AST_H
#define SONDE_AST_H
struct ast_program;
#endif
