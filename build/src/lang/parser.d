build/src/lang/parser.o: src/lang/parser.c src/lang/parser.h \
 src/lang/ast.h src/lang/types.h src/util/diag.h src/util/arena.h \
 src/lang/lexer.h src/util/strbuf.h src/util/vec.h src/util/xalloc.h
src/lang/parser.h:
src/lang/ast.h:
src/lang/types.h:
src/util/diag.h:
src/util/arena.h:
src/lang/lexer.h:
src/util/strbuf.h:
src/util/vec.h:
src/util/xalloc.h:
